// Every host is this machine: one local agent, started as a child process, runs every role.
// It admits only this controller's key, and its roles write only inside the runs directory.
#include "AgentFleet.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"

#include <QFileInfo>
#include <QTimer>

namespace hips {

static constexpr int kAgentStartTimeoutMs = 30000;

// A local agent whose exit Qt had not yet reported is reaped by ~LocalAgentLauncher: its
// "exited" must not reach a fleet (and a controller) already half gone.
LocalFleet::~LocalFleet() {
    if (m_launcher) m_launcher->disconnect(this);
}

void LocalFleet::start() {
    m_local = true;
    m_launcher = std::make_unique<LocalAgentLauncher>();
    connect(m_launcher.get(), &LocalAgentLauncher::failed, this, &AgentFleet::failed);
    connect(m_launcher.get(), &LocalAgentLauncher::exited, this, [this](const QString& how, int code) {
        if (!m_shutdownSent)
            Q_EMIT failed(code == control::kAgentExitControllerSilent
                              ? controllerSilentReason()
                              : QStringLiteral("the local agent %1 during the run; its roles ended with it").arg(how));
        Q_EMIT gone(/*rolesEnded=*/true);
    });
    m_keys = DeploymentKeys::generate();
    const CurveKeyPair agentKeys = CurveKeyPair::generate();
    m_keys.agents.insert(QString(), agentKeys.publicKey);
    connect(m_launcher.get(), &LocalAgentLauncher::ready, this, [this](const QString& endpoint) {
        addAgent(QString(), QStringLiteral("localhost"), endpoint, m_keys.clientFor(QString()), asksForGpu(m_topology, QString()));
    });
    m_launcher->start(agentKeys, m_keys.controller.publicKey, QFileInfo(m_runDir).path(),
                      /*outlivesController=*/m_topology.training.orphanTimeoutS > 0);
    failUnlessReadyIn(kAgentStartTimeoutMs);
}

// The agent stops its roles and exits on "shutdown" (its exit → gone); a SIGTERM follows only if
// it has not gone within the grace period.
void LocalFleet::shutdown() {
    if (std::exchange(m_shutdownSent, true)) return;
    if (!m_launcher || !m_launcher->running()) return Q_EMIT gone(false);
    sendShutdown();
    QTimer::singleShot(m_agents.empty() ? 0 : kStopGraceMs, this, [this] { m_launcher->terminate(); });
}

}  // namespace hips
