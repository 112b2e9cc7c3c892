// Every host is this machine: one local agent, started as a child process, runs every role.
// It admits only this controller's key, and its roles write only inside the runs directory.
#include "AgentFleet.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"
#include "FaultPolicy.h"

#include <QFileInfo>
#include <QTimer>

namespace hips {

static constexpr int kAgentStartTimeoutMs = 30000;  // (and the device probe's, when one is asked for)

// A local agent whose exit Qt had not yet reported is reaped by ~LocalAgentLauncher: its
// "exited" must not reach a fleet (and a controller) already half gone.
LocalFleet::~LocalFleet() {
    if (m_launcher) m_launcher->disconnect(this);
}

void LocalFleet::start() {
    m_local = true;
    m_keys = DeploymentKeys::generate();
    launchAgent();
    startSlurmParties();
    failUnlessReadyIn(kAgentStartTimeoutMs + (asksForGpu(m_topology, QString()) ? control::kDeviceProbeTimeoutMs : 0));
}

// A new agent key each launch: a restarted agent is a new agent, which the controller knows by it.
void LocalFleet::launchAgent() {
    m_agentUp.start();
    m_launcher = std::make_unique<LocalAgentLauncher>();
    connect(m_launcher.get(), &LocalAgentLauncher::failed, this, &AgentFleet::failed);
    connect(m_launcher.get(), &LocalAgentLauncher::exited, this, &LocalFleet::onAgentExited);
    const CurveKeyPair agentKeys = CurveKeyPair::generate();
    m_keys.agents.insert(QString(), agentKeys.publicKey);
    // (Each agent's events are numbered from 1, and the history keeps a mark per label.)
    const QString label =
        m_agentRestarts == 0 ? QStringLiteral("localhost") : QStringLiteral("localhost (agent %1)").arg(m_agentRestarts + 1);
    connect(m_launcher.get(), &LocalAgentLauncher::ready, this, [this, label](const QString& endpoint) {
        addAgent(QString(), label, endpoint, m_keys.clientFor(QString()), asksForGpu(m_topology, QString()));
    });
    m_launcher->start(agentKeys, m_keys.controller.publicKey, QFileInfo(m_runDir).path(),
                      /*outlivesController=*/m_topology.training.orphanTimeoutS > 0);
}

void LocalFleet::onAgentExited(const QString& how, int code) {
    if (m_shutdownSent) return Q_EMIT gone(/*rolesEnded=*/true);
    if (code == control::kAgentExitControllerSilent) {
        Q_EMIT failed(controllerSilentReason());
        return Q_EMIT gone(true);
    }
    if (restartAgent(how)) return;
    Q_EMIT failed(QStringLiteral("the local agent %1 during the run; its roles ended with it").arg(how));
    Q_EMIT gone(true);
}

// fault_policy continue: the agent is started again like any role (max_restarts, backoff), and
// then its roles, each as if it alone had been restarted: they rejoin, and the global server goes
// on from its last recovery point.
bool LocalFleet::restartAgent(const QString& how) {
    m_agentRestartsInARow = restartsInARow(m_agentRestartsInARow, m_agentUp.elapsed());
    if (!mayRestartAgentAfter(m_agentRestartsInARow)) return false;
    const int maxRestarts = int(m_topology.training.param(QStringLiteral("max_restarts")));
    const int attempt = ++m_agentRestartsInARow;
    ++m_agentRestarts;
    const int delayMs = restartDelayMs(attempt);
    retireAgent(QString());
    m_launcher.release()->deleteLater();  // (we are inside its signal)
    Q_EMIT agentRestarting(QString(), how, attempt, maxRestarts, delayMs);
    QTimer::singleShot(delayMs, this, [this] {
        if (!m_shutdownSent) launchAgent();
    });
    return true;
}

// The agent stops its roles and exits on "shutdown" (its exit → gone); a SIGTERM follows only if
// it has not gone within the grace period.
void LocalFleet::shutdown() {
    if (std::exchange(m_shutdownSent, true)) return;
    if (!m_launcher) return Q_EMIT gone(/*rolesEnded=*/true);  // (the agent died, and waits for its restart)
    if (!m_launcher->running()) return Q_EMIT gone(false);
    sendShutdown();
    QTimer::singleShot(m_agents.empty() ? 0 : kStopGraceMs, this, [this] { m_launcher->terminate(); });
}

}  // namespace hips
