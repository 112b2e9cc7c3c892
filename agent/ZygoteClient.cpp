#include "ZygoteClient.h"

#include "PacketSocket.h"
#include "TrainerZygote.h"

#include <QCborMap>
#include <QCborValue>
#include <QSocketNotifier>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hips {

ZygoteClient::ZygoteClient(QString trainerProgram, QObject* parent) : QObject(parent), m_program(std::move(trainerProgram)) {}

ZygoteClient::ZygoteClient(ZygoteClient* zygote, QString runDirectory, QObject* parent)
    : QObject(parent), m_program(zygote->m_program), m_zygote(zygote), m_runDirectory(std::move(runDirectory)) {
    connect(m_zygote, &ZygoteClient::spawned, this, [this](const QString& node, qint64 pid) {
        if (node == name()) m_pid = pid;
    });
}

QString ZygoteClient::name() const {
    return m_zygote ? QStringLiteral("the shared trainer of %1").arg(m_runDirectory) : QStringLiteral("the trainer zygote");
}

// What the zygote's children start from: the agent's environment, less its keys; one BLAS thread
// (no thread may exist in the zygote when it forks: OpenBLAS starts its pool as it loads).
static QProcessEnvironment trainerEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("HIPS_AGENT_KEYS"));
    env.insert(QStringLiteral("OPENBLAS_NUM_THREADS"), QStringLiteral("1"));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    return env;
}

ZygoteClient::~ZygoteClient() {
    if (m_socket >= 0) ::close(m_socket);  // the zygote kills its trainers and leaves
    if (m_process) {
        m_process->disconnect(this);
        if (!m_process->waitForFinished(2000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

void ZygoteClient::listen(int socket) {
    m_socket = socket;
    m_readAhead.clear();
    m_lostAhead = false;
    m_notifier = new QSocketNotifier(m_socket, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &ZygoteClient::readReplies);
}

// Forked by the zygote, which has LibTorch loaded already (a process started afresh would load
// it again: 0.3 CPU-s), with its end of a new socket pair as its descriptor 3; its own output
// (not its roles') goes where the agent's does.
bool ZygoteClient::startShared(QString* error) {
    if (!m_zygote->ensureStarted(error)) return false;
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        *error = QStringLiteral("socketpair: ") + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    const QProcessEnvironment env = trainerEnvironment();
    QCborMap childEnv;
    for (const QString& key : env.keys()) childEnv.insert(key, env.value(key));
    const bool sent =
        sendPacket(m_zygote->m_socket, zygote::spawnRequest(name(), {m_program, QStringLiteral("shared")}, childEnv, m_runDirectory),
                   {STDERR_FILENO, STDERR_FILENO, pair[1]});
    ::close(pair[1]);
    if (!sent) {
        ::close(pair[0]);
        *error = QStringLiteral("cannot reach the trainer zygote: ") + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    listen(pair[0]);
    return true;
}

bool ZygoteClient::ensureStarted(QString* error) {
    if (m_socket >= 0) return true;
    if (m_zygote) return startShared(error);
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        *error = QStringLiteral("socketpair: ") + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    m_process = new QProcess(this);
    m_process->setProcessEnvironment(trainerEnvironment());  // (each trainer sets its own thread count)
    m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);  // its complaints go to the agent's log
    m_process->setStandardOutputFile(QProcess::nullDevice());
    const int childEnd = pair[1];
    m_process->setChildProcessModifier([childEnd, agent = ::getpid()] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != agent) ::_exit(127);  // (the agent went before the prctl: no signal would come)
        if (childEnd == 3) ::fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
        else ::dup2(childEnd, 3);
    });
    connect(m_process, &QProcess::started, this, [this] { m_pid = m_process->processId(); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) lost();
    });
    connect(m_process, &QProcess::finished, this, [this] { lost(); });
    listen(pair[0]);
    // The blank argument is room for each trainer's own command line (zygote::CommandLineRoom).
    m_process->start(m_program, {QStringLiteral("zygote"), QString(zygote::kCommandLineRoomBytes, QLatin1Char(' '))});
    ::close(childEnd);
    if (m_socket < 0) *error = QStringLiteral("%1 failed to start").arg(m_program);  // lost() said why
    return m_socket >= 0;
}

bool ZygoteClient::spawn(const QString& node, const QStringList& args, const QCborMap& env, const QString& cwd, int stdoutFd, int stderrFd,
                         QString* error) {
    if (!ensureStarted(error)) return false;
    const QByteArray request = zygote::spawnRequest(node, args, env, cwd);
    if (request.size() > kMaxPacketBytes) {  // (sendPacket's EMSGSIZE would read as an unreachable zygote)
        *error = QStringLiteral(
                     "the role's start request to %1 is %2 bytes, over the %3 a request may hold: its environment "
                     "(%4 variables) is too large; start the agent with a smaller one")
                     .arg(name())
                     .arg(request.size())
                     .arg(kMaxPacketBytes)
                     .arg(env.size());
        return false;
    }
    readAhead();
    if (sendPacket(m_socket, request, {stdoutFd, stderrFd})) return true;
    *error = QStringLiteral("cannot reach %1: %2").arg(name(), QString::fromLocal8Bit(std::strerror(errno)));
    return false;
}

void ZygoteClient::signal(const QString& node, int signal) {
    if (m_socket < 0) return;
    readAhead();
    sendPacket(m_socket, zygote::signalRequest(node, signal));
}

// Every reply waiting, read before a request is sent: the zygote (or shared trainer) sends its
// replies blocking, and reads no request while it waits. Hundreds of starts in one pass of the
// agent's event loop filled the socket with replies no one read, and each side then waited for
// the other for ever (the agent in its send). Handled from the event loop, not inside the request.
void ZygoteClient::readAhead() {
    const bool had = !m_readAhead.isEmpty() || m_lostAhead;
    for (;;) {
        QByteArray bytes;
        QList<int> fds;
        if (!receivePacket(m_socket, &bytes, &fds, MSG_DONTWAIT)) {
            m_lostAhead = m_lostAhead || errno != EAGAIN;  // (it has died, or is dying)
            break;
        }
        for (int fd : fds) ::close(fd);  // it never sends any
        m_readAhead.append(bytes);
    }
    if (!had && (!m_readAhead.isEmpty() || m_lostAhead))
        QMetaObject::invokeMethod(this, &ZygoteClient::flushReadAhead, Qt::QueuedConnection);
}

void ZygoteClient::flushReadAhead() {
    const QList<QByteArray> replies = std::exchange(m_readAhead, {});
    for (const QByteArray& reply : replies) handle(reply);
    if (std::exchange(m_lostAhead, false)) lost();
}

void ZygoteClient::readReplies() {
    flushReadAhead();  // (those read ahead came first)
    if (m_socket < 0) return;
    QByteArray bytes;
    QList<int> fds;
    if (!receivePacket(m_socket, &bytes, &fds, MSG_DONTWAIT)) {  // (a request's readAhead may have taken it)
        if (errno != EAGAIN) lost();  // it has died, or is dying
        return;
    }
    for (int fd : fds) ::close(fd);  // it never sends any
    handle(bytes);
}

void ZygoteClient::handle(const QByteArray& bytes) {
    const QCborMap m = QCborValue::fromCbor(bytes).toMap();
    const QString op = m.value(QStringLiteral("op")).toString();
    const QString node = m.value(QStringLiteral("node")).toString();
    if (op == QLatin1String("spawned")) Q_EMIT spawned(node, m.value(QStringLiteral("pid")).toInteger());
    else if (op == QLatin1String("failed")) Q_EMIT failed(node, m.value(QStringLiteral("error")).toString());
    else if (op == QLatin1String("exited"))
        Q_EMIT exited(node, int(m.value(QStringLiteral("code")).toInteger()), int(m.value(QStringLiteral("signal")).toInteger()));
}

// The zygote is gone (its trainers die with it, PR_SET_PDEATHSIG): the next spawn starts another.
// Its socket may close a moment before Qt reports the exit; the exit says why.
void ZygoteClient::lost() {
    if (m_socket < 0) return;
    delete m_notifier;
    m_notifier = nullptr;
    ::close(m_socket);
    m_socket = -1;
    QString why = name() + QStringLiteral(" is gone");
    if (m_process) {
        m_process->disconnect(this);
        const QString zygote = QStringLiteral("%1 (pid %2)").arg(name()).arg(m_pid);
        if (m_process->error() == QProcess::FailedToStart) {
            why = QStringLiteral("%1 failed to start: %2").arg(m_program, m_process->errorString());
        } else if (m_process->state() != QProcess::NotRunning && !m_process->waitForFinished(2000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
            why = zygote + QStringLiteral(" closed its socket and was stopped");
        } else {
            why = m_process->exitStatus() == QProcess::CrashExit
                      ? QStringLiteral("%1 was killed by signal %2").arg(zygote).arg(m_process->exitCode())
                      : QStringLiteral("%1 exited with status %2").arg(zygote).arg(m_process->exitCode());
        }
        m_process->deleteLater();
        m_process = nullptr;
    }
    Q_EMIT died(why);
}

}  // namespace hips
