#include "AgentFleet.h"

#include "RunDirectory.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"
#include "FaultPolicy.h"

#include <QFileInfo>
#include <QTimer>

namespace hips {

AgentFleet::AgentFleet(const Topology& topology, const QString& runDir, bool manualAcks)
    : m_topology(topology), m_runDir(runDir), m_manualAcks(manualAcks) {}

AgentFleet::~AgentFleet() = default;

void AgentFleet::addAgent(const QString& host, const QString& label, const QString& endpoint, const CurveConfig& curve, bool probeDevices,
                          qint64 resumeAfter) {
    auto agent = std::make_unique<AgentClient>(label, endpoint, curve, probeDevices);
    AgentClient* a = agent.get();
    a->setManualAcks(m_manualAcks);
    // (Less the agents' own patience: they count the orphan time from our last ping.)
    a->setSilenceTimeout(m_topology.training.agentTimeoutS);
    a->setStallTolerance(qint64(m_topology.training.orphanTimeoutS - m_topology.training.agentTimeoutS) * 1000);
    if (resumeAfter >= 0) {
        a->resumeAfter(resumeAfter);
    } else {  // (an agent started again replaces its predecessor)
        m_roster.agents.removeIf([&](const AgentRoster::Agent& known) { return known.host == host; });
        m_roster.agents << AgentRoster::Agent{host, label, endpoint, curve.serverPublicKey};
    }
    connect(a, &AgentClient::resumedAfterStall, this, [this, label](qint64 ms) {
        Q_EMIT notice(QStringLiteral("controller"), QStringLiteral("this controller did not run for %1 s; the agent on %2 kept "
                                                                   "the run going and sends what it missed")
                                                        .arg(double(ms) / 1000.0, 0, 'f', 1)
                                                        .arg(label));
    });
    connect(a, &AgentClient::ready, this,
            [this, host, label, resumeAfter](const QCborMap& hello) { onReady(host, label, resumeAfter, hello); });
    connect(a, &AgentClient::stalled, this, [this, host](qint64) {
        m_gone.insert(host);
        Q_EMIT failed(controllerSilentReason());
        if (m_local || m_gone.size() == qsizetype(m_agents.size())) Q_EMIT gone(false);
    });
    connect(a, &AgentClient::event, this, [this, a](const QCborMap& e, qint64 seq) { Q_EMIT event(a, e, seq); });
    connect(a, &AgentClient::bye, this, [this, host, label] {
        m_gone.insert(host);
        if (const Party* p = slurmPartyOf(m_topology, host); p && !m_shutdownSent)
            return onSlurmPartyLost(p->id, QStringLiteral("its agent on %1 exited").arg(label));
        if (!m_shutdownSent)  // nobody asked it to go: a signal, or `hips stop` from elsewhere
            Q_EMIT failed(QStringLiteral("the agent on %1 exited before the run ended (stopped by a signal or by hips stop)").arg(label));
        if (endsWithLastAgent() && m_gone.size() == qsizetype(m_agents.size())) Q_EMIT gone(false);
    });
    connect(a, &AgentClient::lost, this,
            [this, host, attached = resumeAfter >= 0](const QString& reason) { onLost(host, reason, attached); });
    m_agents[host] = std::move(agent);
}

void AgentFleet::onReady(const QString& host, const QString& label, qint64 resumeAfter, const QCborMap& hello) {
    // Attached: an agent whose numbering is behind the history's mark started again (its run
    // ended without a controller, or it is another agent on that endpoint): it holds none of it.
    if (resumeAfter >= 0 && hello.value(QStringLiteral("next_seq")).toInteger() - 1 < resumeAfter) {
        Q_EMIT failed(QStringLiteral("the agent on %1 no longer holds this run (it stops a run left without a controller "
                                     "for orphan_timeout_s, %2 s, and waits for the next)")
                          .arg(label)
                          .arg(m_topology.training.orphanTimeoutS));
        Q_EMIT gone(false);
        return;
    }
    const QString problems = deviceProblems(m_topology, host, label, hello.value(QStringLiteral("devices")).toMap());
    if (!problems.isEmpty()) return Q_EMIT failed(problems);
    m_ready.insert(host);
    if (m_allReady) {  // one started again (a Slurm party's: its job, submitted again), whether or not others are back yet
        if (m_savesRoster && !isSlurmHost(host)) saveRoster();
        return Q_EMIT agentBack(host);
    }
    if (m_ready.size() < qsizetype(m_agents.size()) || !m_slurmWaiting.isEmpty()) return;
    if (m_savesRoster) saveRoster();
    m_allReady = true;
    Q_EMIT ready();
}

void AgentFleet::retireAgent(const QString& host) {
    auto it = m_agents.find(host);
    if (it == m_agents.end()) return;
    it->second->close();  // (what it had delivered still comes: its events are real)
    m_retired.push_back(std::move(it->second));
    m_agents.erase(it);
    m_ready.remove(host);
    m_gone.remove(host);
}

void AgentFleet::onLost(const QString& host, const QString& reason, bool attached) {
    m_gone.insert(host);
    if (attached && !m_ready.contains(host)) {
        Q_EMIT failed(reason + QStringLiteral("; the run's agent is gone: it stops a run left without a controller for "
                                              "orphan_timeout_s (%1 s), or it was killed, or its host is down")
                                   .arg(m_topology.training.orphanTimeoutS));
        Q_EMIT gone(false);
        return;
    }
    if (const Party* p = slurmPartyOf(m_topology, host); p && !m_shutdownSent) return onSlurmPartyLost(p->id, reason);
    if (!m_shutdownSent && restartLostAgent(host, reason)) return;
    const Host* h = m_topology.host(host);
    Q_EMIT failed(h && !m_local ? reason + QStringLiteral("; the agent may have crashed: see %1/agent.log on that host, then "
                                                          "run again (it redeploys)")
                                               .arg(h->installDir)
                                : reason);
    // A silent agent cannot report its roles' exits; it stops them itself.
    if (m_local || m_gone.size() == qsizetype(m_agents.size())) Q_EMIT gone(false);
}

bool AgentFleet::mayRestartAgentAfter(int done) const {
    return !m_shutdownSent && m_mayRestartAgent && m_mayRestartAgent() &&
           done < int(m_topology.training.param(QStringLiteral("max_restarts")));
}

void AgentFleet::forgetAgent(const QString& host) {
    m_roster.agents.removeIf([&](const AgentRoster::Agent& known) { return known.host == host; });
    if (m_savesRoster) saveRoster();
}

// Without agents.json a run cannot be taken up again: failing to write it is said, not fatal.
void AgentFleet::saveRoster() {
    m_roster.controller = m_keys.controller;
    if (const QString e = m_roster.save(m_runDir); !e.isEmpty())
        Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stderr"),
                       e + QStringLiteral(" (hips attach will not reach this run's agents)"));
}

void AgentFleet::failUnlessReadyIn(int ms) {
    QTimer::singleShot(ms, this, [this, ms] {
        if (m_allReady || m_shutdownSent) return;
        if (!m_slurmWaiting.isEmpty()) return failUnlessReadyIn(ms);  // (a job in the queue has its own patience)
        if (const QString busy = busyHosts(); !busy.isEmpty())
            return Q_EMIT failed(
                QStringLiteral("the deployment was still running after %1 s: %2; check those hosts' links").arg(ms / 1000).arg(busy));
        Q_EMIT failed(QStringLiteral("the agents did not complete their handshake in time (ready: %1 of %2)")
                          .arg(m_ready.size())
                          .arg(m_agents.size()));
    });
}

void AgentFleet::send(const Node& node, Message message) {
    auto it = m_agents.find(m_local && !isSlurmHost(node.host) ? QString() : node.host);
    if (it != m_agents.end()) it->second->send(std::move(message));
}

void AgentFleet::broadcast(const QString& kind) {
    for (const auto& [host, agent] : m_agents) agent->send(Message(kind));
}

// (A Slurm party's agents end their job as they exit; whatever is left of it is cancelled.)
void AgentFleet::sendShutdown() {
    broadcast(QStringLiteral("shutdown"));
    QTimer::singleShot(kStopGraceMs, this, [this] {
        for (const auto& [party, job] : m_slurmJobs) job->cancel();
    });
}

// Agents not our child say "bye" as they go (→ gone); silence ends the wait.
void AgentFleet::sayGoodbye() {
    if (m_agents.empty()) return Q_EMIT gone(false);
    sendShutdown();
    QTimer::singleShot(kStopGraceMs, this, [this] { Q_EMIT gone(false); });
}

QString AgentFleet::outDirFor(const Node& node) const {
    if (const Party* p = slurmPartyOf(m_topology, node.host)) return m_slurmRunsDirs.value(p->id);
    if (m_local) return m_runDir;
    const Host* h = m_topology.host(node.host);
    return (h ? h->installDir : QStringLiteral("~/.hips")) + QStringLiteral("/runs/") + QFileInfo(m_runDir).fileName();
}

QString AgentFleet::controllerSilentReason() const {
    return QStringLiteral(
               "this controller did not run for over %1 s (stopped with SIGSTOP or Ctrl-Z, suspended, or "
               "starved of CPU), so its agents presumed it dead and stopped the run")
        .arg(m_topology.training.agentTimeoutS);
}

QString AgentFleet::silentAgentsPrefix() const {
    QStringList silent;
    for (const auto& [host, agent] : m_agents)
        if (!m_gone.contains(host) && agent->silentForMs() > 3 * control::kPingMs)
            silent << QStringLiteral("%1 (silent for %2 s)").arg(agent->host()).arg(agent->silentForMs() / 1000);
    if (silent.isEmpty()) return {};
    return QStringLiteral("the agent on %1 stopped answering (host down or agent killed?); then: ").arg(silent.join(", "));
}

// Closed at once: a socket thread still receiving (an agent's resent events after this process
// was stopped) must not post into an application that is about to quit. Deleted later: we may be
// inside one of their signals.
void AgentFleet::close() {
    for (auto& [host, agent] : m_agents) {
        agent->close();
        agent.release()->deleteLater();
    }
    m_agents.clear();
    for (auto& agent : m_retired) agent.release()->deleteLater();
    m_retired.clear();
}

// ---- Slurm parties -----------------------------------------------------------------------------

void AgentFleet::startSlurmParties() {
    m_loginOptions.controllerPublicKey = m_keys.controller.publicKey;
    for (const Party& p : m_topology.parties)
        if (p.slurm) submitSlurmJob(p.id);
}

void AgentFleet::submitSlurmJob(const QString& party) {
    const Party* p = m_topology.party(party);
    const int attempt = ++m_slurmAttempts[party];
    m_slurmWaiting.insert(party);
    auto job = std::make_unique<SlurmJob>(m_topology, *p, RunDirectory::safeName(QFileInfo(m_runDir).fileName()), attempt, m_loginOptions);
    SlurmJob* j = job.get();
    const QStringList hosts = partyHosts(*p);
    connect(j, &SlurmJob::progress, this, [this, hosts, party](const QString& stage) {
        for (const QString& h : hosts) Q_EMIT deployProgress(h, stage);
        Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stdout"), QStringLiteral("party %1: %2").arg(party, stage));
    });
    connect(j, &SlurmJob::submitted, this, [this, party, attempt](const QString& id) { Q_EMIT slurmJobSubmitted(party, id, attempt); });
    connect(j, &SlurmJob::allocated, this, [this, j](const QList<SlurmNode>& nodes) { onSlurmAllocated(j, nodes); });
    connect(j, &SlurmJob::failed, this, &AgentFleet::failed);
    connect(j, &SlurmJob::ended, this, [this, party](const QString& reason) { onSlurmPartyLost(party, reason); });
    if (auto old = m_slurmJobs.find(party); old != m_slurmJobs.end()) {
        old->second->disconnect(this);
        old->second->cancel();
        old->second.release()->deleteLater();  // (we may be inside its signal)
    }
    m_slurmJobs[party] = std::move(job);
    j->start();
}

// The job's agents are up: each takes the place of one of the party's hosts, at its node's address.
void AgentFleet::onSlurmAllocated(SlurmJob* job, const QList<SlurmNode>& nodes) {
    if (m_shutdownSent) return;
    m_slurmWaiting.remove(job->partyId());
    m_slurmRunsDirs.insert(job->partyId(), job->runsDir());
    QMap<QString, QString> addresses;
    for (const SlurmNode& n : nodes) {
        for (Host& h : m_topology.hosts)
            if (h.id == n.host) h.address = n.address;
        addresses.insert(n.host, n.address);
    }
    Q_EMIT hostsPlaced(addresses);
    for (const SlurmNode& n : nodes) {
        m_keys.agents.insert(n.host, n.agentPublicKey);
        Q_EMIT hostDeployed(n.host, true, {}, 0);
        const QString label = QStringLiteral("%1 (node %2 of Slurm job %3)").arg(n.host, n.name, job->jobId());
        addAgent(n.host, label, n.endpoint, m_keys.clientFor(n.host), asksForGpu(m_topology, n.host));
    }
}

// fault_policy continue: the party's job is submitted again, and its roles start again on the new
// allocation as if each alone had been restarted. Else the run stops, naming the job's end.
void AgentFleet::onSlurmPartyLost(const QString& party, const QString& reason) {
    if (m_shutdownSent || m_slurmWaiting.contains(party)) return;  // (its agents' exits follow the job's end)
    const int done = m_slurmAttempts.value(party) - 1;
    if (!mayRestartAgentAfter(done)) {
        return Q_EMIT failed(reason + QStringLiteral("; its party's roles ended with it (with fault_policy continue, the job is "
                                                     "submitted again and they rejoin)"));
    }
    m_slurmWaiting.insert(party);
    QString jobId;
    if (auto it = m_slurmJobs.find(party); it != m_slurmJobs.end()) {
        jobId = it->second->jobId();
        it->second->cancel();
    }
    const int maxRestarts = int(m_topology.training.param(QStringLiteral("max_restarts")));
    const int delayMs = restartDelayMs(done + 1);
    for (const QString& host : partyHosts(*m_topology.party(party))) {
        retireAgent(host);
        Q_EMIT agentRestarting(host, QStringLiteral("ended with party %1's Slurm job %2 (%3)").arg(party, jobId, reason), done + 1,
                               maxRestarts, delayMs);
    }
    QTimer::singleShot(delayMs, this, [this, party] {
        if (!m_shutdownSent) submitSlurmJob(party);
    });
}

// ---- AttachedFleet ----------------------------------------------------------------------------

AttachedFleet::AttachedFleet(const Topology& topology, const QString& runDir, const AgentRoster& roster,
                             const QHash<QString, qint64>& marks)
    : AgentFleet(topology, runDir, /*manualAcks=*/true), m_marks(marks) {
    m_roster = roster;
    m_keys.controller = roster.controller;
    m_local = roster.local();
    m_savesRoster = false;  // it is where we found them
}

void AttachedFleet::start() {
    for (const AgentRoster::Agent& a : m_roster.agents) {
        try {
            addAgent(a.host, a.label, a.endpoint, CurveConfig{m_roster.controller, a.publicKey}, false, m_marks.value(a.label));
        } catch (const std::exception& e) {  // an endpoint or key ZeroMQ refuses
            Q_EMIT failed(QStringLiteral("cannot reach the agent on %1 at %2 (%3): %4 is damaged")
                              .arg(a.label, a.endpoint, QString::fromLocal8Bit(e.what()), AgentRoster::pathIn(m_runDir)));
            QMetaObject::invokeMethod(
                this, [this] { Q_EMIT gone(false); }, Qt::QueuedConnection);
            return;
        }
    }
}

void AttachedFleet::shutdown() {
    if (!std::exchange(m_shutdownSent, true)) sayGoodbye();
}

}  // namespace hips
