#include "RunController.h"

#include "RunRecorder.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"
#include "StartCommand.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "Vocabulary.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <cmath>
#include <csignal>

namespace hips {

static constexpr int kStopGraceMs = 8000;
static constexpr int kAgentStartTimeoutMs = 30000;
static constexpr int kDeployTimeoutMs = 120000;  // uploads of ~100 MB over slow links

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

QJsonObject RunSummary::toJson() const {
    return {{"ok", ok}, {"stopped", stopped}, {"reason", reason}, {"run_dir", runDir}, {"rounds", rounds},
            {"final_test_acc", finalAccuracy}, {"best_test_acc", bestAccuracy}, {"seconds", seconds},
            {"bytes_inside", double(bytesInside)}, {"bytes_across", double(bytesAcross)}, {"samples", double(samples)}};
}

static QString describeExit(const ProcessInfo& p) {
    QString what = p.crashed
        ? QStringLiteral("was killed by signal %1 (%2)").arg(p.exitCode).arg(QString::fromLocal8Bit(strsignal(p.exitCode)))
        : QStringLiteral("exited with status %1").arg(p.exitCode);
    QString text = QStringLiteral("%1 (pid %2) %3").arg(p.node.id).arg(p.pid).arg(what);
    if (!p.error.isEmpty()) text += QStringLiteral(": ") + p.error;
    return text;
}

RunController::RunController(QObject* parent) : QObject(parent), m_recorder(std::make_unique<RunRecorder>()) {
    connect(m_recorder.get(), &RunRecorder::failed, this, &RunController::fail);
}

void RunController::setStore(RunStore* store) {
    m_store = store;
    m_recorder->setStore(store);
}
RunController::~RunController() {
    // Members go in reverse order, the launcher after the process table: a local agent whose
    // exit Qt had not yet reported is reaped by ~LocalAgentLauncher, and its "exited" must not
    // reach handlers whose state is already gone (that wrote into freed memory).
    if (m_launcher) m_launcher->disconnect(this);
    if (m_deployer) m_deployer->disconnect(this);
}

void RunController::setState(RunState s) {
    if (m_state == s) return;
    m_state = s;
    Q_EMIT stateChanged(s);
}

bool RunController::start(const Topology& topology, const QString& runDir) {
    if (m_state != RunState::Idle) {
        m_error = QStringLiteral("a run is already under way");
        return false;
    }
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
    const QString dirError = resumeRound > 0 ? m_dir.reopen(runDir, resumeRound, &kept)
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
    if (remoteHosts(topology).isEmpty()) startLocalAgent();
    else deployAgents();
    const int limitMs = kAgentStartTimeoutMs + (remoteHosts(topology).isEmpty() ? 0 : kDeployTimeoutMs);
    QTimer::singleShot(limitMs, this, [this, limitMs] {
        if (m_state != RunState::Deploying) return;
        if (m_deployer && !m_deployer->isDone()) {
            QStringList busy;
            for (auto it = m_deployStage.begin(); it != m_deployStage.end(); ++it) busy << it.key() + " (" + it.value() + ')';
            return fail(QStringLiteral("the deployment was still running after %1 s: %2; check those hosts' links")
                            .arg(limitMs / 1000).arg(busy.join(", ")));
        }
        fail(QStringLiteral("the agents did not complete their handshake in time (ready: %1 of %2)")
                 .arg(m_ready.size()).arg(m_agents.size()));
    });
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
// the clock goes on from the last kept round's.
void RunController::carryOn(const QList<QJsonObject>& kept) {
    const double firstT = kept.isEmpty() ? 0 : kept.first().value(QStringLiteral("t")).toDouble();
    for (const QJsonObject& r : kept) {
        if (r.value(QStringLiteral("kind")).toString() == metric::kTraffic)
            carryTraffic(r);
        for (const RoundRow& row : m_progress->ingest(r, r.value(QStringLiteral("t")).toDouble() - firstT)) Q_EMIT roundCompleted(row);
    }
    for (const RoundRow& row : m_progress->finish()) Q_EMIT roundCompleted(row);
    m_elapsedCarry = m_progress->rows().isEmpty() ? 0 : m_progress->rows().last().elapsed;
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

// Every host is this machine: one local agent, started as a child process, runs every role.
// It admits only this controller's key, and its roles write only inside the runs directory.
void RunController::startLocalAgent() {
    m_localAgent = true;
    m_launcher = std::make_unique<LocalAgentLauncher>();
    connect(m_launcher.get(), &LocalAgentLauncher::failed, this, &RunController::fail);
    connect(m_launcher.get(), &LocalAgentLauncher::exited, this, [this](const QString& how, int code) {
        // Its roles died with it (PR_SET_PDEATHSIG): nothing is left to stop or wait for.
        const bool expected = m_state == RunState::Stopping || m_state == RunState::Finished || m_state == RunState::Stopped || m_state == RunState::Failed;
        if (!expected && code == control::kAgentExitControllerSilent) fail(controllerSilentReason());
        else if (!expected) fail(QStringLiteral("the local agent %1 during the run; its roles ended with it").arg(how));
        for (ProcessInfo& p : m_processes)
            if (p.state == ProcessInfo::State::Pending || p.state == ProcessInfo::State::Running ||
                p.state == ProcessInfo::State::Restarting) {
                p.state = ProcessInfo::State::Stopped;
                p.ended = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
                m_recorder->process(p);
                Q_EMIT processChanged(p);
            }
        emitFinished();
    });
    m_keys = DeploymentKeys::generate();
    const CurveKeyPair agentKeys = CurveKeyPair::generate();
    m_keys.agents.insert(QString(), agentKeys.publicKey);
    connect(m_launcher.get(), &LocalAgentLauncher::ready, this, [this](const QString& endpoint) {
        addAgent(QString(), QStringLiteral("localhost"), endpoint, m_keys.clientFor(QString()), asksForGpu(m_topology, QString()));
    });
    // Real paths (links resolved), as the agent compares them.
    m_launcher->start(agentKeys, m_keys.controller.publicKey, QFileInfo(realRunDir()).path(),
                      /*outlivesController=*/m_topology.training.orphanTimeoutS > 0);
}

// Remote hosts: hips-agent deployed over SSH to each, in parallel, then a handshake with each.
void RunController::deployAgents() {
    m_deployer = std::make_unique<Deployer>();
    connect(m_deployer.get(), &Deployer::progress, this, [this](const QString& host, const QString& stage) {
        m_deployStage[host] = stage;
        Q_EMIT deployProgress(host, stage);
        Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stdout"), QStringLiteral("%1: %2").arg(host, stage));
    });
    connect(m_deployer.get(), &Deployer::hostFinished, this, [this](const HostDeployment& r) {
        m_deployStage.remove(r.host);
        Q_EMIT hostDeployed(r.host, r.ok, r.error, r.seconds);
    });
    connect(m_deployer.get(), &Deployer::finished, this, [this](const QList<HostDeployment>& results) {
        QStringList errors;
        for (const HostDeployment& r : results) {
            if (!r.ok) {
                errors << r.error;
                continue;
            }
            m_keys.agents.insert(r.host, r.agentPublicKey);
            addAgent(r.host, r.host, r.agentEndpoint, m_keys.clientFor(r.host), asksForGpu(m_topology, r.host));  // on a failure elsewhere, to be shut down
        }
        if (const QString e = m_keys.save(DeploymentKeys::pathFor(m_topology)); !e.isEmpty())
            Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stderr"), e + QStringLiteral(" (hips stop will not reach these agents)"));
        if (m_shutdownSent) {  // stopped while deploying: the agents just started go at once
            m_shutdownSent = false;
            shutdownAgent();
            return;
        }
        if (!errors.isEmpty()) fail(errors.join(QStringLiteral("; ")));
    });
    // Keys for this deployment: the controller's (each agent admits only it); the agents get
    // theirs over SSH, and the roles theirs (makeNodeKeys) in their start commands.
    m_keys = DeploymentKeys::generate();
    DeployOptions options = m_deployOptions;
    options.controllerPublicKey = m_keys.controller.publicKey;
    if (options.binDir.isEmpty()) options.binDir = QFileInfo(LocalAgentLauncher::agentPath()).absolutePath();
    m_deployer->start(m_topology, options);
}

void RunController::addAgent(const QString& host, const QString& label, const QString& endpoint, const CurveConfig& curve,
                             bool probeDevices) {
    auto agent = std::make_unique<AgentClient>(label, endpoint, curve, probeDevices);
    AgentClient* a = agent.get();
    if (m_recorder->active()) a->setManualAcks(true);
    // (Less the agents' own patience: they count the orphan time from our last ping.)
    a->setStallTolerance(qint64(m_topology.training.orphanTimeoutS - control::kSilenceTimeoutS) * 1000);
    m_roster.agents << AgentRoster::Agent{host, label, endpoint, curve.serverPublicKey};
    connect(a, &AgentClient::resumedAfterStall, this, [this, label](qint64 ms) {
        recordNotice(QStringLiteral("controller"), QStringLiteral("this controller did not run for %1 s; the agent on %2 kept "
                                                                  "the run going and sends what it missed")
                                                       .arg(double(ms) / 1000.0, 0, 'f', 1).arg(label));
    });
    connect(a, &AgentClient::ready, this, [this, host, label](const QCborMap& hello) {
        // Attached: an agent whose numbering is behind the history's mark started again (its run
        // ended without a controller, or it is another agent on that endpoint): it holds none of it.
        if (m_attached && hello.value(QStringLiteral("next_seq")).toInteger() - 1 < m_attachMarks.value(label))
            return fail(QStringLiteral("the agent on %1 no longer holds this run (it stops a run left without a controller "
                                       "for orphan_timeout_s, %2 s, and waits for the next)")
                            .arg(label).arg(m_topology.training.orphanTimeoutS)),
                   emitFinished();
        const QString problems = deviceProblems(m_topology, host, label, hello.value(QStringLiteral("devices")).toMap());
        if (!problems.isEmpty()) return fail(problems);
        m_ready.insert(host);
        if (m_ready.size() < qsizetype(m_agents.size())) return;
        onAgentsReady();
        if (m_attached && allDone()) finishWhenQuiet();  // it had ended, and the history holds all of it
    });
    connect(a, &AgentClient::stalled, this, [this, host](qint64) {
        m_gone.insert(host);
        fail(controllerSilentReason());
        if (m_localAgent || m_gone.size() == qsizetype(m_agents.size())) emitFinished();
    });
    connect(a, &AgentClient::event, this, [this, a](const QCborMap& e, qint64 seq) { onEvent(a, e, seq); });
    connect(a, &AgentClient::bye, this, [this, host, label] {
        m_gone.insert(host);
        if (!m_shutdownSent)  // nobody asked it to go: a signal, or `hips stop` from elsewhere
            fail(QStringLiteral("the agent on %1 exited before the run ended (stopped by a signal or by hips stop)").arg(label));
        if (!m_launcher && m_gone.size() == qsizetype(m_agents.size())) emitFinished();  // (our child's exit ends ours)
    });
    connect(a, &AgentClient::lost, this, [this, host](const QString& reason) {
        m_gone.insert(host);
        if (m_attached && !m_ready.contains(host))
            return fail(reason + QStringLiteral("; the run's agent is gone: it stops a run left without a controller for "
                                                "orphan_timeout_s (%1 s), or it was killed, or its host is down")
                                     .arg(m_topology.training.orphanTimeoutS)),
                   emitFinished();
        const Host* h = m_topology.host(host);
        fail(h && !m_localAgent ? reason + QStringLiteral("; the agent may have crashed: see %1/agent.log on that host, then "
                                                        "run again (it redeploys)").arg(h->installDir)
                              : reason);
        // A silent agent cannot report its roles' exits; it stops them itself.
        if (m_localAgent || m_gone.size() == qsizetype(m_agents.size())) emitFinished();
    });
    m_agents[host] = std::move(agent);
}

QString RunController::controllerSilentReason() {
    return QStringLiteral("this controller did not run for over %1 s (stopped with SIGSTOP or Ctrl-Z, suspended, or "
                          "starved of CPU), so its agents presumed it dead and stopped the run")
        .arg(control::kSilenceTimeoutS);
}

// Agents that stopped answering (and never said bye), named for the failure reason.
QString RunController::silentAgentsPrefix() const {
    if (m_failure == controllerSilentReason()) return {};  // their silence was ours
    QStringList silent;
    for (const auto& [host, agent] : m_agents)
        if (!m_gone.contains(host) && agent->silentForMs() > 3 * control::kPingMs)
            silent << QStringLiteral("%1 (silent for %2 s)").arg(agent->host()).arg(agent->silentForMs() / 1000);
    if (silent.isEmpty()) return {};
    return QStringLiteral("the agent on %1 stopped answering (host down or agent killed?); then: ").arg(silent.join(", "));
}

AgentClient* RunController::agentFor(const Node& node) const {
    auto it = m_agents.find(m_localAgent ? QString() : node.host);
    return it == m_agents.end() ? nullptr : it->second.get();
}

QString RunController::realRunDir() const { return QFileInfo(m_dir.path()).canonicalFilePath(); }

QString RunController::outDirFor(const Node& node) const {
    if (m_localAgent) return realRunDir();
    const Host* h = m_topology.host(node.host);
    return (h ? h->installDir : QStringLiteral("~/.hips")) + QStringLiteral("/runs/") + QFileInfo(m_dir.path()).fileName();
}

void RunController::onAgentsReady() {
    if (m_state != RunState::Deploying) return;
    saveRoster();
    setState(RunState::Starting);
    const QString json = QString::fromUtf8(TopologyWriter::toJson(m_topology));
    auto startNode = [&](const Node& n) {
        const StartCommand start{n.id, outDirFor(n), json, m_nodeKeys.value(n.id), m_peerKeys, m_topology.training.threads};
        agentFor(n)->send(start.toMessage());
    };
    for (const Node& n : m_topology.nodes())  // schedulers first
        if (n.kind == RoleKind::GlobalScheduler || n.kind == RoleKind::Scheduler) startNode(n);
    for (const Node& n : m_topology.nodes())
        if (n.kind != RoleKind::GlobalScheduler && n.kind != RoleKind::Scheduler) startNode(n);
}

void RunController::onEvent(AgentClient* agent, const QCborMap& e, qint64 seq) {
    m_recorder->beginEvent();
    handleEvent(e);
    m_recorder->noteEvent(agent, seq, m_dir.metricsBytes());  // (without a history the agent client acknowledged it already)
}

static double unixNow() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

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
        for (const ProcessInfo& p : m_processes)
            if (p.state != ProcessInfo::State::Exited && p.state != ProcessInfo::State::Failed)
                recordNotice(p.node.id, QStringLiteral("%1 is stopped: the run finished its rounds without it").arg(p.node.id));
        for (const auto& [host, agent] : m_agents) agent->send(Message(QStringLiteral("stop_all")));
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
    if (metric.value(QStringLiteral("kind")).toString() == metric::kTraffic &&
        m_trafficCarry.contains(metric.value(QStringLiteral("node")).toString())) {
        metric.insert(QStringLiteral("links"), withCarry(metric.value(QStringLiteral("links")).toArray(),
                                                         m_trafficCarry.value(metric.value(QStringLiteral("node")).toString())));
        line = QJsonDocument(metric).toJson(QJsonDocument::Compact);
    }
    if (const QString error = m_dir.appendMetric(line); !error.isEmpty()) fail(error);
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
    const double at = m_attached ? metric.value(QStringLiteral("t")).toDouble() - m_runStarted : elapsed();
    m_lastRecordAt = std::max(m_lastRecordAt, at);
    Q_EMIT metricRecord(metric, at);
    for (const RoundRow& row : m_progress->ingest(metric, at)) Q_EMIT roundCompleted(row);
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
    if (m_agents.empty() || !rolesAsked) {  // no role was started yet: the agents can go at once
        shutdownAgent();
        return;
    }
    for (const auto& [host, agent] : m_agents) agent->send(Message(QStringLiteral("stop_all")));
    if (allDone()) finishWhenQuiet();
    QTimer::singleShot(kStopGraceMs, this, [this] { shutdownAgent(); });
}

void RunController::finishWhenQuiet() {
    if (m_failure.isEmpty()) setState(RunState::Stopping);
    shutdownAgent();
}

void RunController::shutdownAgent() {
    if (m_shutdownSent) return;
    m_shutdownSent = true;
    if (m_deployer && !m_deployer->isDone()) {
        // Hosts still deploying: their agents are shut down as soon as the deployment ends (see
        // deployAgents); finishing now would leave them running, and the deployment's threads
        // would be joined later on this thread.
        QTimer::singleShot(2 * kStopGraceMs, this, &RunController::emitFinished);
        return;
    }
    if (m_deployer || m_attached) {  // agents not our child say "bye" as they go (→ emitFinished); silence ends the wait
        if (m_agents.empty()) return emitFinished();
        for (const auto& [host, agent] : m_agents) agent->send(Message(QStringLiteral("shutdown")));
        QTimer::singleShot(kStopGraceMs, this, &RunController::emitFinished);
        return;
    }
    if (!m_launcher || !m_launcher->running()) {
        emitFinished();
        return;
    }
    // The agent stops its roles and exits on "shutdown" (its exit → emitFinished); a SIGTERM
    // follows only if it has not gone within the grace period.
    for (const auto& [host, agent] : m_agents) agent->send(Message(QStringLiteral("shutdown")));
    QTimer::singleShot(m_agents.empty() ? 0 : kStopGraceMs, this, [this] { if (m_launcher) m_launcher->terminate(); });
}

void RunController::emitFinished() {
    if (m_finishedEmitted) return;
    m_finishedEmitted = true;
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
        const QList<RoundRow>& rows = m_progress->rows();
        s.rounds = m_progress->aggregatedRounds();
        for (auto it = rows.rbegin(); it != rows.rend(); ++it)
            if (!std::isnan(it->testAccuracy)) { s.finalAccuracy = it->testAccuracy; break; }
        s.bestAccuracy = std::isnan(m_progress->bestAccuracy()) ? 0 : m_progress->bestAccuracy();
        s.bytesInside = m_progress->bytesInside();
        s.bytesAcross = m_progress->bytesAcross();
        s.samples = m_progress->totalSamples();
    }
    // A role that failed because a peer vanished is usually the echo of an agent or host that
    // died; by now such an agent has been silent for a while, so the reason can name it.
    if (!s.ok && !s.stopped) s.reason = silentAgentsPrefix() + s.reason;
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
    if (!m_recorder->finish(s) && (s.ok || s.stopped)) {  // the run trained, but its record is not all stored
        s.ok = s.stopped = false;
        s.reason = m_recorder->error();
        if (!m_dir.path().isEmpty()) m_dir.writeSummary(s.toJson());
    }
    m_recorder->forgetAgents();
    // The run is over: its controller key (which standby agents admit) is not left lying around.
    if (!m_dir.path().isEmpty()) QFile::remove(AgentRoster::pathIn(m_dir.path()));
    setState(s.ok ? RunState::Finished : s.stopped ? RunState::Stopped : RunState::Failed);
    // Closed at once: a socket thread still receiving (an agent's resent events after this
    // process was stopped) must not post into an application that is about to quit. Deleted
    // later: we may be inside one of its signals.
    for (auto& [host, agent] : m_agents) {
        agent->close();
        agent.release()->deleteLater();
    }
    m_agents.clear();
    Q_EMIT finished(s);
}

}  // namespace hips
