#pragma once
// The agent's side of the trainer zygote (TrainerZygote.h): starts `hips-trainer zygote` on
// first use with a private socket pair on its descriptor 3, asks it to fork trainers, and passes
// on what it says about them. The zygote dies with the agent, and its trainers with it.
// The same for a shared trainer (SharedTrainer.h: one per run directory, whose trainers are
// threads), which speaks the same protocol; the zygote forks it, its socket on descriptor 3.
#include <QObject>
#include <QProcess>
#include <QStringList>

class QSocketNotifier;

namespace hips {

class ZygoteClient : public QObject {
    Q_OBJECT
public:
    explicit ZygoteClient(QString trainerProgram, QObject* parent = nullptr);
    // A shared trainer in `runDirectory`, forked by `zygote` when first asked for a role.
    ZygoteClient(ZygoteClient* zygote, QString runDirectory, QObject* parent = nullptr);
    ~ZygoteClient() override;

    // Asks for a trainer whose stdout and stderr are the given pipe ends (the zygote gets copies;
    // the caller keeps and closes its own) and whose environment is exactly `env`. The answer comes as spawned() or failed(); false if it
    // could not be asked.
    bool spawn(const QString& node, const QStringList& args, const QCborMap& env, const QString& cwd, int stdoutFd, int stderrFd,
               QString* error);
    void signal(const QString& node, int signal);

Q_SIGNALS:
    void spawned(const QString& node, qint64 pid);
    void failed(const QString& node, const QString& error);
    void exited(const QString& node, int code, int signal);
    void died(const QString& why);  // every trainer it had forked is gone with it

private:
    bool ensureStarted(QString* error);
    bool startShared(QString* error);
    void listen(int socket);
    void readReplies();
    void readAhead();
    void flushReadAhead();
    void handle(const QByteArray& reply);
    void lost();

    QString name() const;

    QString m_program;
    ZygoteClient* m_zygote = nullptr;  // a shared trainer's: what forks it
    QString m_runDirectory;  // a shared trainer's
    QProcess* m_process = nullptr;
    qint64 m_pid = 0;
    int m_socket = -1;
    QSocketNotifier* m_notifier = nullptr;
    QList<QByteArray> m_readAhead;  // replies read before a request (readAhead), handled from the event loop
    bool m_lostAhead = false;  // readAhead found the socket closed
};

}  // namespace hips
