#include "RunPanel.h"

#include "DeploymentTable.h"
#include "PartyLauncher.h"
#include "LogPane.h"
#include "ProcessTableModel.h"
#include "ModelFileCheck.h"
#include "ResumeTarget.h"
#include "RunDirectory.h"

#include <QDateTime>
#include <QDir>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QApplication>
#include <QInputDialog>
#include <QPointer>
#include <future>
#include <QLineEdit>
#include <QMessageBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QThreadPool>

namespace hips {

namespace {

// Asks the GUI thread (from a deployment thread) and waits for the answer, giving up when the
// deployment is cancelled: the GUI thread may itself be joining that thread, so the question
// must never be waited on blindly.
template <typename T>
T askOnGuiThread(QWidget* parent, const std::atomic<bool>& cancelled, T no, std::function<T(QWidget*)> ask) {
    auto answer = std::make_shared<std::promise<T>>();
    auto wanted = std::make_shared<std::atomic<bool>>(true);
    std::future<T> result = answer->get_future();
    QPointer<QWidget> guard(parent);
    QMetaObject::invokeMethod(
        qApp, [answer, wanted, guard, ask, no] { answer->set_value(*wanted && guard ? ask(guard) : no); }, Qt::QueuedConnection);
    while (result.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        if (cancelled) {
            *wanted = false;
            return no;
        }
    return result.get();
}

// Host keys and passphrases are asked in dialogs.
DeployOptions guiDeployOptions(QWidget* parent) {
    DeployOptions o;
    o.hostKeyPrompt = [parent](const QString& host, const QString& fingerprint, const std::atomic<bool>& cancelled) {
        return askOnGuiThread<bool>(parent, cancelled, false, [host, fingerprint](QWidget* w) {
            return QMessageBox::question(w, RunPanel::tr("Unknown host key"),
                                         RunPanel::tr("The key of host '%1' is not known yet:\n%2\n\nTrust it and record "
                                                      "it? Check the fingerprint with the host's administrator first.")
                                             .arg(host, fingerprint)) == QMessageBox::Yes;
        });
    };
    o.secretPrompt = [parent](const QString& question, const std::atomic<bool>& cancelled) {
        return askOnGuiThread<QString>(parent, cancelled, QString(), [question](QWidget* w) {
            return QInputDialog::getText(w, RunPanel::tr("SSH"), question, QLineEdit::Password);
        });
    };
    return o;
}

QString stateStyle(RunState s) {
    switch (s) {
        case RunState::Running: return QStringLiteral("background:#2ca02c;color:white");
        case RunState::Finished: return QStringLiteral("background:#1f77b4;color:white");
        case RunState::Stopped: return QStringLiteral("background:#ff7f0e;color:white");
        case RunState::Failed: return QStringLiteral("background:#d03030;color:white");
        case RunState::Idle: return QStringLiteral("background:#e0e0e0;color:#333");
        default: return QStringLiteral("background:#f0b030;color:#222");
    }
}

}  // namespace

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent),
      m_start(new QPushButton(QIcon(QStringLiteral(":/icons/start.svg")), tr("Start all"))),
      m_simulate(new QCheckBox(tr("Simulate"))),
      m_stopButton(new QPushButton(QIcon(QStringLiteral(":/icons/stop.svg")), tr("Stop all"))),
      m_stateLabel(new QLabel),
      m_processes(new ProcessTableModel(this)),
      m_table(new QTableView),
      m_shown(new QSortFilterProxyModel(this)),
      m_filter(new QLineEdit),
      m_deployment(new DeploymentTable),
      m_log(new LogPane) {
    m_start->setObjectName(QStringLiteral("start_all"));
    m_stopButton->setObjectName(QStringLiteral("stop_all"));
    m_simulate->setObjectName(QStringLiteral("simulate"));
    m_simulate->setToolTip(
        tr("Start all runs every role in one process on a virtual clock (hips simulate): no host is reached, and "
           "the times are what the deployed run would take"));
    m_stateLabel->setObjectName(QStringLiteral("run_state"));
    m_stateLabel->setMinimumWidth(110);
    m_stateLabel->setAlignment(Qt::AlignCenter);
    // A run of 1,000 processes: the filter finds a party's, a role's or the failed ones (any column's text).
    m_shown->setSourceModel(m_processes);
    m_shown->setFilterKeyColumn(-1);
    m_shown->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setObjectName(QStringLiteral("process_filter"));
    m_filter->setPlaceholderText(tr("Filter processes (party, role, state…)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(280);
    connect(m_filter, &QLineEdit::textChanged, m_shown, &QSortFilterProxyModel::setFilterFixedString);
    m_table->setObjectName(QStringLiteral("process_table"));
    m_table->setModel(m_shown);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int c : {ProcessTableModel::Party, ProcessTableModel::Host, ProcessTableModel::Role, ProcessTableModel::State})
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);  // "global_scheduler", "exited (0)" whole
    m_table->setToolTip(tr("Double-click a process to see only its log"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_start);
    bar->addWidget(m_simulate);
    bar->addWidget(m_stopButton);
    bar->addWidget(m_stateLabel);
    bar->addStretch();
    bar->addWidget(m_filter);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_deployment);  // remote runs only
    split->addWidget(m_table);
    split->addWidget(m_log);
    split->setSizes({120, 300, 300});
    m_deployment->hide();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    connect(m_start, &QPushButton::clicked, this, &RunPanel::startRequested);
    connect(m_stopButton, &QPushButton::clicked, this, &RunPanel::stop);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { m_log->showOnly(m_processes->nodeAt(m_shown->mapToSource(index).row())); });
    setState(RunState::Idle);
}

RunPanel::~RunPanel() {
    if (m_controller) m_controller->disconnect(this);
}

void RunPanel::setStartable(bool startable, const QString& reason) {
    m_startable = startable;
    m_notStartableReason = reason;
    updateButtons();
}

bool RunPanel::isActive() const {
    return m_readingModel || m_state == RunState::Deploying || m_state == RunState::Starting || m_state == RunState::Running ||
           m_state == RunState::Stopping;
}

RunController* RunPanel::newController(const Topology& topology) {
    // The previous controller may still be inside its last signal: let the event loop delete it.
    if (m_controller) m_controller.release()->deleteLater();
    m_controller = std::make_unique<RunController>();
    RunController* c = m_controller.get();
    c->setStore(m_store);
    c->setDeployOptions(guiDeployOptions(this));
    connect(c, &RunController::stateChanged, this, &RunPanel::setState);
    connect(c, &RunController::processChanged, m_processes, &ProcessTableModel::update);
    connect(c, &RunController::processActivity, m_processes, &ProcessTableModel::noteActivity);
    connect(c, &RunController::logLine, this, [this](const QString& node, const QString& stream, const QString& line) {
        m_log->append(node, stream == QLatin1String("stderr") ? QStringLiteral("warning") : QStringLiteral("info"), line);
    });
    connect(c, &RunController::notice, this, [this](const QString& source, const QString& text) {
        m_log->append(source, QStringLiteral("warning"), text);  // a death, a restart, a node down or back, a loss gone NaN
    });
    connect(c, &RunController::roundCompleted, this,
            [this, c](const RoundRow& row) { Q_EMIT roundCompleted(row, c->wallMsAt(row.elapsed)); });
    connect(c, &RunController::metricRecord, this,
            [this, c](const QJsonObject& r, double elapsed) { Q_EMIT metricRecord(r, c->wallMsAt(elapsed), elapsed); });
    connect(c, &RunController::metricRecord, m_processes, [this](const QJsonObject& r) { m_processes->noteUsage(r); });
    connect(c, &RunController::finished, this, [this](const RunSummary& s) {
        if (!s.ok && !s.stopped) m_log->append(QStringLiteral("controller"), QStringLiteral("error"), s.reason);
        m_log->append(QStringLiteral("controller"), QStringLiteral("info"), outcomeText(s));
        Q_EMIT runFinished(s);
    });

    connect(c, &RunController::deployProgress, m_deployment, &DeploymentTable::onProgress);
    connect(c, &RunController::hostDeployed, this, [this](const QString& host, bool ok, const QString& error, double seconds) {
        m_deployment->onFinished(host, ok, error, seconds);
        if (!ok) m_processes->markHostFailed(host, error);
    });

    QStringList remote;
    for (const Host& h : remoteHosts(topology)) remote << h.id;
    for (const Party& p : topology.parties)
        if (p.slurm) remote << partyHosts(p);  // (their rows show the party's job: its id, PENDING and why)
    m_processes->reset(topology.nodes(), QSet<QString>(remote.begin(), remote.end()));
    m_deployment->reset(remote);
    m_deployment->setVisible(!remote.isEmpty());
    QStringList ids;
    for (const Node& n : topology.nodes()) ids << n.id;
    m_log->clear(ids);
    return c;
}

bool RunPanel::start(const Topology& topology) {
    if (isActive()) return false;
    if (readsModelFile(topology.training)) {
        readModelThen(topology, tr("Cannot start: %1"), [this, topology] { startNow(topology); });
        return true;
    }
    return startNow(topology);
}

void RunPanel::readModelThen(const Topology& topology, const QString& refused, std::function<void()> then) {
    const quint64 read = ++m_readsStarted;
    setReadingModel(true);
    m_log->append(QStringLiteral("controller"), QStringLiteral("info"), tr("reading the model file %1 …").arg(topology.training.modelFile));
    // (On Qt's global pool, which the application waits for as it quits: a window closed meanwhile
    // does not leave the read running while the process tears down.)
    QThreadPool::globalInstance()->start([panel = QPointer<RunPanel>(this), read, topology, refused, then] {
        TrainingSettings settings = topology.training;
        const QString error = resolveModelFile(&settings);
        QMetaObject::invokeMethod(qApp, [panel, read, topology, settings, error, refused, then] {
            if (!panel || panel->m_readsStarted != read || !panel->m_readingModel) return;  // (gone, or Stop cancelled it)
            panel->setReadingModel(false);
            if (!error.isEmpty()) return panel->refuseStart(topology, error, refused.arg(error));
            then();
            // (after the start, which begins the run's log afresh: which file the run trains)
            panel->m_log->append(QStringLiteral("controller"), QStringLiteral("info"),
                                 tr("model file %1: %n tensor(s), SHA-256 %2…", nullptr, int(settings.modelTensors.size()))
                                     .arg(settings.modelFile, settings.modelSha256.left(16)));
        });
    });
}

// A start refused before its run began (as the controller refuses one): the tables show the
// topology's processes as not started, and the status bar says why.
void RunPanel::refuseStart(const Topology& topology, const QString& error, const QString& message) {
    newController(topology);
    m_log->append(QStringLiteral("controller"), QStringLiteral("error"), error);
    markNotStarted(error);
    setState(RunState::Failed);
    Q_EMIT this->message(message);  // (after the state: its change rewrites the status bar)
}

bool RunPanel::startNow(const Topology& topology) {
    RunController* c = newController(topology);
    c->setSimulated(m_simulate->isChecked());
    if (c->simulated()) m_deployment->hide();  // (a simulated run deploys nothing: its hosts waited for ever)
    const QString dir = QDir(m_runsDir).filePath(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")) + '-' +
                                                 RunDirectory::safeName(topology.name));
    if (!c->start(topology, dir)) {
        m_log->append(QStringLiteral("controller"), QStringLiteral("error"), c->error());
        markNotStarted(c->error());
        setState(RunState::Failed);
        Q_EMIT message(tr("Cannot start: %1").arg(c->error()));  // (after the state: its change rewrites the status bar)
        return false;
    }
    Q_EMIT runStarted(topology);
    m_log->append(QStringLiteral("controller"), QStringLiteral("info"), tr("run directory: %1").arg(dir));
    if (c->simulated())
        m_log->append(QStringLiteral("controller"), QStringLiteral("info"),
                      tr("simulated on a virtual clock: the times are what the deployed run would take"));
    return true;
}

bool RunPanel::attach(qint64 run, const Topology& topology) {
    if (isActive()) {
        Q_EMIT message(tr("A run is under way: stop it before taking up another"));
        return false;
    }
    RunController* c = newController(topology);
    Q_EMIT runStarted(topology);  // first: the rounds it had done come as it attaches
    if (!c->attach(run)) {
        m_log->append(QStringLiteral("controller"), QStringLiteral("error"), c->error());
        markNotStarted(c->error());
        setState(RunState::Failed);
        Q_EMIT message(tr("Cannot reattach: %1").arg(c->error()));  // (after the state: its change rewrites the status bar)
        Q_EMIT startRefused(tr("Cannot reattach: %1").arg(c->error()));
        return false;
    }
    m_log->append(QStringLiteral("controller"), QStringLiteral("info"), tr("took up run %1 from its agents").arg(run));
    return true;
}

bool RunPanel::resume(const ResumeTarget& target) {
    if (isActive()) {
        Q_EMIT message(tr("A run is under way: stop it before resuming another"));
        return false;
    }
    if (readsModelFile(target.topology.training)) {
        readModelThen(target.topology, tr("Cannot resume: %1"), [this, target] { resumeNow(target); });
        return true;
    }
    return resumeNow(target);
}

bool RunPanel::resumeNow(const ResumeTarget& target) {
    RunController* c = newController(target.topology);
    Q_EMIT runStarted(target.topology);  // first: the rounds it had done come as it resumes
    if (!c->resume(target.topology, target.runDir, target.historyRun)) {
        m_log->append(QStringLiteral("controller"), QStringLiteral("error"), c->error());
        markNotStarted(c->error());
        setState(RunState::Failed);
        Q_EMIT message(tr("Cannot resume: %1").arg(c->error()));  // (after the state: its change rewrites the status bar)
        Q_EMIT startRefused(tr("Cannot resume: %1").arg(c->error()));
        return false;
    }
    m_log->append(QStringLiteral("controller"), QStringLiteral("info"),
                  tr("resuming run %1 from the checkpoint of round %2 (run directory: %3)")
                      .arg(target.historyRun)
                      .arg(target.topology.training.resumeRound)
                      .arg(target.runDir));
    return true;
}

// A start the controller refused (a run directory it cannot make, a host it cannot use): every
// deployment row and process says so, instead of waiting for a run that never comes.
void RunPanel::markNotStarted(const QString& reason) {
    m_deployment->markNotStarted(reason);
    m_processes->markNotStarted(reason);
}

QString RunPanel::activeRunDirectory() const {
    return m_controller && isActive() && !m_readingModel ? m_controller->runDirectory() : QString();  // (reading: the last run's)
}

void RunPanel::stop() {
    if (m_readingModel) {  // (the read goes on to its end on its thread; nothing is started after it)
        setReadingModel(false);
        m_log->append(QStringLiteral("controller"), QStringLiteral("info"), tr("the start was cancelled while the model file was read"));
        return;
    }
    if (m_controller && isActive()) m_controller->stop(tr("stopped from HiPS Studio"));
}

void RunPanel::setState(RunState s) {
    m_state = s;
    m_stateLabel->setText(stateText(s));
    m_stateLabel->setStyleSheet(stateStyle(s) + QStringLiteral(";padding:3px 8px;border-radius:4px;font-weight:bold"));
    updateButtons();
    Q_EMIT stateChanged(s);
}

QString RunPanel::outcomeText(const RunSummary& s) {
    return s.ok ? tr("finished after %n round(s) in %1 s: final test %2 %3", nullptr, s.rounds)
                      .arg(s.seconds, 0, 'f', 1)
                      .arg(s.regression ? tr("RMSE") : tr("accuracy"))
                      .arg(s.finalAccuracy, 0, 'f', 4)
           : s.stopped ? tr("stopped after %n round(s) in %1 s (%2)", nullptr, s.rounds).arg(s.seconds, 0, 'f', 1).arg(s.reason)
                       : tr("failed: %1").arg(s.reason);
}

QString RunPanel::stateText(RunState s) {
    switch (s) {
        case RunState::Idle: return tr("idle");
        case RunState::Deploying: return tr("deploying");
        case RunState::Starting: return tr("starting");
        case RunState::Running: return tr("running");
        case RunState::Stopping: return tr("stopping");
        case RunState::Finished: return tr("finished");
        case RunState::Stopped: return tr("stopped");
        case RunState::Failed: return tr("failed");
    }
    return {};
}

void RunPanel::setReadingModel(bool reading) {
    m_readingModel = reading;
    m_stateLabel->setText(reading ? tr("Reading the model file") : stateText(m_state));
    m_stateLabel->setStyleSheet((reading ? stateStyle(RunState::Deploying) : stateStyle(m_state)) +
                                QStringLiteral(";padding:3px 8px;border-radius:4px;font-weight:bold"));
    updateButtons();
    Q_EMIT readingModelChanged(reading);
}

void RunPanel::updateButtons() {
    m_start->setEnabled(m_startable && !isActive());
    m_simulate->setEnabled(!isActive());
    m_start->setToolTip(m_startable ? tr("Deploy and start every process of the topology")
                                    : tr("Cannot start: %1").arg(m_notStartableReason));
    m_stopButton->setEnabled(isActive() && m_state != RunState::Stopping);
}

}  // namespace hips
