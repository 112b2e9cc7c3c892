#pragma once
// Starts, stops and watches the role processes of this host: hips-agent or hips-trainer in
// "role" mode. Its stdout lines are metrics ("@metric {...}") or log text;
// stderr is log text. Roles die with the agent (PR_SET_PDEATHSIG), so none is left behind.
#include <QHash>
#include <QObject>
#include <QProcess>

namespace hips {

struct RoleExitInfo {
    int exitCode = 0;
    bool crashed = false;  // killed by a signal (exitCode then holds the signal number where known)
    QString error;         // failed to start, or the last stderr line
};

class RoleSupervisor : public QObject {
    Q_OBJECT
public:
    explicit RoleSupervisor(QObject* parent = nullptr) : QObject(parent) {}
    ~RoleSupervisor() override;

    // Starts role `node` of the topology file with `program` (hips-agent or hips-trainer).
    // The role encrypts and authenticates every connection with its own CURVE key pair
    // (`nodeKey`, "public secret" in Z85) and knows the other nodes by the public keys in the
    // file `peerKeysPath`; it gets both through its environment, which no other user can read.
    bool start(const QString& node, const QString& program, const QString& topologyPath, const QString& outDir,
               int threads, const QByteArray& nodeKey, const QString& peerKeysPath);
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
        QProcess* process = nullptr;
        QByteArray stdoutBuffer, stderrBuffer;
        bool stdoutSkipping = false, stderrSkipping = false;  // inside a line too long to keep
        QString lastError;
    };
    void drain(const QString& node, bool errStream);
    void emitLine(const QString& node, bool errStream, const QByteArray& line);

    QHash<QString, Role> m_roles;
};

}  // namespace hips
