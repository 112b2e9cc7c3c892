#pragma once
// Starts, stops and watches the role processes of this host: hips-agent or hips-trainer in
// "role" mode. Its stdout lines are metrics ("@metric {...}") or log text;
// stderr is log text. Roles die with the agent (PR_SET_PDEATHSIG), so none is left behind.
//
// Trainers (workers, master) are forked by the trainer zygote (ZygoteClient) rather than
// started afresh, so that LibTorch is loaded once per host; their output comes through pipes
// the agent made and their exit through the zygote. Workers of a host with many run as threads
// of one shared trainer per run directory, which the agent talks to in the same way, and which
// leaves when its last worker has. Everything else is a QProcess.
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QProcess>

class QSocketNotifier;

namespace hips {

class ZygoteClient;

struct RoleExitInfo {
    int exitCode = 0;
    bool crashed = false;  // killed by a signal (exitCode then holds the signal number where known)
    QString error;  // failed to start, or the last stderr line
};

struct RoleLaunch {
    QString node, program, topologyPath, outDir;
    int threads = 1;
    // The role encrypts and authenticates every connection with its own CURVE key pair
    // (`nodeKey`, "public secret" in Z85) and knows the other nodes by the public keys in the
    // file `peerKeysPath`. The key reaches a process of its own on stdin, and a trainer forked by
    // its zygote in an environment set after the fork: never where /proc/<pid>/environ shows it.
    QByteArray nodeKey;
    QString peerKeysPath;
    bool forkFromZygote = false;  // a trainer, forked by the zygote of `program`
    qint64 placement = 0;  // StartCommand::placement, handed over as HIPS_PLACEMENT
    // The SHA-256 (hex) of the topology and keys files as the agent wrote them from its start
    // command: the role reads the files and refuses them if they differ (someone changed them
    // since), so it runs what it was sent (HIPS_TOPOLOGY_SHA256, HIPS_PEER_KEYS_SHA256).
    QByteArray topologySha256, peerKeysSha256;
    // A worker run as a thread of the shared trainer of its run directory (SharedTrainer.h),
    // rather than forked (Topology::sharesTrainer).
    bool sharedTrainer = false;
};

class RoleSupervisor : public QObject {
    Q_OBJECT
public:
    explicit RoleSupervisor(QObject* parent = nullptr);
    ~RoleSupervisor() override;

    bool start(const RoleLaunch& launch);  // false if that node is running already
    bool running(const QString& node) const { return m_roles.value(node).active(); }
    void stop(const QString& node);
    void stopAll();  // SIGTERM now, SIGKILL after a grace period
    int runningCount() const;

Q_SIGNALS:
    void started(const QString& node, qint64 pid);
    void exited(const QString& node, const RoleExitInfo& info);
    void metricLine(const QString& node, const QByteArray& json);
    void logLine(const QString& node, const QString& stream, const QString& line);

private:
    struct Role {
        QProcess* process = nullptr;  // started afresh
        bool forked = false;  // or forked by the zygote (or a thread of a shared trainer), with its output on these pipes
        ZygoteClient* host = nullptr;  // which: the zygote or a shared trainer
        int pipes[2] = {-1, -1};
        QSocketNotifier* notifiers[2] = {nullptr, nullptr};
        quint64 generation = 0;  // tells a later run of the same node from this one
        QByteArray buffers[2];
        bool skipping[2] = {false, false};  // inside a line too long to keep
        QString lastError;
        bool active() const { return process || forked; }
    };
    void startProcess(const RoleLaunch& launch, const QProcessEnvironment& env);
    bool startForked(const RoleLaunch& launch, const QProcessEnvironment& env, QString* error);
    void forkedExited(const QString& node, const RoleExitInfo& info);
    QByteArray readAvailable(Role& r, int stream);
    void closePipe(Role& r, int stream);
    static constexpr int kReadsPerWake = 8, kReadsAtExit = 256;
    void drain(const QString& node, int stream, int reads = kReadsPerWake);
    void drainAtExit(const QString& node);
    void emitLine(const QString& node, int stream, const QByteArray& line);
    ZygoteClient* zygote(const QString& program);
    ZygoteClient* sharedTrainer(const QString& program, const QString& runDirectory);
    void listenTo(ZygoteClient* host);
    void leaveIfUnused(ZygoteClient* host);

    QHash<QString, Role> m_roles;
    ZygoteClient* m_zygote = nullptr;
    QHash<QString, ZygoteClient*> m_sharedTrainers;  // by run directory
    quint64 m_nextGeneration = 1;
};

}  // namespace hips
