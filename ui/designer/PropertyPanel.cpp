#include "PropertyPanel.h"

#include "AggregatorRegistry.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "NumberSpinBox.h"
#include "Partition.h"
#include "TopologyEdits.h"
#include "TopologyLimits.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QCheckBox>
#include <algorithm>
#include <QComboBox>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QPointer>
#include <QTimer>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace hips {

namespace {

// The fields of one role, wherever the topology keeps it.
ListeningRole* listening(Topology& t, const ElementRef& e) {
    for (Party& p : t.parties) {
        if (p.id != e.party) continue;
        if (e.kind == ElementRef::Kind::Scheduler && p.scheduler) return &*p.scheduler;
        if (e.kind == ElementRef::Kind::Server && edits::positionOf(t, e) >= 0) return &p.servers[edits::positionOf(t, e)];
        if (e.kind == ElementRef::Kind::StateService && p.stateService) return &*p.stateService;
    }
    return nullptr;
}

WorkerGroup* group(Topology& t, const ElementRef& e) {
    for (Party& p : t.parties) {
        if (p.id != e.party) continue;
        if (e.kind == ElementRef::Kind::MasterWorker && p.masterWorker) return &*p.masterWorker;
        if (e.kind == ElementRef::Kind::Workers && edits::positionOf(t, e) >= 0) return &p.workers[edits::positionOf(t, e)];
    }
    return nullptr;
}

// The standby host of a global server, the master or the state service (the roles that have one).
QString* standbyHostOf(Topology& t, const ElementRef& e) {
    if (e.kind == ElementRef::Kind::MasterWorker) return group(t, e) ? &group(t, e)->standbyHost : nullptr;
    return listening(t, e) ? &listening(t, e)->standbyHost : nullptr;
}

Host* host(Topology& t, const QString& id) {
    for (Host& h : t.hosts)
        if (h.id == id) return &h;
    return nullptr;
}

}  // namespace

PropertyPanel::PropertyPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_scroll = new QScrollArea;
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_scroll);
}

void PropertyPanel::show(const Topology& topology, const QList<ElementRef>& selection) {
    const ElementRef element = selection.isEmpty() ? ElementRef{} : selection.first();
    m_topology = topology;
    // A rename changes the element's key: follow it rather than rebuilding under the user's cursor.
    // A new mode or rule brings its own parameter fields.
    QString strategies = topology.training.mode + '/' + topology.training.aggregation + '/' + topology.training.partyAggregation + '/' +
                         topology.training.serverOptimizer + '/' + topology.training.compression + '/' +
                         topology.training.partyCompression + '/' + topology.training.partition + '/' +
                         (topology.training.privacy ? topology.training.privacy->where : QString()) + '/' +  // its own fields
                         (topology.training.secureAggregation ? QStringLiteral("secure") : QString());  // its threshold
    if (auto* g = group(m_topology, element); g && g->adversary) strategies += '/' + g->adversary->kind;  // its strength field
    if (const Party* p = topology.party(element.party); p && element.kind == ElementRef::Kind::Party)
        strategies += '/' + p->transport + (p->slurm ? QStringLiteral("/slurm") : QString());  // its collective's, its job's fields
    strategies += '/' + dataShape(topology, element);  // a data format's own option fields
    if (element == m_element && !m_bindings.isEmpty() && strategies == m_strategies) return refresh();
    // The same element with new parameter fields: the field being edited keeps the focus.
    const QString focused = element == m_element ? focusedField() : QString();
    const int scrolled = element == m_element ? m_scroll->verticalScrollBar()->value() : 0;
    m_element = element;
    m_strategies = strategies;
    rebuild();
    QWidget* again = focused.isEmpty() ? nullptr : field(focused);
    if (again) again->setFocus(Qt::OtherFocusReason);
    // The panel stays where the user had scrolled it (the field just set in view), instead of
    // jumping to its top: once the new form is laid out, which takes the event loop.
    if (scrolled > 0 || again)
        QTimer::singleShot(0, m_scroll, [this, scrolled, again = QPointer<QWidget>(again)] {
            m_scroll->verticalScrollBar()->setValue(scrolled);
            if (again) m_scroll->ensureWidgetVisible(again);
            m_scroll->horizontalScrollBar()->setValue(0);  // the labels, at the left, stay in view
        });
}

QString PropertyPanel::focusedField() const {
    const QWidget* focus = QApplication::focusWidget();
    for (const Binding& b : m_bindings)
        if (focus && (b.widget == focus || b.widget->isAncestorOf(focus))) return b.widget->objectName();
    return {};
}

// The first field one types into (a name, a count), else the first one at all (a choice).
void PropertyPanel::focusFirstField() {
    if (!m_body) return;
    QWidget* first = nullptr;
    for (QWidget* w : m_body->findChildren<QWidget*>()) {
        if (!w->isEnabled() || !(w->focusPolicy() & Qt::TabFocus) || w->objectName().isEmpty()) continue;
        auto* line = qobject_cast<QLineEdit*>(w);
        auto* spin = qobject_cast<QAbstractSpinBox*>(w);
        if (!line && !spin) {
            if (!first) first = w;
            continue;
        }
        w->setFocus(Qt::OtherFocusReason);
        line ? line->selectAll() : spin->selectAll();
        return;
    }
    if (first) first->setFocus(Qt::OtherFocusReason);
}

QWidget* PropertyPanel::field(const QString& name) const {
    return m_body ? m_body->findChild<QWidget*>(name) : nullptr;
}

void PropertyPanel::rebuild() {
    // A rebuild may run inside a signal of one of the old fields (an edit that changed the
    // selection): the old form goes with deleteLater, never under its own feet.
    m_bindings.clear();
    if (QWidget* old = m_scroll->takeWidget()) old->deleteLater();
    m_body = new QWidget;
    m_form = new QFormLayout(m_body);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // A long label goes above its field rather than pushing the field out of the panel.
    m_form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    switch (m_element.kind) {
        case ElementRef::Kind::None: buildTraining(); break;
        case ElementRef::Kind::Party: buildParty(); break;
        case ElementRef::Kind::HostGroup: buildHost(); break;
        default: buildRole(); break;
    }
    m_scroll->setWidget(m_body);
    refresh();
}

void PropertyPanel::refresh() {
    markIgnoredSettings();
    for (const Binding& b : m_bindings) {
        const QSignalBlocker block(b.widget);
        const QVariant v = b.get(m_topology);
        if (auto* e = qobject_cast<QLineEdit*>(b.widget)) {
            if (e->text() != v.toString()) e->setText(v.toString());
        } else if (auto* s = qobject_cast<QSpinBox*>(b.widget)) s->setValue(v.toInt());
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(b.widget)) d->setValue(v.toDouble());
        else if (auto* c = qobject_cast<QComboBox*>(b.widget)) {
            if (c->findText(v.toString()) < 0) c->addItem(v.toString());
            c->setCurrentText(v.toString());
        } else if (auto* k = qobject_cast<QCheckBox*>(b.widget)) k->setChecked(v.toBool());
    }
}

// Why the file an edit leads to would not open again, where the one before it would: the
// reader's first issue. (The designer saved an empty name, an empty address or path, and then
// refused to open the file it wrote.)
static QString wouldNotOpen(const Topology& before, const Topology& after) {
    const TopologyLoad load = TopologyReader::readJson(TopologyWriter::toJson(after));
    if (load.draft || load.issues.isEmpty()) return {};
    if (!TopologyReader::readJson(TopologyWriter::toJson(before)).draft) return {};  // (no worse than it was)
    return load.issues.first().toString();
}

void PropertyPanel::commit(const Binding& b, const QVariant& value, const QString& label) {
    Topology t = m_topology;
    if (const QString why = b.set(t, value); !why.isEmpty()) {
        Q_EMIT refused(why);
        refresh();
        return;
    }
    // (A field emptied only: other values may need another typed after them, as a noise of 0,
    // "auto", a target ε, and the reader would refuse the file in between.)
    const bool emptied = qobject_cast<QLineEdit*>(b.widget) && value.toString().trimmed().isEmpty();
    if (const QString why = emptied ? wouldNotOpen(m_topology, t) : QString(); !why.isEmpty()) {
        Q_EMIT refused(tr("%1: not taken, the file would not open again: %2").arg(label, why));
        refresh();
        return;
    }
    if (m_element.kind == ElementRef::Kind::Party && b.widget->objectName() == QLatin1String("party_id"))
        m_element.party = value.toString();  // the panel keeps showing the renamed party
    if (m_element.kind == ElementRef::Kind::HostGroup && b.widget->objectName() == QLatin1String("host_id"))
        m_element.host = value.toString();
    Q_EMIT editRequested(tr("Set %1").arg(label), t, m_element.key() + '#' + b.widget->objectName());
}

void PropertyPanel::addText(const QString& name, const QString& label, std::function<QString(const Topology&)> get,
                            std::function<QString(Topology&, const QString&)> set) {
    auto* edit = new QLineEdit;
    edit->setObjectName(name);
    m_bindings << Binding{edit, [get](const Topology& t) { return QVariant(get(t)); },
                          [set](Topology& t, const QVariant& v) { return set(t, v.toString()); }};
    const Binding b = m_bindings.last();
    connect(edit, &QLineEdit::editingFinished, this, [this, b, edit, label] {
        if (edit->text() != b.get(m_topology).toString()) commit(b, edit->text(), label);
    });
    m_form->addRow(label, edit);
}

// A wheel over a field the user has not clicked into scrolls the panel instead of changing the
// field: scrolling down the training settings with the wheel changed the global aggregation to
// bulyan on the way (Qt's combo and spin boxes take the wheel whenever it is over them).
void PropertyPanel::scrollUnlessFocused(QWidget* field) {
    field->setFocusPolicy(Qt::StrongFocus);  // a wheel does not give it focus either
    field->installEventFilter(this);
}

bool PropertyPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Wheel) {
        if (auto* field = qobject_cast<QWidget*>(watched); field && !field->hasFocus()) {
            QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PropertyPanel::addInt(const QString& name, const QString& label, int lo, int hi, std::function<int(const Topology&)> get,
                           std::function<void(Topology&, int)> set) {
    addCheckedInt(name, label, lo, hi, std::move(get), [set](Topology& t, int v) {
        set(t, v);
        return QString();
    });
}

void PropertyPanel::addCheckedInt(const QString& name, const QString& label, int lo, int hi, std::function<int(const Topology&)> get,
                                  std::function<QString(Topology&, int)> set) {
    auto* spin = new QSpinBox;
    spin->setObjectName(name);
    spin->setRange(lo, hi);
    spin->setKeyboardTracking(false);
    scrollUnlessFocused(spin);
    m_bindings << Binding{spin, [get](const Topology& t) { return QVariant(get(t)); },
                          [set](Topology& t, const QVariant& v) { return set(t, v.toInt()); }};
    const Binding b = m_bindings.last();
    connect(spin, &QSpinBox::valueChanged, this, [this, b, label](int v) { commit(b, v, label); });
    m_form->addRow(label, spin);
}

void PropertyPanel::addDouble(const QString& name, const QString& label, double lo, double hi, int decimals,
                              std::function<double(const Topology&)> get, std::function<void(Topology&, double)> set) {
    auto* spin = new NumberSpinBox;
    spin->setObjectName(name);
    spin->setRange(lo, hi);
    spin->setSingleStep(std::pow(10.0, -decimals + 1));  // the arrows' step; the value keeps its precision
    spin->setKeyboardTracking(false);
    scrollUnlessFocused(spin);
    m_bindings << Binding{spin, [get](const Topology& t) { return QVariant(get(t)); },
                          [set](Topology& t, const QVariant& v) {
                              set(t, v.toDouble());
                              return QString();
                          }};
    const Binding b = m_bindings.last();
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, b, label](double v) { commit(b, v, label); });
    m_form->addRow(label, spin);
}

void PropertyPanel::addChoice(const QString& name, const QString& label, const QStringList& choices,
                              std::function<QString(const Topology&)> get, std::function<void(Topology&, const QString&)> set) {
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->addItems(choices);
    scrollUnlessFocused(combo);
    m_bindings << Binding{combo, [get](const Topology& t) { return QVariant(get(t)); },
                          [set](Topology& t, const QVariant& v) {
                              set(t, v.toString());
                              return QString();
                          }};
    const Binding b = m_bindings.last();
    connect(combo, &QComboBox::currentTextChanged, this, [this, b, label](const QString& v) { commit(b, v, label); });
    m_form->addRow(label, combo);
}

void PropertyPanel::addBool(const QString& name, const QString& label, std::function<bool(const Topology&)> get,
                            std::function<void(Topology&, bool)> set) {
    auto* box = new QCheckBox;
    box->setObjectName(name);
    m_bindings << Binding{box, [get](const Topology& t) { return QVariant(get(t)); },
                          [set](Topology& t, const QVariant& v) {
                              set(t, v.toBool());
                              return QString();
                          }};
    const Binding b = m_bindings.last();
    connect(box, &QCheckBox::toggled, this, [this, b, label](bool v) { commit(b, v, label); });
    m_form->addRow(label, box);
}

void PropertyPanel::addHostChoice(const QString& label, std::function<QString(const Topology&)> get,
                                  std::function<void(Topology&, const QString&)> set) {
    QStringList hosts;
    for (const Host& h : m_topology.hosts) hosts << h.id;
    addChoice(QStringLiteral("role_host"), label, hosts, get, set);
}

// A global server's, the master's or the state service's standby host: where it starts again when
// its own host is lost.
void PropertyPanel::addStandbyHostChoice(const ElementRef& e) {
    const QString none = tr("none");
    QStringList hosts{none};
    for (const Host& h : m_topology.hosts) hosts << h.id;
    addChoice(
        QStringLiteral("role_standby_host"), tr("Standby host"), hosts,
        [e, none](const Topology& t) {
            const QString* standby = standbyHostOf(const_cast<Topology&>(t), e);
            return standby && !standby->isEmpty() ? *standby : none;
        },
        [e, none](Topology& t, const QString& v) {
            if (QString* standby = standbyHostOf(t, e)) *standby = v == none ? QString() : v;
        });
    field(QStringLiteral("role_standby_host"))
        ->setToolTip(e.kind == ElementRef::Kind::MasterWorker
                         ? tr("Where the master starts again, and evaluates from the newest model on, when its host is lost "
                              "(fault_policy continue)")
                     : e.kind == ElementRef::Kind::StateService
                         ? tr("Where the state service starts again when its host is lost (fault_policy continue); the workers "
                              "ask it there once their host's service stops answering")
                         : tr("Where this global server starts again, from the global scheduler's copy of its model, when its host "
                              "is lost (fault_policy continue)"));
}

void PropertyPanel::buildTraining() {
    auto* title = new QLabel(tr("<b>Topology and training</b>"));
    m_form->addRow(title);
    addText(
        "name", tr("Name"), [](const Topology& t) { return t.name; },
        [](Topology& t, const QString& v) {
            t.name = v;
            return QString();
        });
    using T = Topology;
    addChoice(
        "dataset", tr("Dataset"), strategyNames(DatasetRegistry::all()), [](const T& t) { return t.training.dataset; },
        [](T& t, const QString& v) { t.training.dataset = v; });
    addText(
        "data_dir", tr("Data folder"), [](const T& t) { return t.training.dataDir; },
        [](T& t, const QString& v) {
            t.training.dataDir = v;
            return QString();
        });
    // A path on a row of its own, the panel's width: beside the labels it showed "ts/fashion-mnist".
    m_bindings.last().widget->setMinimumWidth(m_bindings.last().widget->fontMetrics().averageCharWidth() * 34);
    addModelAndInput();
    addStrategies();
    addInt(
        "rounds", tr("Rounds"), 1, 1000000, [](const T& t) { return t.training.rounds; }, [](T& t, int v) { t.training.rounds = v; });
    addInt(
        "local_iters", tr("Local iterations (0: use epochs)"), 0, 1000000, [](const T& t) { return t.training.localIters; },
        [](T& t, int v) { t.training.localIters = v; });
    addInt(
        "local_epochs", tr("Local epochs (0: use iterations)"), 0, 10000, [](const T& t) { return t.training.localEpochs; },
        [](T& t, int v) { t.training.localEpochs = v; });
    addInt(
        "batch_size", tr("Batch size"), 1, 65536, [](const T& t) { return t.training.batchSize; },
        [](T& t, int v) { t.training.batchSize = v; });
    addDouble(
        "learning_rate", tr("Learning rate"), 1e-9, 100, 4, [](const T& t) { return t.training.learningRate; },
        [](T& t, double v) { t.training.learningRate = v; });
    addDouble(
        "momentum", tr("Momentum"), 0, 0.999999, 3, [](const T& t) { return t.training.momentum; },
        [](T& t, double v) { t.training.momentum = v; });
    addInt(
        "eval_every", tr("Evaluate every (rounds)"), 1, 1000000, [](const T& t) { return t.training.evalEvery; },
        [](T& t, int v) { t.training.evalEvery = v; });
    addInt(
        "checkpoint_every", tr("Checkpoint every (rounds, 0: never)"), 0, 1000000, [](const T& t) { return t.training.checkpointEvery; },
        [](T& t, int v) { t.training.checkpointEvery = v; });
    addBool(
        "train_central_workers", tr("Central workers train"), [](const T& t) { return t.training.trainCentralWorkers; },
        [](T& t, bool v) { t.training.trainCentralWorkers = v; });
    addInt(
        "seed", tr("Seed"), 0, 2147483647, [](const T& t) { return t.training.seed; }, [](T& t, int v) { t.training.seed = v; });
    addInt(
        "threads", tr("Threads per role"), 1, 256, [](const T& t) { return t.training.threads; },
        [](T& t, int v) { t.training.threads = v; });
    addInt(
        "synthetic_samples", tr("Synthetic samples"), 16, 10000000, [](const T& t) { return t.training.syntheticSamples; },
        [](T& t, int v) { t.training.syntheticSamples = v; });
    addInt(
        "heartbeat_timeout_s", tr("Heartbeat timeout (s)"), 2, 3600, [](const T& t) { return t.training.heartbeatTimeoutS; },
        [](T& t, int v) { t.training.heartbeatTimeoutS = v; });
    addInt(
        "orphan_timeout_s", tr("Run goes on without its controller (s)"), 0, 604800, [](const T& t) { return t.training.orphanTimeoutS; },
        [](T& t, int v) { t.training.orphanTimeoutS = v; });
    addInt(
        "agent_timeout_s", tr("Agent silence limit (s)"), 3, 3600, [](const T& t) { return t.training.agentTimeoutS; },
        [](T& t, int v) { t.training.agentTimeoutS = v; });
}

static bool isCentralParty(const Topology& t, const QString& id) {
    return t.party(id) && t.party(id)->central;
}

void PropertyPanel::buildParty() {
    m_form->addRow(new QLabel(tr("<b>Party</b>")));
    const QString* id = &m_element.party;  // follows renames
    addText(
        "party_id", tr("Id"), [id](const Topology&) { return *id; },
        [id](Topology& t, const QString& v) { return edits::renameParty(t, *id, v); });
    addBool(
        "party_central", tr("Central party"), [id](const Topology& t) { return t.party(*id) && t.party(*id)->central; },
        [id](Topology& t, bool v) { edits::setCentral(t, *id, v); });
    if (isCentralParty(m_topology, *id)) return addPartyData(id);  // the others' links are what a wan emulates
    // The emulated link to the central party (docs/algorithms.md, "Slow links between parties"): 0 Mbit/s is no emulation.
    auto party = [id](Topology& t) -> Party* {
        for (Party& p : t.parties)
            if (p.id == *id) return &p;
        return nullptr;
    };
    addDouble(
        "party_wan_bandwidth", tr("WAN bandwidth (Mbit/s, 0: none)"), 0, 100000, 3,
        [id](const Topology& t) { return t.party(*id) && t.party(*id)->wan ? t.party(*id)->wan->bandwidthMbps : 0.0; },
        [party](Topology& t, double v) {
            if (Party* p = party(t)) {
                if (v <= 0) p->wan.reset();
                else p->wan = WanLink{v, p->wan ? p->wan->latencyMs : 0.0};
            }
        });
    addDouble(
        "party_wan_latency", tr("WAN latency (ms)"), 0, 10000, 1,
        [id](const Topology& t) { return t.party(*id) && t.party(*id)->wan ? t.party(*id)->wan->latencyMs : 0.0; },
        [party](Topology& t, double v) {
            if (Party* p = party(t); p && p->wan) p->wan->latencyMs = v;
        });
    addDouble(
        "party_clients_per_round", tr("Workers per round (0: the run's)"), 0, 1e6, 3,
        [id](const Topology& t) { return t.party(*id) ? t.party(*id)->clientsPerRound : 0.0; },
        [party](Topology& t, double v) {
            if (Party* p = party(t)) p->clientsPerRound = v;
        });
    addPartyTransport(id);
    addPartyLauncher(id);
    addPartyData(id);
}

void PropertyPanel::buildHost() {
    m_form->addRow(new QLabel(tr("<b>Host</b> (shared by every party on it)")));
    const QString* id = &m_element.host;
    addText(
        "host_id", tr("Id"), [id](const Topology&) { return *id; },
        [id](Topology& t, const QString& v) { return edits::renameHost(t, *id, v); });
    auto text = [&](const char* name, const QString& label, QString Host::*member) {
        addText(
            name, label, [id, member](const Topology& t) { return t.host(*id) ? t.host(*id)->*member : QString(); },
            [id, member](Topology& t, const QString& v) {
                if (Host* h = host(t, *id)) h->*member = v;
                return QString();
            });
    };
    text("host_address", tr("Address"), &Host::address);
    addInt(
        "host_ssh_port", tr("SSH port"), 1, 65535, [id](const Topology& t) { return t.host(*id) ? t.host(*id)->sshPort : 22; },
        [id](Topology& t, int v) {
            if (Host* h = host(t, *id)) h->sshPort = v;
        });
    text("host_user", tr("User"), &Host::user);
    text("host_identity_file", tr("Identity file"), &Host::identityFile);
    text("host_install_dir", tr("Install directory"), &Host::installDir);
}

void PropertyPanel::buildRole() {
    const ElementRef e = m_element;
    const QString what = e.kind == ElementRef::Kind::Scheduler      ? tr("Scheduler")
                         : e.kind == ElementRef::Kind::Server       ? tr("Server")
                         : e.kind == ElementRef::Kind::MasterWorker ? tr("Master worker")
                         : e.kind == ElementRef::Kind::StateService ? tr("State service")
                                                                    : tr("Worker group");
    m_form->addRow(new QLabel(QStringLiteral("<b>%1</b> · %2").arg(what, e.party.toHtmlEscaped())));
    const bool listens =
        e.kind == ElementRef::Kind::Scheduler || e.kind == ElementRef::Kind::Server || e.kind == ElementRef::Kind::StateService;
    auto hostOf = [e, listens](const Topology& t) {
        Topology& m = const_cast<Topology&>(t);
        if (listens) return listening(m, e) ? listening(m, e)->host : QString();
        return group(m, e) ? group(m, e)->host : QString();
    };
    addHostChoice(tr("Host"), hostOf, [e, listens](Topology& t, const QString& v) {
        if (listens && listening(t, e)) listening(t, e)->host = v;
        if (!listens && group(t, e)) group(t, e)->host = v;
    });
    if (listens)
        addInt(
            "role_port", tr("Port"), 1024, 65535,
            [e](const Topology& t) {
                auto* r = listening(const_cast<Topology&>(t), e);
                return r ? r->port : 0;
            },
            [e](Topology& t, int v) {
                if (auto* r = listening(t, e)) r->port = v;
            });
    if ((e.kind == ElementRef::Kind::Server && m_topology.party(e.party) && m_topology.party(e.party)->central) ||
        e.kind == ElementRef::Kind::MasterWorker || e.kind == ElementRef::Kind::StateService)
        addStandbyHostChoice(e);
    if (e.kind == ElementRef::Kind::Workers)
        addInt(
            "role_count", tr("Workers"), 1, kMaxWorkersPerGroup,
            [e](const Topology& t) {
                auto* g = group(const_cast<Topology&>(t), e);
                return g ? g->count : 1;
            },
            [e](Topology& t, int v) {
                if (auto* g = group(t, e)) g->count = v;
            });
    if (e.kind == ElementRef::Kind::Workers) {
        addDouble(
            "role_slowdown", tr("Slowdown (×)"), 1, 1000, 2,
            [e](const Topology& t) {
                auto* g = group(const_cast<Topology&>(t), e);
                return g ? g->slowdown : 1.0;
            },
            [e](Topology& t, double v) {
                if (auto* g = group(t, e)) g->slowdown = v;
            });
        field(QStringLiteral("role_slowdown"))
            ->setToolTip(tr("Each local step takes this multiple of its compute time: a slower device, emulated"));
        // A simulated Byzantine group (AdversaryRegistry): none, or a kind and its strength.
        const QString none = tr("none (honest)");
        addChoice(
            "role_adversary", tr("Adversary"), QStringList{none} + strategyNames(AdversaryRegistry::all()),
            [e, none](const Topology& t) {
                auto* g = group(const_cast<Topology&>(t), e);
                return g && g->adversary ? g->adversary->kind : none;
            },
            [e, none](Topology& t, const QString& v) {
                auto* g = group(t, e);
                if (!g) return;
                if (v == none) g->adversary.reset();
                else g->adversary = AdversarySpec{v, AdversaryRegistry::defaultStrength(v), 0};
            });
        if (auto* g = group(m_topology, e); g && g->adversary && AdversaryRegistry::find(g->adversary->kind) &&
                                            AdversaryRegistry::find(g->adversary->kind)->param(QStringLiteral("strength")))
            addDouble(
                "role_adversary_strength", tr("Attack strength"), -1e6, 1e6, 2,
                [e](const Topology& t) {
                    auto* g = group(const_cast<Topology&>(t), e);
                    return g && g->adversary ? g->adversary->strength : 0.0;
                },
                [e](Topology& t, double v) {
                    if (auto* g = group(t, e); g && g->adversary) g->adversary->strength = v;
                });
    }
    addText(
        "role_device", tr("Device"),
        [e, listens](const Topology& t) {
            Topology& m = const_cast<Topology&>(t);
            if (listens) return listening(m, e) ? listening(m, e)->device : QString();
            return group(m, e) ? group(m, e)->device : QString();
        },
        [e, listens](Topology& t, const QString& v) {
            if (listens && listening(t, e)) listening(t, e)->device = v;
            if (!listens && group(t, e)) group(t, e)->device = v;
            return QString();
        });
}

}  // namespace hips
