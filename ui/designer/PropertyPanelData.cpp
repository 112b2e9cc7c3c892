// The property panel's data and model fields: a party's own data source (format from the
// registry, path, the format's options) and, in the training settings, the user's TorchScript
// model, the model's input and classes, and the master's test set.
#include "PropertyPanel.h"

#include "DataFormatRegistry.h"
#include "DataReaders.h"
#include "DataRoots.h"
#include "Deployer.h"
#include "ModelFileCheck.h"
#include "RemoteDataCheck.h"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QThreadPool>

namespace hips {

namespace {

// A host of the party's workers that is another machine, if any.
QString remoteHostOf(const Topology& t, const Party& party) {
    for (const Host& h : remoteHosts(t))
        for (const WorkerGroup& g : party.workers)
            if (g.host == h.id && g.count > 0) return h.id;
    return {};
}

QString shapeText(const QList<int>& shape) {
    QStringList dims;
    for (int d : shape) dims << QString::number(d);
    return dims.join(QStringLiteral(", "));
}

}  // namespace

void PropertyPanel::addDataSource(const QString& prefix, const QString& noneText, SourceView view, SourceEdit edit) {
    const QString none = noneText;
    addChoice(
        prefix + "_format", tr("Data format"), QStringList{none} + DataFormatRegistry::names(),
        [view, none](const Topology& t) { return view(t) ? view(t)->format : none; },
        [edit, none](Topology& t, const QString& v) {
            std::optional<DataSource>* source = edit(t);
            if (!source) return;
            if (v == none) return source->reset();
            if (!*source) *source = DataSource{v, {}, {}};
            (*source)->format = v;
            const DataFormatInfo* format = DataFormatRegistry::find(v);
            for (const QString& key : (*source)->options.keys())  // another format's options go
                if (!format || !format->option(key)) (*source)->options.remove(key);
        });
    const std::optional<DataSource> shown = view(m_topology);
    if (!shown) return;
    addText(
        prefix + "_path", tr("Data path (on the party's hosts)"), [view](const Topology& t) { return view(t) ? view(t)->path : QString(); },
        [edit](Topology& t, const QString& v) {
            if (std::optional<DataSource>* s = edit(t); s && *s) (*s)->path = v.trimmed();
            return QString();
        });
    m_bindings.last().widget->setMinimumWidth(m_bindings.last().widget->fontMetrics().averageCharWidth() * 34);
    const DataFormatInfo* format = DataFormatRegistry::find(shown->format);
    if (!format) return;
    m_bindings.last().widget->setToolTip(format->pathHelp);
    for (const DataOption& option : format->options) {
        const QString key = option.name;
        if (key == QLatin1String("holdout") && prefix == QLatin1String("evaluation_data")) continue;  // a party's, not the test set's
        addText(
            prefix + '_' + key, key, [view, key](const Topology& t) { return view(t) ? view(t)->option(key) : QString(); },
            [edit, key](Topology& t, const QString& v) {
                if (std::optional<DataSource>* s = edit(t); s && *s) {
                    if (v.trimmed().isEmpty()) (*s)->options.remove(key);
                    else (*s)->options.insert(key, v.trimmed());
                }
                return QString();
            });
        auto* line = static_cast<QLineEdit*>(m_bindings.last().widget);
        line->setPlaceholderText(option.defaultValue);
        line->setToolTip(option.help);
    }
}

void PropertyPanel::addPartyData(const QString* id) {
    addDataSource(
        QStringLiteral("party_data"), tr("none: the run's dataset"),
        [id](const Topology& t) { return t.party(*id) ? t.party(*id)->data : std::nullopt; },
        [id](Topology& t) -> std::optional<DataSource>* {
            for (Party& p : t.parties)
                if (p.id == *id) return &p.data;
            return nullptr;
        });
    addDataCheck(*id);
}

// "Check data": the party's source read as its workers would read it, off the GUI thread, and
// its counts shown (never its contents): here where the party's host is this machine, else by the
// HiPS agent deployed on that host, over SSH (a host key it does not know yet is refused: deploy
// or run once to accept it).
void PropertyPanel::addDataCheck(const QString& partyId) {
    const Party* party = m_topology.party(partyId);
    if (!party || !party->data) return;
    addCheck(QStringLiteral("party_data"), tr("Check data"), tr("reads the source on the party's host and shows its counts"),
             [this, partyId]() -> Check {
                 const Party* p = m_topology.party(partyId);
                 if (!p || !p->data) return {};
                 std::optional<Host> remote;
                 if (const QString id = remoteHostOf(m_topology, *p); !id.isEmpty()) remote = *m_topology.host(id);
                 const DataSource source = remote ? *m_topology.dataSourceOf(partyId, remote->id) : *p->data;
                 const ReadOptions options = readOptionsFor(m_topology.training);
                 return {remote ? tr("reading %1 on host '%2' …").arg(source.path, remote->id) : tr("reading %1 …").arg(source.path),
                         [source, remote, options] {
                             QString text;
                             if (remote) {
                                 if (const QString error = checkDataOnHost(*remote, DeployOptions{}, source, options, &text);
                                     !error.isEmpty())
                                     return tr("cannot use it: %1").arg(error);
                                 return text;
                             }
                             try {
                                 return checkSource(source, options);
                             } catch (const DataError& e) {
                                 return tr("cannot use it: %1").arg(QString::fromStdString(e.what()));
                             }
                         }};
             });
}

// A button, and a label for its answer; the work runs on a thread of its own, and its answer
// comes back to the label if the panel still shows it.
void PropertyPanel::addCheck(const QString& name, const QString& buttonText, const QString& idle, std::function<Check()> start) {
    auto* button = new QPushButton(buttonText);
    button->setObjectName(name + QStringLiteral("_check"));
    auto* result = new QLabel(idle);
    result->setObjectName(name + QStringLiteral("_counts"));
    result->setWordWrap(true);
    result->setTextFormat(Qt::PlainText);  // (a path, a remote agent's answer: never markup)
    result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_form->addRow(button);
    m_form->addRow(result);
    connect(button, &QPushButton::clicked, this, [button, result, start] {
        const Check check = start();
        if (!check.work) return;
        button->setEnabled(false);
        result->setText(check.reading);
        // (Qt's global pool: the application waits for it as it quits, so no check outlives it.)
        QThreadPool::globalInstance()->start([work = check.work, label = QPointer<QLabel>(result), again = QPointer<QPushButton>(button)] {
            const QString text = work();
            QMetaObject::invokeMethod(qApp, [label, again, text] {
                if (label) label->setText(text);
                if (again) again->setEnabled(true);
            });
        });
    });
}

void PropertyPanel::addModelAndInput() {
    using T = Topology;
    const QString script = QString::fromLatin1(TrainingSettings::kTorchScript);
    addChoice(
        "model", tr("Model"), strategyNames(ModelRegistry::all()) << script, [](const T& t) { return t.training.model; },
        [](T& t, const QString& v) { t.training.model = v; });
    if (m_topology.training.torchScript())
        addText(
            "model_file", tr("TorchScript file (torch.jit.save)"), [](const T& t) { return t.training.modelFile; },
            [](T& t, const QString& v) {
                t.training.modelFile = v.trimmed();
                t.training.modelSha256.clear();  // read again from the file at the next start
                t.training.modelTensors.clear();
                return QString();
            });
    if (m_topology.training.torchScript())
        addCheck(QStringLiteral("model"), tr("Check model"), tr("loads the file as the trainers will and shows its size"),
                 [this]() -> Check {
                     const QString file = m_topology.training.modelFile;
                     if (file.isEmpty()) return {};
                     return {tr("reading %1 …").arg(file), [file] {
                                 QString text;
                                 const QString error = describeModelFile(file, &text);
                                 return error.isEmpty() ? text : tr("cannot load it: %1").arg(error);
                             }};
                 });
    addText(
        "input_shape", tr("Input per sample (C, H, W or features; empty: the dataset's)"),
        [](const T& t) { return shapeText(t.training.inputShape); },
        [](T& t, const QString& v) {
            QList<int> shape;
            for (const QString& part : v.split(QRegularExpression(QStringLiteral("[,x ]+")), Qt::SkipEmptyParts)) {
                bool ok = false;
                const int d = part.toInt(&ok);
                if (!ok || d < 1) return tr("the input is whole numbers: 1, 28, 28 for images, or 20 for 20 features");
                shape << d;
            }
            if (shape.size() != 0 && shape.size() != 1 && shape.size() != 3)
                return tr("give channels, height and width (1, 28, 28), or one number of features");
            t.training.inputShape = shape;
            return QString();
        });
    addChoice(
        "task", tr("Task"), {QStringLiteral("classification"), QStringLiteral("regression")}, [](const T& t) { return t.training.task; },
        [](T& t, const QString& v) {
            if (v == t.training.task) return;
            t.training.task = v;
            t.training.classes = t.training.regression() ? 1 : TrainingSettings().classes;  // outputs, or classes
        });
    if (m_topology.training.regression())
        addInt(
            "outputs", tr("Outputs (targets a sample)"), 1, 100000, [](const T& t) { return t.training.classes; },
            [](T& t, int v) { t.training.classes = v; });
    else
        addInt(
            "classes", tr("Classes"), 2, 100000, [](const T& t) { return t.training.classes; },
            [](T& t, int v) { t.training.classes = v; });
    m_form->addRow(new QLabel(tr("<b>Test set of the master</b>")));
    addDataSource(
        QStringLiteral("evaluation_data"), tr("none: the dataset's test split"), [](const T& t) { return t.training.evaluationData; },
        [](T& t) { return &t.training.evaluationData; });
}

QString PropertyPanel::dataShape(const Topology& t, const ElementRef& e) {
    QString out =
        t.training.model + '/' + t.training.task + '/' + (t.training.evaluationData ? t.training.evaluationData->format : QString());
    if (const Party* p = e.kind == ElementRef::Kind::Party ? t.party(e.party) : nullptr; p && p->data) out += '/' + p->data->format;
    return out;
}

}  // namespace hips
