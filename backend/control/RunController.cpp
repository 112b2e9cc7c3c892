#include "RunController.h"

#include "RunRecorder.h"

#include "ControlProtocol.h"
#include "StartCommand.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "ModelFileCheck.h"
#include "Vocabulary.h"

#include <QDateTime>
#include <QScopedValueRollback>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <csignal>

namespace hips {

static constexpr int kStopGraceMs = AgentFleet::kStopGraceMs;

QString runStateName(RunState s) {
    switch (s) {
        case RunState::Idle: return QStringLiteral("idle");
        case RunState::Deploying: return QStringLiteral("deploying");
        case RunState::Starting: return QStringLiteral("starting");
        case RunState::Running: return QStringLiteral("running");
        case RunState::Stopping: return QStringLiteral("stopping");
        case RunState::Finished: return QStringLiteral("finished");
        case RunState::Stopped: return QStringLiteral("stopped");
        case RunState::Failed: return QStringLiteral("failed");
    }
    return {};
}

QString processStateName(ProcessInfo::State s) {
    switch (s) {
        case ProcessInfo::State::Pending: return QStringLiteral("pending");
        case ProcessInfo::State::Running: return QStringLiteral("running");
        case ProcessInfo::State::Exited: return QStringLiteral("exited");
        case ProcessInfo::State::Failed: return QStringLiteral("failed");
        case ProcessInfo::State::Stopped: return QStringLiteral("stopped");
        case ProcessInfo::State::Restarting: return QStringLiteral("restarting");
    }
    return {};
}

static double unixNow() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

static QString describeExit(const ProcessInfo& p) {
    QString what = p.crashed
        ? QStringLiteral("was killed by signal %1 (%2)").arg(p.exitCode).arg(QString::fromLocal8Bit(strsignal(p.exitCode)))
        : QStringLiteral("exited with status %1").arg(p.exitCode);
    QString text = QStringLiteral("%1 (pid %2) %3").arg(p.node.id).arg(p.pid).arg(what);
    if (!p.error.isEmpty()) text += QStringLiteral(": ") + p.error;
    return text;
}

RunController::RunController(QObject* parent) : QObject(parent), m_recorder(std::make_unique<RunRecorder>()) {
    connect(m_recorder.get(), &RunRecorder::failed, this, [this](const QString& e) {
        if (!m_concluding) fail(e);  // (after that, the run's end says it)
    });
    connect(m_recorder.get(), &RunRecorder::stalled, this, [this](const QString& text) { Q_EMIT notice("history", text); });
    connect(this, &RunController::roundCompleted, this, &RunController::noticeDivergence);
}

// The first round whose training loss is not a number gets a notice (history and screen): the
// run goes on to its end, but nothing it learns from then on means anything.
void RunController::noticeDivergence(const RoundRow& row) {
    if (!std::isnan(row.trainLoss) || !m_progress) return;
    const QList<RoundRow>& rows = m_progress->rows();
    if (std::count_if(rows.begin(), rows.end(), [](const RoundRow& r) { return std::isnan(r.trainLoss); }) != 1) return;
    const QString text = QStringLiteral("the workers' training loss is not a number from round %1 on: the model diverged; "
                                        "lower the learning rate (training.learning_rate, hips run --lr) or the server's "
                                        "(server_lr)").arg(row.round);
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
    if (!remoteHosts(topology).isEmpty() && remoteHosts(topology).size() != topology.hosts.size()) {
        m_error = QStringLiteral("this topology mixes loopback (127.0.0.1) and remote hosts; roles on other machines "
                                 "cannot reach this one's loopback, so give its hosts an address they can reach");
        return false;
    }
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
    m_progress = std::make_unique<RunProgress>(topology.trainReportsPerRound(), topology.training.rounds,
                                               topology.training.evalEvery);
    for (const Node& n : topology.nodes()) m_processes.insert(n.id, ProcessInfo{n, ProcessInfo::State::Pending, 0, 0, 0, 0, false, {}, 0});
    m_clock.start();
    if (resumeRound > 0) carryOn(kept);
    if (!m_recorder->begin(topology, realRunDir(), m_resumedRun, resumeRound)) {
        m_error = m_recorder->error();
        return false;
    }
    for (const ProcessInfo& p : m_processes) m_recorder->process(p);
    setState(RunState::Deploying);
    makeNodeKeys();
    if (remoteHosts(topology).isEmpty()) useFleet(std::make_unique<LocalFleet>(topology, realRunDir(), m_recorder->active()));
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

// A resumed run's rows up to its checkpoint come from the records kept then; the new processes'
// traffic counters start from zero, so each link's count at the checkpoint is carried on, and
// the clock goes on from the last kept record's time on the run's own clock (as the history's
// reports read it: from its start, earlier pauses left out).
void RunController::carryOn(const QList<QJsonObject>& kept) {
    RunClock clock(kept.isEmpty() ? 0 : kept.first().value(QStringLiteral("t")).toDouble());  // (no history)
    if (const auto run = m_store && m_resumedRun > 0 ? m_store->run(m_resumedRun) : std::nullopt)
        clock = RunClock(*run, m_store->metrics(m_resumedRun), m_store->traffic(m_resumedRun), m_store->events(m_resumedRun));
    const QScopedValueRollback replaying(m_replaying, true);
    for (const QJsonObject& r : kept) {
        if (r.value(QStringLiteral("kind")).toString() == metric::kTraffic)
            carryTraffic(r);
        firstOfItsRound(r);
        const double at = clock.elapsed(r.value(QStringLiteral("t")).toDouble());
        m_elapsedCarry = std::max(m_elapsedCarry, at);
        for (const RoundRow& row : m_progress->ingest(r, at)) Q_EMIT roundCompleted(row);
    }
    for (const RoundRow& row : m_progress->finish()) Q_EMIT roundCompleted(row);
}

// Every node gets its own key pair: a role is admitted, and named, by its key alone, so no
// node (or stranger) can pose as another. Local runs too: loopback is open to every local user.
void RunController::makeNodeKeys() {
    for (const Node& n : m_topology.nodes()) {
        const CurveKeyPair pair = CurveKeyPair::generate();
        m_nodeKeys.insert(n.id, pair);
        m_peerKeys.insert(n.id, pair.publicKey);
    }
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
        if (allDone()) finishWhenQuiet();  // it had ended, and the history holds all of it
    });
    connect(f, &AgentFleet::event, this, &RunController::onEvent);
    connect(f, &AgentFleet::notice, this, &RunController::recordNotice);
    connect(f, &AgentFleet::logLine, this, &RunController::logLine);
    connect(f, &AgentFleet::deployProgress, this, &RunController::deployProgress);
    connect(f, &AgentFleet::hostDeployed, this, &RunController::hostDeployed);
    connect(f, &AgentFleet::agentRestarting, this, &RunController::onAgentRestarting);
    connect(f, &AgentFleet::agentBack, this, &RunController::startRolesAgain);
    connect(f, &AgentFleet::hostLost, this, &RunController::moveOffLostHost);
    f->setAgentRestarts([this] {
        return m_topology.training.continuesThroughFailures() && !m_endingStragglers &&
               (m_state == RunState::Starting || m_state == RunState::Running);
    });
    f->start();
}

// The agent took its roles with it: whatever had not ended is stopped.
void RunController::endUnfinishedProcesses() {
    for (ProcessInfo& p : m_processes)
        if (p.state == ProcessInfo::State::Pending || p.state == ProcessInfo::State::Running ||
            p.state == ProcessInfo::State::Restarting) {
            p.state = ProcessInfo::State::Stopped;
            p.ended = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            m_recorder->process(p);
            Q_EMIT processChanged(p);
        }
}

QString RunController::realRunDir() const { return QFileInfo(m_dir.path()).canonicalFilePath(); }

void RunController::onAgentsReady() {
    if (m_state != RunState::Deploying) return;
    setState(RunState::Starting);
    startRoles([](const ProcessInfo&) { return true; });
}

void RunController::startRoles(const std::function<bool(const ProcessInfo&)>& which) {
    const QString json = QString::fromUtf8(TopologyWriter::toJson(m_topology));
    const qint64 placement = QDateTime::currentMSecsSinceEpoch();  // (a node moved later is placed later)
    auto startNode = [&](const Node& n) {
        if (!which(m_processes.value(n.id))) return;
        const StartCommand start{n.id, m_fleet->outDirFor(n), json, m_nodeKeys.value(n.id), m_peerKeys,
                                 m_topology.training.threads, placement};
        m_fleet->send(n, start.toMessage());
    };
    for (const Node& n : m_topology.nodes())  // schedulers first
        if (n.kind == RoleKind::GlobalScheduler || n.kind == RoleKind::Scheduler) startNode(n);
    for (const Node& n : m_topology.nodes())
        if (n.kind != RoleKind::GlobalScheduler && n.kind != RoleKind::Scheduler) startNode(n);
}

// fault_policy continue: the agent died and took its roles with it; it is started again, and then
// they are (startRolesAgain), each as a restart of its own (the same keys, so the same identity).
void RunController::onAgentRestarting(const QString& host, const QString& how, int attempt, int maxRestarts, int delayMs) {
    m_agentsRestarting.insert(host);
    const QString agent = host.isEmpty() ? QStringLiteral("the local agent") : QStringLiteral("the agent on ") + host;
    recordNotice(QStringLiteral("agent"), QStringLiteral("%1 %2 and took its roles with it; restart %3 of %4 in %5 s")
                                              .arg(agent, how).arg(attempt).arg(maxRestarts).arg(double(delayMs) / 1000.0));
    for (ProcessInfo& p : m_processes) {
        if ((!host.isEmpty() && p.node.host != host) || p.state == ProcessInfo::State::Exited || p.state == ProcessInfo::State::Failed ||
            p.state == ProcessInfo::State::Stopped)
            continue;
        const bool wasUp = p.state == ProcessInfo::State::Running;
        p.state = ProcessInfo::State::Restarting;
        p.ended = unixNow();
        p.error = QStringLiteral("ended with its agent, which ") + how;
        ++p.restarts;
        m_recorder->process(p);
        Q_EMIT processChanged(p);
        if (!wasUp) continue;
        carryTraffic(m_lastTraffic.value(p.node.id));  // (its next process counts from zero)
        recordNotice(p.node.id, QStringLiteral("%1 (pid %2) %3; it starts again with the agent").arg(p.node.id).arg(p.pid).arg(p.error));
    }
}

void RunController::startRolesAgain(const QString& host) {
    m_agentsRestarting.remove(host);
    // (A stop's shutdown follows; once the rounds are done, its roles were stopped while it was away.)
    if ((m_state != RunState::Starting && m_state != RunState::Running) || m_endingStragglers) return;
    startRoles([&](const ProcessInfo& p) {
        return p.state == ProcessInfo::State::Restarting && (host.isEmpty() || p.node.host == host);
    });
}

// A host that cannot be reached (its agent went silent, and deploying it again failed): a global
// server there with a standby host starts on it, from the global scheduler's copy of its recovery
// point, and the two hosts swap roles (should the standby be lost in turn, the server goes back).
// A host with nothing left to run is no longer tried again.
void RunController::moveOffLostHost(const QString& host, const QString& error) {
    if ((m_state != RunState::Starting && m_state != RunState::Running) || m_endingStragglers) return;
    for (ProcessInfo& p : m_processes) {
        if (p.node.host != host || p.state != ProcessInfo::State::Restarting || p.node.standbyHost.isEmpty() ||
            !m_fleet->hasAgent(p.node.standbyHost))
            continue;
        ListeningRole& server = m_topology.parties[centralPartyIndex()].servers[p.node.rank];
        std::swap(server.host, server.standbyHost);
        p.node = *m_topology.node(p.node.id);
        recordNotice(p.node.id, QStringLiteral("%1 lost its host %2 (%3); it starts on its standby host %4 from the global "
                                               "scheduler's copy of its recovery point")
                                    .arg(p.node.id, host, error, p.node.host));
        m_recorder->process(p);
        Q_EMIT processChanged(p);
        if (const QString e = m_dir.writeTopology(TopologyWriter::toJson(m_topology)); !e.isEmpty())
            recordNotice(QStringLiteral("controller"), e + QStringLiteral(" (hips attach would look for it on ") + host + ')');
        const QString moved = p.node.id;
        startRoles([&](const ProcessInfo& q) { return q.node.id == moved; });
    }
    const bool rolesLeft = std::any_of(m_processes.begin(), m_processes.end(), [&](const ProcessInfo& p) {
        return p.node.host == host && (p.state == ProcessInfo::State::Restarting || p.state == ProcessInfo::State::Pending);
    });
    if (!rolesLeft) m_fleet->giveUpHost(host);
}

int RunController::centralPartyIndex() const {
    for (int i = 0; i < m_topology.parties.size(); ++i)
        if (m_topology.parties[i].central) return i;
    return -1;
}

void RunController::onEvent(AgentClient* agent, const QCborMap& e, qint64 seq) {
    m_recorder->beginEvent();
    handleEvent(e);
    m_recorder->noteEvent(agent, seq, m_dir.metricsBytes());  // (without a history the agent client acknowledged it already)
}

void RunController::handleEvent(const QCborMap& e) {
    const QString kind = e.value(QStringLiteral("kind")).toString();
    const QString node = e.value(QStringLiteral("node")).toString();
    auto it = m_processes.find(node);
    if (it == m_processes.end()) return;
    Q_EMIT processActivity(node);
    if (kind == QLatin1String("metric")) {
        onMetric(e.value(QStringLiteral("json")).toString());
    } else if (kind == QLatin1String("log")) {
        const QString stream = e.value(QStringLiteral("stream")).toString();
        const QString line = e.value(QStringLiteral("line")).toString();
        if (const QString error = m_dir.appendLog(node, line); !error.isEmpty()) fail(error);
        if (stream == QLatin1String("stderr")) m_recorder->event(QStringLiteral("warning"), node, line);
        Q_EMIT logLine(node, stream, line);
    } else if (kind == QLatin1String("started")) {
        it->pid = e.value(QStringLiteral("pid")).toInteger();
        it->started = unixNow();
        it->state = ProcessInfo::State::Running;
        m_recorder->process(*it);
        Q_EMIT processChanged(*it);
        bool all = true;
        for (const ProcessInfo& p : m_processes) all = all && p.state != ProcessInfo::State::Pending;
        if (all && m_state == RunState::Starting) setState(RunState::Running);
    } else if (kind == QLatin1String("exited")) {
        onExited(*it, e);
    }
}

void RunController::onExited(ProcessInfo& p, const QCborMap& e) {
    p.exitCode = int(e.value(QStringLiteral("code")).toInteger());
    p.crashed = e.value(QStringLiteral("crashed")).toBool();
    p.error = e.value(QStringLiteral("error")).toString();
    p.ended = unixNow();
    const bool clean = p.exitCode == 0 && !p.crashed;
    const bool restarting = !clean && e.value(QStringLiteral("restarting")).toBool() && m_state != RunState::Stopping &&
                            !m_endingStragglers;
    if (restarting) p.state = ProcessInfo::State::Restarting, ++p.restarts;
    else if ((m_state == RunState::Stopping || m_endingStragglers) && !clean) p.state = ProcessInfo::State::Stopped;
    else p.state = clean ? ProcessInfo::State::Exited : ProcessInfo::State::Failed;
    m_recorder->process(p);
    Q_EMIT processChanged(p);
    if (restarting) {
        // Its next process counts its traffic from zero: what this one had counted is carried on.
        carryTraffic(m_lastTraffic.value(p.node.id));
        recordNotice(p.node.id, QStringLiteral("%1; restart %2 of %3 in %4 s")
                                    .arg(describeExit(p)).arg(e.value(QStringLiteral("attempt")).toInteger())
                                    .arg(e.value(QStringLiteral("max_restarts")).toInteger())
                                    .arg(double(e.value(QStringLiteral("delay_ms")).toInteger()) / 1000.0));
    } else if (p.state == ProcessInfo::State::Failed) {
        // Under fault_policy continue a worker's death is the schedulers' to judge (min_workers).
        if (m_topology.training.continuesThroughFailures() && p.node.kind == RoleKind::Worker)
            recordNotice(p.node.id, describeExit(p) + QStringLiteral("; the run goes on without it (fault_policy continue)"));
        else
            fail(describeExit(p));
    }
    if (allDone()) finishWhenQuiet();
    else if (m_topology.training.continuesThroughFailures() && roundsDone()) endStragglersSoon();
}

// fault_policy continue: the global servers and the master have finished cleanly, so the run's
// rounds are done. A role still there (a worker declared down and never back, or waiting for a
// restart; a party server that came back after the last round) has nothing to rejoin: after a
// grace for those just finishing, the agents stop it and cancel its restart.
bool RunController::roundsDone() const {
    for (const ProcessInfo& p : m_processes)
        if ((p.node.kind == RoleKind::GlobalServer || p.node.kind == RoleKind::MasterWorker) && p.state != ProcessInfo::State::Exited)
            return false;
    return true;
}

void RunController::endStragglersSoon() {
    constexpr int kStragglerGraceMs = 5000;  // the roles that got the final model exit within it
    QTimer::singleShot(kStragglerGraceMs, this, [this] {
        if (allDone() || m_endingStragglers || m_state != RunState::Running) return;
        m_endingStragglers = true;
        for (ProcessInfo& p : m_processes) {
            if (p.state == ProcessInfo::State::Exited || p.state == ProcessInfo::State::Failed) continue;
            recordNotice(p.node.id, QStringLiteral("%1 is stopped: the run finished its rounds without it").arg(p.node.id));
            // Waiting for its agent to be started again: no agent will say it stopped.
            const bool agentAway = m_agentsRestarting.contains(QString()) || m_agentsRestarting.contains(p.node.host);
            if (p.state == ProcessInfo::State::Restarting && agentAway) {
                p.state = ProcessInfo::State::Stopped;
                m_recorder->process(p);
                Q_EMIT processChanged(p);
            }
        }
        m_fleet->broadcast(QStringLiteral("stop_all"));
        if (allDone()) finishWhenQuiet();
    });
}

void RunController::recordNotice(const QString& source, const QString& text) {
    m_recorder->event(QStringLiteral("fault"), source, text);
    Q_EMIT notice(source, text);
}

// A node's traffic record as its process counted it: what its earlier processes (before a restart
// or a resume) counted is kept, to be added on.
void RunController::carryTraffic(const QJsonObject& record) {
    QHash<QString, QJsonObject>& carry = m_trafficCarry[record.value(QStringLiteral("node")).toString()];
    for (const QJsonValue& v : record.value(QStringLiteral("links")).toArray())
        carry.insert(v.toObject().value(QStringLiteral("peer")).toString(), v.toObject());
}

// The links of a new process's record with its predecessors' counts added; a link it has not used
// yet (a restarted party server before its workers push again) keeps what they had counted, so
// no total ever goes down.
QJsonArray RunController::withCarry(const QJsonArray& links, const QHash<QString, QJsonObject>& carry) {
    QJsonArray out;
    QSet<QString> seen;
    for (const QJsonValue& v : links) {
        QJsonObject link = v.toObject();
        const QString peer = link.value(QStringLiteral("peer")).toString();
        seen.insert(peer);
        const QJsonObject before = carry.value(peer);
        link.insert(QStringLiteral("sent"), link.value(QStringLiteral("sent")).toDouble() + before.value(QStringLiteral("sent")).toDouble());
        link.insert(QStringLiteral("received"),
                    link.value(QStringLiteral("received")).toDouble() + before.value(QStringLiteral("received")).toDouble());
        out.append(link);
    }
    for (auto it = carry.begin(); it != carry.end(); ++it)
        if (!seen.contains(it.key())) out.append(*it);
    return out;
}

void RunController::onMetric(const QString& json) {
    QJsonObject metric = QJsonDocument::fromJson(json.toUtf8()).object();
    QByteArray line = json.toUtf8();
    if (!firstOfItsRound(metric)) return;
    if (metric.value(QStringLiteral("kind")).toString() == metric::kTraffic &&
        m_trafficCarry.contains(metric.value(QStringLiteral("node")).toString())) {
        metric.insert(QStringLiteral("links"), withCarry(metric.value(QStringLiteral("links")).toArray(),
                                                         m_trafficCarry.value(metric.value(QStringLiteral("node")).toString())));
        line = QJsonDocument(metric).toJson(QJsonDocument::Compact);
    }
    if (const QString error = m_dir.appendMetric(line); !error.isEmpty()) fail(error);
    if (const QString error = m_labelSpace.ingest(metric); !error.isEmpty()) fail(error);
    m_recorder->metric(metric);
    if (metric.value(QStringLiteral("kind")).toString() == metric::kTraffic)
        m_lastTraffic[metric.value(QStringLiteral("node")).toString()] = metric;
    // (A party server is a member of two schedulers: its change is told once.)
    if (metric.value(QStringLiteral("kind")).toString() == metric::kMembership &&
        std::exchange(m_membership[metric.value(QStringLiteral("member")).toString()], metric.value(QStringLiteral("state")).toString()) !=
            metric.value(QStringLiteral("state")).toString())
        recordNotice(metric.value(QStringLiteral("member")).toString(),
                     QStringLiteral("%1 declared %2: %3").arg(metric.value(QStringLiteral("member")).toString(),
                                                            metric.value(QStringLiteral("state")).toString(),
                                                            metric.value(QStringLiteral("reason")).toString()));
    // Attached, records come late (those the agent kept while no controller was there): their
    // own times place them.
    const double at = m_attached ? m_runClock.elapsed(metric.value(QStringLiteral("t")).toDouble()) : elapsed();
    m_lastRecordAt = std::max(m_lastRecordAt, at);
    Q_EMIT metricRecord(metric, at);
    for (const RoundRow& row : m_progress->ingest(metric, at)) Q_EMIT roundCompleted(row);
}

// A round is evaluated once: a restarted master may be given the model its predecessor had
// evaluated just before it died (the same model, the same figures), which is not kept twice. A
// global server's round is aggregated once: a restarted one reports the round it recovered
// again, in case that record died with its predecessor.
bool RunController::firstOfItsRound(const QJsonObject& record) {
    const QString kind = record.value(QStringLiteral("kind")).toString();
    if (kind != metric::kEval && kind != metric::kAggregate) return true;
    const QString key = kind == metric::kEval ? kind : kind + QLatin1Char(' ') + record.value(QStringLiteral("node")).toString();
    const int round = record.value(metric::kRound).toInt(-1);
    if (m_roundsSeen[key].contains(round)) return false;
    m_roundsSeen[key].insert(round);
    return true;
}

bool RunController::allDone() const {
    for (const ProcessInfo& p : m_processes)
        if (p.state == ProcessInfo::State::Pending || p.state == ProcessInfo::State::Running ||
            p.state == ProcessInfo::State::Restarting)
            return false;
    return true;
}

void RunController::fail(const QString& reason) {
    if (!m_failure.isEmpty() || m_state == RunState::Finished || m_state == RunState::Stopped || m_state == RunState::Failed)
        return;
    m_failure = reason;
    stopRoles();
}

// A stop asked for by the user ends the run like a failure (every role goes), but is recorded as
// its own outcome: what failed after it (roles ended by the stop) is its consequence, not a cause.
void RunController::stop(const QString& reason) {
    if (!m_failure.isEmpty() || m_state == RunState::Finished || m_state == RunState::Stopped || m_state == RunState::Failed)
        return;
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
    if (allDone()) finishWhenQuiet();
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

void RunController::emitFinished() {
    if (m_concluding) return;
    m_concluding = true;
    RunSummary s;
    s.ok = m_failure.isEmpty();
    s.stopped = m_userStopped;
    s.reason = m_failure;
    s.runDir = m_dir.path();
    s.seconds = m_attached ? m_lastRecordAt : elapsed();
    if (m_progress) {
        // Rounds that trained but whose evaluation never came (a stopped or failed run) are
        // rows too, without accuracy: every trained round is charted and kept.
        for (const RoundRow& row : m_progress->finish()) Q_EMIT roundCompleted(row);
        s.takeFigures(*m_progress, m_topology.training.regression());
    }
    // A role that failed because a peer vanished is usually the echo of an agent or host that
    // died; by now such an agent has been silent for a while, so the reason can name it.
    if (!s.ok && !s.stopped && m_fleet && m_failure != AgentFleet::controllerSilentReason())  // (their silence was ours)
        s.reason = m_fleet->silentAgentsPrefix() + s.reason;
    if (s.ok && s.rounds < m_topology.training.rounds) {
        s.ok = false;
        s.reason = QStringLiteral("the roles ended after %1 of %2 rounds").arg(s.rounds).arg(m_topology.training.rounds);
    }
    // The run directory first (its first write error, summary.json's included, fails the run),
    // then the history, so both tell the same outcome; a history that could not store it is the
    // last word, and summary.json is written again to say so.
    if (!m_dir.path().isEmpty()) m_dir.writeSummary(s.toJson());
    if ((s.ok || s.stopped) && !m_dir.error().isEmpty()) {
        s.ok = s.stopped = false;
        s.reason = m_dir.error();
    }
    m_recorder->forgetAgents();
    m_recorder->finish(s, [this, s](bool stored) { concludeRun(s, stored); });
}

void RunController::concludeRun(RunSummary s, bool stored) {
    if (!stored && (s.ok || s.stopped)) {  // the run trained, but its record is not all stored
        s.ok = s.stopped = false;
        s.reason = m_recorder->error();
        if (!m_dir.path().isEmpty()) m_dir.writeSummary(s.toJson());
    }
    // The run is over: its controller key (which standby agents admit) is not left lying around.
    if (!m_dir.path().isEmpty()) QFile::remove(AgentRoster::pathIn(m_dir.path()));
    setState(s.ok ? RunState::Finished : s.stopped ? RunState::Stopped : RunState::Failed);
    if (m_fleet) m_fleet->close();
    Q_EMIT finished(s);
}

}  // namespace hips
