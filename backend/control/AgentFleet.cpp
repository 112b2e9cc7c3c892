#include "AgentFleet.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"

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
    a->setStallTolerance(qint64(m_topology.training.orphanTimeoutS - control::kSilenceTimeoutS) * 1000);
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
    if (m_ready.size() < qsizetype(m_agents.size())) return;
    if (m_savesRoster) saveRoster();
    if (std::exchange(m_allReady, true)) return Q_EMIT agentBack(host);  // one started again
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
        if (const QString busy = busyHosts(); !busy.isEmpty())
            return Q_EMIT failed(
                QStringLiteral("the deployment was still running after %1 s: %2; check those hosts' links").arg(ms / 1000).arg(busy));
        Q_EMIT failed(QStringLiteral("the agents did not complete their handshake in time (ready: %1 of %2)")
                          .arg(m_ready.size())
                          .arg(m_agents.size()));
    });
}

void AgentFleet::send(const Node& node, Message message) {
    auto it = m_agents.find(m_local ? QString() : node.host);
    if (it != m_agents.end()) it->second->send(std::move(message));
}

void AgentFleet::broadcast(const QString& kind) {
    for (const auto& [host, agent] : m_agents) agent->send(Message(kind));
}

void AgentFleet::sendShutdown() {
    broadcast(QStringLiteral("shutdown"));
}

// Agents not our child say "bye" as they go (→ gone); silence ends the wait.
void AgentFleet::sayGoodbye() {
    if (m_agents.empty()) return Q_EMIT gone(false);
    sendShutdown();
    QTimer::singleShot(kStopGraceMs, this, [this] { Q_EMIT gone(false); });
}

QString AgentFleet::outDirFor(const Node& node) const {
    if (m_local) return m_runDir;
    const Host* h = m_topology.host(node.host);
    return (h ? h->installDir : QStringLiteral("~/.hips")) + QStringLiteral("/runs/") + QFileInfo(m_runDir).fileName();
}

QString AgentFleet::controllerSilentReason() {
    return QStringLiteral(
               "this controller did not run for over %1 s (stopped with SIGSTOP or Ctrl-Z, suspended, or "
               "starved of CPU), so its agents presumed it dead and stopped the run")
        .arg(control::kSilenceTimeoutS);
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
