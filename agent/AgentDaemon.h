#pragma once
// The per-host daemon: takes commands from one controller, runs role processes through
// RoleSupervisor, and streams their events back with sequence numbers, keeping each until
// the controller acknowledges it (EventJournal). A controller silent for too long is presumed
// gone: its run goes on for the topology's orphan_timeout_s, so that a controller can attach
// again (hips attach) and get every event it missed; after that (or at once, with 0) the agent
// stops every role and exits, so nothing is left running.
#include "ControlProtocol.h"
#include "EventJournal.h"
#include "RoleLogFiles.h"
#include "RoleRestarts.h"
#include "RoleSupervisor.h"
#include "SocketThread.h"

#include <QCborMap>
#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QTimer>
#include <memory>
#include <optional>

namespace hips {

class AgentDaemon : public QObject {
    Q_OBJECT
public:
    // A standby agent (deployed over SSH) outlives its controllers: when one goes silent it
    // stops that run's roles and waits for the next; only "shutdown" ends it.
    // Only the holder of `controllerKey` gets in (CURVE, with the agent's own key pair in
    // `curve`), and roles write only below `runsRoot`.
    AgentDaemon(const QString& bindEndpoint, bool standby, const CurveConfig& curve, const QByteArray& controllerKey,
                const QString& runsRoot, QObject* parent = nullptr);
    ~AgentDaemon() override;

    QString endpoint() const { return m_endpoint; }
    // Stops all roles, then exits the event loop with `exitCode`.
    void shutdown(const QString& reason, int exitCode = 0);

private:
    void onMessage(const QString& peer, const Message& m);
    void onStart(const Message& m);
    void onRoleExited(const QString& node, const RoleExitInfo& info);
    void cancelRestarts();
    QString realOutDir(const QString& outDir, QString* error) const;
    QString writeOnce(const QString& path, const QByteArray& bytes);
    void sendEvent(const QString& kind, const QString& node, QCborMap fields);
    void resendUnacked();
    bool controllerListens() const;
    void checkController();
    void quitWhenIdle();
    void probeDevices();
    QString keepLogsOnHost(const QString& node, const QString& outDir);
    void logOnHost(const QString& node, const QString& line);

    zmq::context_t m_zmq{1};
    std::unique_ptr<CurveGuard> m_guard;
    QString m_endpoint;
    std::unique_ptr<SocketThread> m_socket;
    RoleSupervisor m_roles;
    RoleRestarts m_restarts;
    EventJournal m_journal;
    qint64 m_seen = 0;  // the controller has received every event up to this one
    qint64 m_sentBeforeLastResend = 0;  // the newest event at the last resend: those up to it are a period old
    int m_orphanTimeoutS = 0;  // the run's orphan_timeout_s, from its start commands
    int m_silenceS = control::kSilenceTimeoutS;  // the run's agent_timeout_s, likewise
    bool m_orphaned = false;  // its controller is silent, and the run goes on without it
    bool m_helloDone = false;
    bool m_shuttingDown = false;
    int m_exitCode = 0;
    bool m_standby = false;
    QElapsedTimer m_sinceController;
    QTimer m_resendTimer, m_watchdog;
    QString m_runsRoot;  // canonical
    // Trainers are forked from one zygote that has loaded LibTorch (RoleSupervisor.h), unless
    // HIPS_TRAINER_ZYGOTE=0 asks for a fresh process each (for comparing, or for debugging).
    bool m_trainerZygote = true;
    QHash<QString, QByteArray> m_written;  // files written for the runs' starts, by path
    // What this host's trainers can train on (`hips-trainer probe`), asked for once, by the first
    // controller whose topology puts a GPU here; the handshake waits for it.
    std::optional<QCborMap> m_devices;
    bool m_probing = false;
    // The logs this host keeps of the roles the controller asked it to (StartCommand::logOnHost),
    // by node: <run folder>/logs/<party>-<role>.log, as the controller's run directory has them.
    QHash<QString, RoleLogFiles> m_hostLogs;
};

}  // namespace hips
