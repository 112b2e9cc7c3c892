#pragma once
// The agents a run's roles run on, as the run state machine (RunController) sees them: brought
// up, told to start and stop roles, heard from, and shut down. Three ways to have them:
//
//   LocalFleet     every host is this machine: one hips-agent, our child (LocalAgentLauncher)
//   RemoteFleet    hips-agent deployed over SSH to each host (Deployer), then a handshake each;
//                  one that goes silent is deployed again (fault_policy continue)
//   AttachedFleet  the agents of a run whose controller went away, reached through its
//                  directory's agents.json (hips attach)
//   SimulatedFleet no agent: one hips-trainer plays every role on a virtual clock (hips simulate)
//
// Beside the local or remote agents, a party with `launcher: slurm` gets its agents from a batch
// job (SlurmJob): one per allocated node, each standing for one of the party's hosts.
//
// Whatever the kind, the controller gets `ready` once every agent has answered, each event once,
// `failed` for whatever went wrong with an agent, and `gone` when none is left to hear from.
#include "AgentClient.h"
#include "AgentRoster.h"
#include "Deployer.h"
#include "DeploymentKeys.h"
#include "LocalAgentLauncher.h"
#include "PartyLauncher.h"
#include "SlurmJob.h"
#include "Topology.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QProcess>
#include <QSet>
#include <functional>
#include <map>
#include <memory>

namespace hips {

class AgentFleet : public QObject {
    Q_OBJECT
public:
    static constexpr int kStopGraceMs = 8000;  // what a role or an agent gets to go before it is made to

    // `runDir`: the run directory with links resolved (as agents compare paths). With
    // `manualAcks`, events are acknowledged only once the history holds them (RunRecorder).
    AgentFleet(const Topology& topology, const QString& runDir, bool manualAcks);
    ~AgentFleet() override;

    virtual void start() = 0;
    // Asks every agent to stop its roles and exit; `gone` follows (after a grace period at most).
    virtual void shutdown() = 0;
    bool shuttingDown() const { return m_shutdownSent; }

    bool empty() const { return m_agents.empty(); }
    void send(const Node& node, Message message);  // to the agent that runs `node`
    void broadcast(const QString& kind);  // a message with no fields to every agent
    // Where `node`'s files go on its host.
    QString outDirFor(const Node& node) const;
    // Whether `node`'s host keeps its own copy of the role's log (a host reached over SSH or a
    // Slurm node: the run directory here is not where it writes).
    bool keepsLogsOnHost(const Node& node) const { return outDirFor(node) != m_runDir; }
    // Where the roles run now (one moved to its standby host): where the run's files are fetched from.
    void followMoves(const Topology& topology) { m_topology.parties = topology.parties; }
    // Agents that stopped answering (and never said bye), to lead a failure's reason.
    QString silentAgentsPrefix() const;
    // This process did not run long enough for its agents to presume it dead.
    QString controllerSilentReason() const;
    // Stops talking to every agent (the run is over); safe inside one of their signals.
    void close();
    // Whether an agent that dies now is started again with its roles (fault_policy continue,
    // while the run is under way); asked when one dies: our own child agent is launched again,
    // one deployed over SSH deployed again. An attached run's agents are not.
    void setAgentRestarts(std::function<bool()> allowed) { m_mayRestartAgent = std::move(allowed); }
    // A lost host none of whose roles is left on it (they moved to standby hosts): no longer
    // tried again, nor waited for.
    virtual void giveUpHost(const QString& host) { Q_UNUSED(host) }
    // Whether an agent on `host` answers now.
    bool hasAgent(const QString& host) const { return m_agents.count(host) > 0; }
    // How a Slurm party's login host is reached (its known_hosts, prompts), as a deployment does.
    void setLoginOptions(const DeployOptions& options) { m_loginOptions = options; }

Q_SIGNALS:
    void ready();  // every agent answered its handshake and passed its checks
    void event(AgentClient* agent, const QCborMap& event, qint64 seq);
    void failed(const QString& reason);
    // No agent is left to hear from: the run is over. `rolesEnded`: they took their roles with them.
    void gone(bool rolesEnded);
    void notice(const QString& source, const QString& text);
    void logLine(const QString& node, const QString& stream, const QString& line);
    void deployProgress(const QString& host, const QString& stage);
    void hostDeployed(const QString& host, bool ok, const QString& error, double seconds);
    // The agent on `host` died (`how`) and took its roles with it; it is started again after
    // `delayMs` (restart `attempt` of `maxRestarts`), then agentBack: its roles are to start again.
    void agentRestarting(const QString& host, const QString& how, int attempt, int maxRestarts, int delayMs);
    void agentBack(const QString& host);
    // The agent on `host` could not be deployed again (`error`): the host is lost for now. Its
    // roles may move to a standby host meanwhile; it is tried again while restarts are left,
    // unless it was given up (giveUpHost).
    void hostLost(const QString& host, const QString& error);
    // A Slurm party's job was submitted (`attempt` 1, then again after Slurm ended it).
    void slurmJobSubmitted(const QString& party, const QString& jobId, int attempt);
    // A Slurm party's nodes took its hosts: their addresses (host id → address), for the roles.
    void hostsPlaced(const QMap<QString, QString>& addresses);

protected:
    // `resumeAfter` >= 0: the history holds this agent's events up to it (attached).
    void addAgent(const QString& host, const QString& label, const QString& endpoint, const CurveConfig& curve, bool probeDevices,
                  qint64 resumeAfter = -1);
    // Every agent said bye or was lost: remote agents are gone then; our child only when it exits.
    virtual bool endsWithLastAgent() const { return true; }
    void sendShutdown();
    void sayGoodbye();  // shutdown to agents that are not our child; `gone` when they are
    void failUnlessReadyIn(int ms);  // the agents' handshakes (and deployment) must end in time
    // An agent that died: no longer talked to, but kept until the fleet goes (the history may
    // still acknowledge through it what it had sent).
    void retireAgent(const QString& host);
    virtual QString busyHosts() const { return {}; }
    // The agent on `host` stopped answering (`reason`): whether it is being started again.
    // The agent on `host` is not part of the run any more (its host was given up): hips attach
    // does not look for it.
    void forgetAgent(const QString& host);
    virtual bool restartLostAgent(const QString& host, const QString& reason) {
        Q_UNUSED(host)
        Q_UNUSED(reason)
        return false;
    }
    // fault_policy continue, while the run is under way, and restarts left after `done` of them.
    bool mayRestartAgentAfter(int done) const;
    // The Slurm parties' batch jobs (SlurmJob), beside the fleet's own agents: `ready` waits for
    // their agents too. Called by start(), once the controller's keys are made.
    void startSlurmParties();
    bool isSlurmHost(const QString& host) const { return slurmPartyOf(m_topology, host) != nullptr; }

    Topology m_topology;
    QString m_runDir;
    bool m_manualAcks = false;
    bool m_local = false;  // one agent on this machine runs every role
    bool m_savesRoster = true;
    DeploymentKeys m_keys;  // the controller's and the agents' CURVE keys
    AgentRoster m_roster;  // how the agents are reached, for hips attach
    std::map<QString, std::unique_ptr<AgentClient>> m_agents;  // by host id ("" for the local agent)
    std::vector<std::unique_ptr<AgentClient>> m_retired;  // agents that died during the run
    QSet<QString> m_ready, m_gone;
    bool m_shutdownSent = false;
    std::function<bool()> m_mayRestartAgent;

private:
    void onReady(const QString& host, const QString& label, qint64 resumeAfter, const QCborMap& hello);
    void onLost(const QString& host, const QString& reason, bool attached);
    void saveRoster();
    void submitSlurmJob(const QString& party);
    void onSlurmAllocated(SlurmJob* job, const QList<SlurmNode>& nodes);
    // Slurm ended the party's job, or one of its agents went: the party's roles went with it.
    void onSlurmPartyLost(const QString& party, const QString& reason);
    bool m_allReady = false;
    DeployOptions m_loginOptions;
    std::map<QString, std::unique_ptr<SlurmJob>> m_slurmJobs;  // by party
    QHash<QString, int> m_slurmAttempts;  // by party
    QSet<QString> m_slurmWaiting;  // parties whose job's agents are not up yet
    QHash<QString, QString> m_slurmRunsDirs;  // by party: where its roles write
};

class LocalFleet : public AgentFleet {
    Q_OBJECT
public:
    using AgentFleet::AgentFleet;
    ~LocalFleet() override;
    void start() override;
    void shutdown() override;

protected:
    bool endsWithLastAgent() const override { return false; }

private:
    void launchAgent();
    void onAgentExited(const QString& how, int code);
    bool restartAgent(const QString& how);
    std::unique_ptr<LocalAgentLauncher> m_launcher;
    int m_agentRestarts = 0;  // in all (each agent's label)
    int m_agentRestartsInARow = 0;  // within a minute of the last start each (kSteadyRunMs): max_restarts bounds these
    QElapsedTimer m_agentUp;  // since the last launch
};

class RemoteFleet : public AgentFleet {
    Q_OBJECT
public:
    RemoteFleet(const Topology& topology, const QString& runDir, bool manualAcks, const DeployOptions& options);
    ~RemoteFleet() override;
    void start() override;
    void shutdown() override;

    void giveUpHost(const QString& host) override;

protected:
    QString busyHosts() const override;
    bool restartLostAgent(const QString& host, const QString& reason) override;

private:
    void watch(Deployer* deployer);
    void onDeployed(const QList<HostDeployment>& results);
    void redeployAfter(const QString& host, int delayMs);
    void redeploy(const QString& host);
    void onRedeployed(const QString& host, const HostDeployment& result);
    void saveKeys();
    bool deploying() const;
    // Files of the run on a host, copied into the run directory here as the run ends.
    struct RunFileCopy {
        Host host;
        QString remoteDir;
        QStringList names;
        QString localDir;
        QString what;  // "the run's model", "its role logs"
    };
    QList<RunFileCopy> runFileCopies() const;
    void fetchRunFilesThenGo();
    DeployOptions m_options;
    std::thread m_fetch;  // the master's model and the hosts' role logs, copied back as the run ends
    std::atomic<bool> m_fetchCancelled{false};
    std::unique_ptr<Deployer> m_deployer;
    std::vector<std::unique_ptr<Deployer>> m_redeployers;  // one per agent started again
    QMap<QString, QString> m_deployStage;  // hosts still deploying → their last stage
    QHash<QString, int> m_agentRestarts;  // by host, in all (each agent's label)
    QHash<QString, int> m_agentRestartsInARow;  // by host: max_restarts bounds these (kSteadyRunMs)
    QHash<QString, QElapsedTimer> m_agentUp;  // by host: since its agent was last deployed
    QSet<QString> m_givenUp;  // lost hosts with nothing left to run
};

class AttachedFleet : public AgentFleet {
    Q_OBJECT
public:
    // `marks`: each agent (by label) → its last event the history holds.
    AttachedFleet(const Topology& topology, const QString& runDir, const AgentRoster& roster, const QHash<QString, qint64>& marks);
    void start() override;
    void shutdown() override;

private:
    QHash<QString, qint64> m_marks;
};

// hips simulate: `hips-trainer simulate` runs every role of the run in one process on a virtual
// clock (Simulation.h). Its records come to the controller as the agents' would, each under the
// node it names, its other lines under the global server's, and its end as every node's.
class SimulatedFleet : public AgentFleet {
    Q_OBJECT
public:
    // `clockOrigin`: the run's start (unix seconds), where the virtual clock begins.
    SimulatedFleet(const Topology& topology, const QString& runDir, double clockOrigin);
    ~SimulatedFleet() override;
    void start() override;
    void shutdown() override;

private:
    void readLines(QProcess::ProcessChannel channel);
    void onLine(const QByteArray& line, bool error);
    void onFinished(int code, bool crashed);
    void tell(QCborMap event);
    QString loggingNode() const;

    QProcess m_process;
    double m_origin;
    qint64 m_seq = 0;
    QByteArray m_partial[2];  // stdout's and stderr's unfinished line
    QString m_lastError;  // the simulator's last line on stderr: why it failed
    bool m_finished = false, m_goneSent = false;
};

}  // namespace hips
