// Remote hosts: hips-agent deployed over SSH to each, in parallel, then a handshake with each.
#include "AgentFleet.h"

#include "ControlProtocol.h"
#include "DeviceCheck.h"
#include "FaultPolicy.h"
#include "RunDirectory.h"
#include "RunFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>

namespace hips {

static constexpr int kAgentStartTimeoutMs = 30000;
static constexpr int kDeployTimeoutMs = 120000;  // uploads of ~100 MB over slow links

RemoteFleet::RemoteFleet(const Topology& topology, const QString& runDir, bool manualAcks, const DeployOptions& options)
    : AgentFleet(topology, runDir, manualAcks), m_options(options) {}

RemoteFleet::~RemoteFleet() {
    m_fetchCancelled = true;
    if (m_fetch.joinable()) m_fetch.join();
    if (m_deployer) m_deployer->disconnect(this);
    for (const auto& d : m_redeployers) d->disconnect(this);
}

void RemoteFleet::watch(Deployer* deployer) {
    connect(deployer, &Deployer::progress, this, [this](const QString& host, const QString& stage) {
        m_deployStage[host] = stage;
        Q_EMIT deployProgress(host, stage);
        Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stdout"), QStringLiteral("%1: %2").arg(host, stage));
    });
    connect(deployer, &Deployer::hostFinished, this, [this](const HostDeployment& r) {
        m_deployStage.remove(r.host);
        // Its key kept at once, not when every host is done: a run stopped before then (or this
        // process gone) left an agent that hips stop could not reach.
        if (r.ok) {
            m_keys.agents.insert(r.host, r.agentPublicKey);
            saveKeys();
        }
        Q_EMIT hostDeployed(r.host, r.ok, r.error, r.seconds);
    });
}

void RemoteFleet::start() {
    m_deployer = std::make_unique<Deployer>();
    watch(m_deployer.get());
    connect(m_deployer.get(), &Deployer::finished, this, &RemoteFleet::onDeployed);
    // Keys for this deployment: the controller's (each agent admits only it); the agents get
    // theirs over SSH, and the roles theirs in their start commands.
    m_keys = DeploymentKeys::generate();
    m_options.controllerPublicKey = m_keys.controller.publicKey;
    if (m_options.binDir.isEmpty()) m_options.binDir = QFileInfo(LocalAgentLauncher::agentPath()).absolutePath();
    if (m_topology.training.torchScript()) {  // uploaded with the agent, checked by its SHA-256 on each host
        m_options.modelFile = m_topology.training.modelFile;
        m_options.modelSha256 = m_topology.training.modelSha256;
    }
    m_deployer->start(m_topology, m_options);
    startSlurmParties();
    failUnlessReadyIn(kAgentStartTimeoutMs + kDeployTimeoutMs + control::kDeviceProbeTimeoutMs);  // (a GPU host's probe)
}

void RemoteFleet::onDeployed(const QList<HostDeployment>& results) {
    QStringList errors;
    for (const HostDeployment& r : results) {
        if (!r.ok) {
            errors << r.error;
            continue;
        }
        m_keys.agents.insert(r.host, r.agentPublicKey);
        m_agentUp[r.host].start();
        addAgent(r.host, r.host, r.agentEndpoint, m_keys.clientFor(r.host),
                 asksForGpu(m_topology, r.host));  // on a failure elsewhere, to be shut down
    }
    saveKeys();
    if (m_shutdownSent) {  // stopped while deploying: the agents just started go at once
        m_shutdownSent = false;
        shutdown();
        return;
    }
    if (!errors.isEmpty()) Q_EMIT failed(errors.join(QStringLiteral("; ")));
}

void RemoteFleet::saveKeys() {
    if (const QString e = m_keys.save(DeploymentKeys::pathFor(m_topology)); !e.isEmpty())
        Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stderr"),
                       e + QStringLiteral(" (hips stop will not reach these agents)"));
}

// fault_policy continue: an agent that went silent (killed, or its host or link down) is deployed
// again after a backoff, which replaces it if it still runs (with its roles); then its roles start
// again, each as if it alone had been restarted.
bool RemoteFleet::restartLostAgent(const QString& host, const QString& reason) {
    int& inARow = m_agentRestartsInARow[host];
    inARow = restartsInARow(inARow, m_agentUp[host].isValid() ? m_agentUp[host].elapsed() : 0);
    if (!m_topology.host(host) || !mayRestartAgentAfter(inARow)) return false;
    const int attempt = ++inARow;
    ++m_agentRestarts[host];
    const int delayMs = restartDelayMs(attempt);
    retireAgent(host);
    Q_EMIT agentRestarting(host, QStringLiteral("stopped answering (%1)").arg(reason), attempt,
                           int(m_topology.training.param(QStringLiteral("max_restarts"))), delayMs);
    redeployAfter(host, delayMs);
    return true;
}

void RemoteFleet::redeployAfter(const QString& host, int delayMs) {
    QTimer::singleShot(delayMs, this, [this, host] {
        if (!m_shutdownSent && !m_givenUp.contains(host)) redeploy(host);
    });
}

void RemoteFleet::redeploy(const QString& host) {
    m_redeployers.push_back(std::make_unique<Deployer>());
    Deployer* deployer = m_redeployers.back().get();
    watch(deployer);
    connect(deployer, &Deployer::finished, this,
            [this, host](const QList<HostDeployment>& results) { onRedeployed(host, results.value(0)); });
    deployer->start(m_topology, m_options, host);
}

// A host that cannot be reached yet is tried again while restarts are left.
void RemoteFleet::onRedeployed(const QString& host, const HostDeployment& r) {
    if (!r.ok && m_shutdownSent) {  // (the run is being stopped: nothing to start)
        // The stop waited for this deployment: the other agents go now, with the run's files.
        // (Until 2026-12-02 a cancelled redeployment left them running, the files on the hosts.)
        if (!deploying()) {
            m_shutdownSent = false;
            shutdown();
        }
        return;
    }
    if (!r.ok) {
        Q_EMIT hostLost(host, r.error);  // (its roles may move to a standby host, and the host be given up)
        if (m_givenUp.contains(host)) return;
        if (!mayRestartAgentAfter(m_agentRestartsInARow.value(host)))
            return Q_EMIT failed(QStringLiteral("the agent on %1 could not be started again: %2").arg(host, r.error));
        ++m_agentRestarts[host];
        const int delayMs = restartDelayMs(++m_agentRestartsInARow[host]);
        Q_EMIT notice(QStringLiteral("controller"), QStringLiteral("the agent on %1 could not be started again (%2); trying again in %3 s")
                                                        .arg(host, r.error)
                                                        .arg(double(delayMs) / 1000.0));
        return redeployAfter(host, delayMs);
    }
    m_keys.agents.insert(host, r.agentPublicKey);
    saveKeys();
    m_agentUp[host].start();
    // (Each agent's events are numbered from 1, and the history keeps a mark per label.)
    addAgent(host, QStringLiteral("%1 (agent %2)").arg(host).arg(m_agentRestarts.value(host) + 1), r.agentEndpoint, m_keys.clientFor(host),
             asksForGpu(m_topology, host));
    if (m_shutdownSent) {  // stopped meanwhile: it goes at once, with the others
        m_shutdownSent = false;
        shutdown();
    }
}

void RemoteFleet::giveUpHost(const QString& host) {
    if (m_givenUp.contains(host)) return;
    m_givenUp.insert(host);
    forgetAgent(host);
    Q_EMIT notice(QStringLiteral("controller"), QStringLiteral("%1 is not tried again: none of the run's roles is left on it").arg(host));
}

bool RemoteFleet::deploying() const {
    if (m_deployer && !m_deployer->isDone()) return true;
    return std::any_of(m_redeployers.begin(), m_redeployers.end(), [](const auto& d) { return !d->isDone(); });
}

void RemoteFleet::shutdown() {
    if (std::exchange(m_shutdownSent, true)) return;
    if (deploying()) {
        // Hosts still deploying give up at their next step, and the agents of those done are shut
        // down as soon as the deployment ends (see onDeployed); finishing now would leave them
        // running, and the deployment's threads would be joined later on this thread.
        if (m_deployer) m_deployer->cancel();
        for (const auto& d : m_redeployers) d->cancel();
        // (Once the deployment ended, the shutdown goes on from there, copying the run's files
        // first: only a deployment that does not end within the grace is given up on.)
        QTimer::singleShot(2 * kStopGraceMs, this, [this] {
            if (deploying()) Q_EMIT gone(false);
        });
        return;
    }
    fetchRunFilesThenGo();
}

// What the run left on the hosts it deployed to over SSH: the master's trained model and weights
// (into the run directory), and each host's role logs (into logs/<host>/). A Slurm party's logs
// stay in its install directory on the cluster (its nodes are not reached over SSH).
QList<RemoteFleet::RunFileCopy> RemoteFleet::runFileCopies() const {
    QList<RunFileCopy> copies;
    if (m_runDir.isEmpty()) return copies;
    QMap<QString, QStringList> logsByHost;
    QMap<QString, QString> dirByHost;
    for (const Node& n : m_topology.nodes()) {
        const Host* host = m_topology.host(n.host);
        if (!host || !m_keys.agents.contains(host->id) || isSlurmHost(host->id) || m_givenUp.contains(host->id))
            continue;  // never deployed there, or lost
        if (n.kind == RoleKind::MasterWorker)
            copies.append({*host, outDirFor(n), runFilesToFetch(), m_runDir, QStringLiteral("the run's model")});
        const QString log = RunDirectory::logFileName(n.id);
        logsByHost[host->id] << log << log + QStringLiteral(".1");
        dirByHost[host->id] = outDirFor(n) + QStringLiteral("/logs");
    }
    for (auto it = logsByHost.begin(); it != logsByHost.end(); ++it)
        copies.append({*m_topology.host(it.key()), dirByHost.value(it.key()), it.value(),
                       QDir(m_runDir).filePath(QStringLiteral("logs/") + it.key()), QStringLiteral("its role logs")});
    return copies;
}

// The run's directory is the controller's: what the run left on the hosts is copied into it
// before the agents go. A copy that fails is said, not fatal: the files stay on their host.
void RemoteFleet::fetchRunFilesThenGo() {
    const QList<RunFileCopy> copies = runFileCopies();
    if (copies.isEmpty()) return sayGoodbye();
    Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stdout"),
                   QStringLiteral("copying the run's model and the hosts' role logs into %1").arg(m_runDir));
    m_fetch = std::thread([this, copies] {
        QStringList errors;
        for (const RunFileCopy& c : copies) {
            if (m_fetchCancelled) break;
            if (const QString e = fetchRunFiles(c.host, m_options, c.remoteDir, c.names, c.localDir, &m_fetchCancelled); !e.isEmpty())
                errors << QStringLiteral("%1: %2 stay in %3 there: %4").arg(c.host.id, c.what, c.remoteDir, e);
        }
        QMetaObject::invokeMethod(
            this,
            [this, errors] {
                for (const QString& e : errors) Q_EMIT logLine(QStringLiteral("controller"), QStringLiteral("stderr"), e);
                sayGoodbye();
            },
            Qt::QueuedConnection);
    });
}

QString RemoteFleet::busyHosts() const {
    if (!deploying()) return {};
    QStringList busy;
    for (auto it = m_deployStage.begin(); it != m_deployStage.end(); ++it) busy << it.key() + " (" + it.value() + ')';
    return busy.join(", ");
}

}  // namespace hips
