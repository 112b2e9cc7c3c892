// Remote hosts: hips-agent deployed over SSH to each, in parallel, then a handshake with each.
#include "AgentFleet.h"

#include "DeviceCheck.h"

#include <QFileInfo>
#include <QTimer>

namespace hips {

static constexpr int kAgentStartTimeoutMs = 30000;
static constexpr int kDeployTimeoutMs = 120000;  // uploads of ~100 MB over slow links

RemoteFleet::RemoteFleet(const Topology& topology, const QString& runDir, bool manualAcks, const DeployOptions& options)
    : AgentFleet(topology, runDir, manualAcks), m_options(options) {}

RemoteFleet::~RemoteFleet() {
    if (m_deployer) m_deployer->disconnect(this);
}

void RemoteFleet::start() {
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
    connect(m_deployer.get(), &Deployer::finished, this, &RemoteFleet::onDeployed);
    // Keys for this deployment: the controller's (each agent admits only it); the agents get
    // theirs over SSH, and the roles theirs in their start commands.
    m_keys = DeploymentKeys::generate();
    DeployOptions options = m_options;
    options.controllerPublicKey = m_keys.controller.publicKey;
    if (options.binDir.isEmpty()) options.binDir = QFileInfo(LocalAgentLauncher::agentPath()).absolutePath();
    m_deployer->start(m_topology, options);
    failUnlessReadyIn(kAgentStartTimeoutMs + kDeployTimeoutMs);
}

void RemoteFleet::onDeployed(const QList<HostDeployment>& results) {
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
        shutdown();
        return;
    }
    if (!errors.isEmpty()) Q_EMIT failed(errors.join(QStringLiteral("; ")));
}

void RemoteFleet::shutdown() {
    if (std::exchange(m_shutdownSent, true)) return;
    if (m_deployer && !m_deployer->isDone()) {
        // Hosts still deploying: their agents are shut down as soon as the deployment ends (see
        // onDeployed); finishing now would leave them running, and the deployment's threads
        // would be joined later on this thread.
        QTimer::singleShot(2 * kStopGraceMs, this, [this] { Q_EMIT gone(false); });
        return;
    }
    sayGoodbye();
}

QString RemoteFleet::busyHosts() const {
    if (!m_deployer || m_deployer->isDone()) return {};
    QStringList busy;
    for (auto it = m_deployStage.begin(); it != m_deployStage.end(); ++it) busy << it.key() + " (" + it.value() + ')';
    return busy.join(", ");
}

}  // namespace hips
