#include "RunController.h"

#include "AvailabilityTrace.h"
#include "RunRecorder.h"

#include "ControlProtocol.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "ModelFileCheck.h"
#include "PartyLauncher.h"
#include "PrivacyBudget.h"
#include "SimulationCheck.h"
#include "TopologyLimits.h"
#include "RoleLog.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <csignal>

namespace hips {

static constexpr int kStopGraceMs = AgentFleet::kStopGraceMs;

RunController::RunController(QObject* parent) : QObject(parent), m_recorder(std::make_unique<RunRecorder>()) {
    connect(m_recorder.get(), &RunRecorder::failed, this, [this](const QString& e) {
        if (!m_concluding) fail(e);  // (after that, the run's end says it)
    });
    connect(m_recorder.get(), &RunRecorder::stalled, this, [this](const QString& text) { Q_EMIT notice("history", text); });
}

// The first round whose training loss is not a number gets a notice (history and screen): the
// run goes on to its end, but nothing it learns from then on means anything.
void RunController::noticeDivergence(const RoundRow& row) {
    if (!std::isnan(row.trainLoss) || !m_progress) return;
    if (m_progress->divergedRows() != 1) return;
    const QString text = QStringLiteral(
                             "the workers' training loss is not a number from round %1 on: the model diverged; "
                             "lower the learning rate (training.learning_rate, hips run --lr) or the server's "
                             "(server_lr)")
                             .arg(row.round);
    if (!m_replaying) m_recorder->event(QStringLiteral("warning"), QStringLiteral("controller"), text);  // else it is there
    Q_EMIT notice(QStringLiteral("controller"), text);
}

void RunController::setStore(RunStore* store) {
    m_store = store;
    m_recorder->setStore(store);
}
RunController::~RunController() {
    // The fleet goes first (its local agent may still report an exit, which must not reach
    // handlers whose state is already gone).
    if (m_fleet) m_fleet->disconnect(this);
    m_fleet.reset();
}

void RunController::setState(RunState s) {
    if (m_state == s) return;
    m_state = s;
    Q_EMIT stateChanged(s);
}

bool RunController::start(const Topology& given, const QString& runDir) {
    if (m_state != RunState::Idle) {
        m_error = QStringLiteral("a run is already under way");
        return false;
    }
    Topology topology = given;  // with a TorchScript model's SHA-256 and sizes, as the roles check it
    if (m_error = resolveModelFile(&topology.training); !m_error.isEmpty()) return false;
    if (const TopologyIssues issues = TopologyReader::validate(topology); !issues.isEmpty()) {
        m_error = issues.first().toString();
        return false;
    }
    if (m_simulated && !(m_error = simulationRefusal(topology)).isEmpty()) return false;
    if (m_simulated && !(m_error = readAvailabilityTraces(topology, nullptr)).isEmpty()) return false;  // (before anything is written)
    if (!m_simulated && topology.nodeCount() > kMaxDeployedNodes) {
        m_error = QStringLiteral(
                      "the topology starts %1 processes; a deployed run starts at most %2: use fewer workers, or rehearse it "
                      "with hips simulate")
                      .arg(topology.nodeCount())
                      .arg(kMaxDeployedNodes);
        return false;
    }
    const PrivacyPlan privacyPlan = settlePrivacy(&topology);  // "auto" noise; rounds within target_epsilon
    if (!privacyPlan.error.isEmpty()) {
        m_error = QStringLiteral("training.privacy: ") + privacyPlan.error;
        return false;
    }
    m_privacyCut = privacyPlan.cut;
    const int resumeRound = topology.training.resumeRound;
    QList<QJsonObject> kept;  // a resumed run's records up to its checkpoint
    Topology own = topology;  // what the run directory keeps: a resume may have given it more rounds
    own.training.resumeRound = 0;
    const QString dirError = resumeRound > 0 ? m_dir.reopen(runDir, resumeRound, TopologyWriter::toJson(own), &kept)
                                             : m_dir.create(runDir, TopologyWriter::toJson(topology));
    if (!dirError.isEmpty()) {
        m_error = dirError;
        return false;
    }
    m_topology = topology;
    m_progress = std::make_unique<RunProgress>(topology.trainReportsPerRound(), topology.training.rounds, topology.training.evalEvery);
    m_processes.reset(topology.nodes());
    m_clock.start();
    if (resumeRound > 0) carryOn(kept);
    if (!m_recorder->begin(topology, realRunDir(), m_resumedRun, resumeRound, m_dir.metricsBytes())) {
        m_error = m_recorder->error();
        return false;
    }
    for (const ProcessInfo& p : m_processes.all()) m_recorder->process(p);
    if (m_simulated)
        m_recorder->event(QStringLiteral("simulated"), QStringLiteral("controller"),
                          QStringLiteral("hips simulate: every role in one process; its times are the virtual clock's, what the "
                                         "deployed run would take"));
    if (!privacyPlan.note.isEmpty()) {
        m_recorder->event(QStringLiteral("info"), QStringLiteral("controller"), privacyPlan.note);
        Q_EMIT notice(QStringLiteral("controller"), privacyPlan.note);
    }
    setState(RunState::Deploying);
    // (local runs too: loopback is open to every local user; a simulated run has no sockets)
    if (!m_simulated) m_launch.makeKeys(m_topology.nodes());
    if (m_simulated) {
        m_runClock = RunClock(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 - elapsed());  // (the virtual clock starts here)
        useFleet(std::make_unique<SimulatedFleet>(topology, realRunDir(), m_runClock.unixTime(0)));
    } else if (remoteHosts(topology).isEmpty()) useFleet(std::make_unique<LocalFleet>(topology, realRunDir(), m_recorder->active()));
    else useFleet(std::make_unique<RemoteFleet>(topology, realRunDir(), m_recorder->active(), m_deployOptions));
    return true;
}

bool RunController::resume(const Topology& topology, const QString& runDir, qint64 historyRun) {
    if (topology.training.resumeRound <= 0) {
        m_error = QStringLiteral("no round to resume from");
        return false;
    }
    m_resumedRun = historyRun;
    return start(topology, runDir);
}

// The agents, whichever kind: what they say drives the run.
void RunController::useFleet(std::unique_ptr<AgentFleet> fleet) {
    m_fleet = std::move(fleet);
    AgentFleet* f = m_fleet.get();
    connect(f, &AgentFleet::failed, this, &RunController::fail);
    connect(f, &AgentFleet::gone, this, [this](bool rolesEnded) {
        if (rolesEnded) endUnfinishedProcesses();
        emitFinished();
    });
    connect(f, &AgentFleet::ready, this, [this] {
        if (!m_attached) return onAgentsReady();
        if (m_processes.allDone()) finishWhenQuiet();  // it had ended, and the history holds all of it
    });
    connect(f, &AgentFleet::event, this, &RunController::onEvent);
    connect(f, &AgentFleet::notice, this, &RunController::recordNotice);
    connect(f, &AgentFleet::logLine, this, &RunController::logLine);
    connect(f, &AgentFleet::deployProgress, this, &RunController::deployProgress);
    connect(f, &AgentFleet::hostDeployed, this, &RunController::hostDeployed);
    connect(f, &AgentFleet::agentRestarting, this, &RunController::onAgentRestarting);
    connect(f, &AgentFleet::agentBack, this, &RunController::startRolesAgain);
    connect(f, &AgentFleet::hostLost, this, &RunController::moveOffLostHost);
    connect(f, &AgentFleet::hostsPlaced, this, &RunController::placeHosts);
    connect(f, &AgentFleet::slurmJobSubmitted, this, &RunController::recordSlurmJob);
    f->setLoginOptions(m_deployOptions);
    f->setAgentRestarts([this] {
        return m_topology.training.continuesThroughFailures() && !m_endingStragglers &&
               (m_state == RunState::Starting || m_state == RunState::Running);
    });
    f->start();
}

// The agent took its roles with it: whatever had not ended is stopped.
void RunController::endUnfinishedProcesses() {
    for (ProcessInfo* p : m_processes.stopUnfinished()) tellProcess(*p);
}

void RunController::tellProcess(const ProcessInfo& p) {
    m_recorder->process(p);
    Q_EMIT processChanged(p);
}

QString RunController::realRunDir() const {
    return QFileInfo(m_dir.path()).canonicalFilePath();
}

void RunController::onAgentsReady() {
    if (m_state != RunState::Deploying) return;
    setState(RunState::Starting);
    // (The simulator runs every role in its one process: there is nothing to start, and the
    // commands, each with the whole topology and every node's key, cost O(nodes²) to build.)
    if (!m_simulated) startRoles([](const ProcessInfo&) { return true; });
}

void RunController::startRoles(const std::function<bool(const ProcessInfo&)>& which) {
    const qint64 placement = QDateTime::currentMSecsSinceEpoch();  // (a node moved later is placed later)
    const auto picked = [&](const Node& n) { return which(*m_processes.find(n.id)); };
    const auto outDir = [this](const Node& n) { return m_fleet->outDirFor(n); };
    for (auto [node, start] : m_launch.commands(m_topology, picked, outDir, placement)) {
        start.logOnHost = m_fleet->keepsLogsOnHost(node);
        m_fleet->send(node, start.toMessage());
    }
}

void RunController::onEvent(AgentClient* agent, const QCborMap& e, qint64 seq) {
    m_recorder->beginEvent();
    handleEvent(e, agent ? clockCorrectionOf(*agent) : 0);  // (none: hips simulate's, on the virtual clock)
    m_recorder->noteEvent(agent, seq, m_dir.metricsBytes(),
                          m_dir.metricsDurability());  // (without a history the agent client acknowledged it already)
    if (!m_unshownRows.isEmpty()) showOnceStored(std::exchange(m_unshownRows, {}));
}

// Each row's ε as this controller counts it: its restarts' reruns, and (attached, resumed) those
// of the controllers before it.
QList<RoundRow> RunController::withEpsilon(QList<RoundRow> rows) {
    if (!m_topology.training.privacy) return rows;
    if (!m_privacyTally) m_privacyTally.emplace(m_topology);  // (again after a restart counted: RunFaults.cpp)
    for (RoundRow& row : rows) row.epsilon = m_privacyTally->epsilonBy(row.round);
    return rows;
}

void RunController::showOnceStored(const QList<RoundRow>& shown) {
    const QList<RoundRow> rows = withEpsilon(shown);
    m_recorder->afterStored([this, rows] {
        for (const RoundRow& row : rows) Q_EMIT roundCompleted(row);
    });
}

double RunController::clockCorrectionOf(const AgentClient& agent) {
    const double correction = agent.clock().correction();
    const double said = m_clockCorrections.value(agent.host(), 0);
    // Said once when first found off, then only when it moves by a second (what the history
    // shows): a host near kInStep, now in step and now not, is not said again each time.
    if (std::abs(correction - said) > 1 || (correction != 0 && !m_clockCorrections.contains(agent.host()))) {
        m_clockCorrections.insert(agent.host(), correction);
        recordNotice(agent.host(), correction == 0
                                       ? QStringLiteral("the clock of host %1 is in step with this computer's again").arg(agent.host())
                                       : QStringLiteral("the clock of host %1 is %2 s %3 this computer's (±%4 s): its roles' "
                                                        "records are placed on this computer's clock; set the clocks by NTP")
                                             .arg(agent.host())
                                             .arg(std::abs(correction), 0, 'f', 3)
                                             .arg(correction > 0 ? QStringLiteral("behind") : QStringLiteral("ahead of"))
                                             .arg(agent.clock().uncertainty(), 0, 'f', 3));
    }
    return correction;
}

void RunController::handleEvent(const QCborMap& e, double clockCorrection) {
    const QString kind = e.value(QStringLiteral("kind")).toString();
    const QString node = e.value(QStringLiteral("node")).toString();
    ProcessInfo* p = m_processes.find(node);
    if (!p) return;
    Q_EMIT processActivity(node);
    if (kind == control::event::kMetric) {
        onMetric(node, e.value(QStringLiteral("json")).toString(), clockCorrection);
    } else if (kind == control::event::kLog) {
        const QString stream = e.value(QStringLiteral("stream")).toString();
        const QString line = e.value(QStringLiteral("line")).toString();
        if (const QString error = m_dir.appendLog(node, line); !error.isEmpty()) fail(error);
        if (stream == QLatin1String("stderr")) m_recorder->event(QStringLiteral("warning"), node, line);
        Q_EMIT logLine(node, stream, line);
    } else if (kind == control::event::kStarted) {
        m_processes.started(*p, e.value(QStringLiteral("pid")).toInteger());
        tellProcess(*p);
        if (m_processes.allStarted() && m_state == RunState::Starting) setState(RunState::Running);
    } else if (kind == control::event::kExited) {
        onExited(*p, e);
    }
}

void RunController::onExited(ProcessInfo& p, const QCborMap& e) {
    const bool restarting = m_processes.exited(p, e, m_state == RunState::Stopping || m_endingStragglers);
    tellProcess(p);
    if (restarting) {
        countRestartAgainstPrivacy(p.node);
        m_feed.processEnded(p.node.id);
        recordNotice(p.node.id, QStringLiteral("%1; restart %2 of %3 in %4 s")
                                    .arg(describeExit(p))
                                    .arg(e.value(QStringLiteral("attempt")).toInteger())
                                    .arg(e.value(QStringLiteral("max_restarts")).toInteger())
                                    .arg(double(e.value(QStringLiteral("delay_ms")).toInteger()) / 1000.0));
    } else if (p.state == ProcessInfo::State::Failed) {
        // Slurm signals a job's processes (SIGTERM) as it ends the job: under fault_policy continue
        // the party's job is submitted again (AgentFleet), and this role starts again with it. (Any
        // other end, a status or another signal, is the role's own failure, handled as anywhere.)
        if (m_topology.training.continuesThroughFailures() && slurmPartyOf(m_topology, p.node.host) && p.crashed && p.exitCode == SIGTERM) {
            countRestartAgainstPrivacy(p.node);  // (it trains or sums its open round again)
            p.state = ProcessInfo::State::Restarting;
            tellProcess(p);
            m_feed.processEnded(p.node.id);
            recordNotice(p.node.id, describeExit(p) + QStringLiteral("; it starts again with its party's Slurm job"));
        } else if (m_topology.training.continuesThroughFailures() && p.node.kind == RoleKind::Worker)
            recordNotice(p.node.id, describeExit(p) + QStringLiteral("; the run goes on without it (fault_policy continue)"));
        else fail(describeExit(p));
    }
    if (m_processes.allDone()) finishWhenQuiet();
    else if (m_topology.training.continuesThroughFailures() && m_processes.roundsDone()) endStragglersSoon();
}

void RunController::recordNotice(const QString& source, const QString& text) {
    m_recorder->event(QStringLiteral("fault"), source, text);
    Q_EMIT notice(source, text);
}

void RunController::onMetric(const QString& node, const QString& json, double clockCorrection) {
    const std::optional<MetricsFeed::Taken> taken = m_feed.take(json.toUtf8(), clockCorrection);
    if (!taken) return;
    const QJsonObject& metric = taken->record;
    if (const QString error = m_dir.appendMetric(taken->line); !error.isEmpty()) fail(error);
    if (const QString error = m_labelSpace.ingest(metric); !error.isEmpty()) fail(error);
    m_recorder->metric(metric);
    // Roles print nothing of their own in a run that goes well: their log tells what they did.
    if (const QString line = metric::roleLogLine(metric); !line.isEmpty()) {  // (in the log of the process it came from)
        if (const QString error = m_dir.appendLog(node, line); !error.isEmpty()) fail(error);
        Q_EMIT logLine(node, QStringLiteral("stdout"), line);
    }
    if (!taken->change.isEmpty()) recordNotice(taken->member, taken->change);
    // Attached, records come late (those the agent kept while no controller was there): their
    // own times place them.
    const double at = recordTimes() ? m_runClock.elapsed(metric.value(QStringLiteral("t")).toDouble()) : elapsed();
    m_lastRecordAt = std::max(m_lastRecordAt, at);
    Q_EMIT metricRecord(metric, at);
    for (const RoundRow& row : m_progress->ingest(metric, at)) {
        noticeDivergence(row);
        m_unshownRows.append(row);  // shown once the event is stored (onEvent)
    }
}

void RunController::fail(const QString& reason) {
    if (!m_failure.isEmpty() || m_state == RunState::Finished || m_state == RunState::Stopped || m_state == RunState::Failed) return;
    m_failure = reason;
    stopRoles();
}

// A stop asked for by the user ends the run like a failure (every role goes), but is recorded as
// its own outcome: what failed after it (roles ended by the stop) is its consequence, not a cause.
void RunController::stop(const QString& reason) {
    if (!m_failure.isEmpty() || m_state == RunState::Finished || m_state == RunState::Stopped || m_state == RunState::Failed) return;
    m_userStopped = true;
    fail(reason);
}

void RunController::stopRoles() {
    const bool rolesAsked = m_state == RunState::Starting || m_state == RunState::Running;
    setState(RunState::Stopping);
    if (!m_fleet || m_fleet->empty() || !rolesAsked) {  // no role was started yet: the agents can go at once
        shutdownFleet();
        return;
    }
    m_fleet->broadcast(QStringLiteral("stop_all"));
    if (m_processes.allDone()) finishWhenQuiet();
    QTimer::singleShot(kStopGraceMs, this, &RunController::shutdownFleet);
}

void RunController::finishWhenQuiet() {
    if (m_failure.isEmpty()) setState(RunState::Stopping);
    shutdownFleet();
}

void RunController::shutdownFleet() {
    if (m_fleet) m_fleet->shutdown();  // (→ gone → emitFinished)
    else emitFinished();
}

}  // namespace hips
