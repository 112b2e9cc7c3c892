#pragma once
// One Slurm party's batch job (`launcher: slurm`): from its login host, puts hips-agent and
// hips-trainer in the shared install directory, writes one key pair per node and a batch script,
// submits it (sbatch --parsable), and watches it. The script starts one hips-agent per allocated
// node with srun; each says on which port it listens in its own log. Waiting in the queue is a
// state (`progress` says PENDING and Slurm's reason) until queue_patience_s; once the agents are
// up, `allocated` gives the controller the nodes, in the order of the party's hosts. A job that
// Slurm ends while the run goes on (scancel, time limit, preemption, a node's failure) is `ended`.
// Every command runs on a thread of its own; the signals come on the owner's thread.
#include "Deployer.h"
#include "Topology.h"

#include <QObject>
#include <atomic>
#include <mutex>
#include <thread>

namespace hips {

struct SlurmNode {
    QString host;  // the topology's host id it stands for
    QString name;  // Slurm's node name
    QString address;  // NodeAddr
    QString endpoint;  // where its agent listens
    QByteArray agentPublicKey;  // Z85
};

class SlurmJob : public QObject {
    Q_OBJECT
public:
    // `attempt` numbers the party's jobs in this run (1, then each resubmission).
    SlurmJob(const Topology& topology, const Party& party, const QString& runName, int attempt, const DeployOptions& options);
    ~SlurmJob() override;  // cancels the job if it is still queued or running

    void start();
    // scancel, on the job's thread; `ended` does not follow.
    void cancel();
    QString jobId() const;  // empty until submitted
    const QString& partyId() const { return m_party.id; }
    // Where the agents' roles write: INSTALL_DIR/runs/<run> on the shared file system.
    QString runsDir() const;

    // The lines of the batch script for these settings (tested on their own). Every value goes on
    // an #SBATCH line or into the srun line: a space, newline or '%' in one is refused (empty).
    static QString batchScript(const SlurmLauncher& slurm, const QString& installDir, const QString& jobDir, const QString& jobName);
    // "JobState=PENDING Reason=Resources ..." (scontrol show job -o) → its fields.
    static QMap<QString, QString> scontrolFields(const QByteArray& line);
    // "12" or "12;cluster" (sbatch --parsable), on the last line of what it printed: a login shell
    // may print something of its own before (a .bashrc's greeting). Empty where that is no job id.
    static QString submittedJobId(const QByteArray& out);

Q_SIGNALS:
    void progress(const QString& stage);  // "submitting", "job 12: PENDING (Resources)", ...
    void submitted(const QString& jobId);
    void allocated(const QList<SlurmNode>& nodes);
    void failed(const QString& reason);  // the job never got its agents up
    void ended(const QString& reason);  // it had, and Slurm ended it

private:
    void work();
    bool prepare(class LoginShell& shell, QString* error);
    bool submit(class LoginShell& shell, QString* error);
    void cancelByFolder(class LoginShell& shell);
    bool awaitAgents(class LoginShell& shell, QString* error);
    void watch(class LoginShell& shell);
    enum class Look { Seen, Hiccup, Lost };
    Look look(class LoginShell& shell, const QString& id, QMap<QString, QString>* job, int* misses, QString* why);
    bool pause(int ms);  // false once cancelled
    void say(const QString& stage);
    QString where() const;

    Topology m_topology;
    Party m_party;
    SlurmLauncher m_slurm;
    QString m_runName;
    int m_attempt;
    DeployOptions m_options;
    QString m_installDir, m_jobDir;  // absolute, on the login host
    QList<QByteArray> m_publicKeys;  // node i's agent
    mutable std::mutex m_mutex;
    QString m_jobId;
    std::atomic<bool> m_cancelled{false};
    std::thread m_thread;
};

}  // namespace hips
