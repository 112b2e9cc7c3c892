#include "TrainerZygote.h"

#include "PacketSocket.h"

#include <QCborArray>
#include <QCborValue>
#include <QHash>
#include <optional>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace hips::zygote {

QByteArray spawnRequest(const QString& node, const QStringList& args, const QCborMap& env, const QString& cwd) {
    return QCborMap{{QStringLiteral("op"), QStringLiteral("spawn")},
                    {QStringLiteral("node"), node},
                    {QStringLiteral("args"), QCborArray::fromStringList(args)},
                    {QStringLiteral("env"), env},
                    {QStringLiteral("cwd"), cwd}}
        .toCborValue()
        .toCbor();
}

QByteArray signalRequest(const QString& node, int signal) {
    return QCborMap{{QStringLiteral("op"), QStringLiteral("signal")}, {QStringLiteral("node"), node}, {QStringLiteral("signal"), signal}}
        .toCborValue()
        .toCbor();
}

void reply(int socket, const QCborMap& map) {
    if (!sendPacket(socket, map.toCborValue().toCbor()))
        std::fprintf(stderr, "hips-trainer: cannot reply to the agent: %s\n", std::strerror(errno));
}

std::optional<Spawn> parseSpawn(const QCborMap& m, const QList<int>& fds, QString* error) {
    Spawn s;
    s.node = m.value(QStringLiteral("node")).toString();
    s.cwd = m.value(QStringLiteral("cwd")).toString();
    s.env = m.value(QStringLiteral("env")).toMap();
    for (const QCborValue& a : m.value(QStringLiteral("args")).toArray()) s.args << a.toString();
    if (fds.size() < 2 || fds.size() > 3 || s.node.isEmpty() || s.cwd.isEmpty() || s.args.isEmpty()) {
        *error = QStringLiteral("a malformed spawn request (node, cwd, args and two pipes are needed)");
        return std::nullopt;
    }
    s.out = fds[0];
    s.err = fds[1];
    s.channel = fds.size() == 3 ? fds[2] : -1;
    return s;
}

bool handleRequest(int socket, const std::function<void(const QCborMap&, const QList<int>&)>& spawn,
                   const std::function<void(const QCborMap&)>& signal) {
    QByteArray bytes;
    QList<int> fds;
    if (!receivePacket(socket, &bytes, &fds)) return false;
    const QCborMap m = QCborValue::fromCbor(bytes).toMap();
    const QString op = m.value(QStringLiteral("op")).toString();
    if (op == QLatin1String("spawn")) return spawn(m, fds), true;
    for (int fd : fds) ::close(fd);
    if (op == QLatin1String("signal")) signal(m);
    return true;
}

namespace {

// What ps, top and /proc/PID/cmdline show for the child: its own command line, written over
// the room the zygote was started with (its environment, in /proc/PID/environ, stays intact).
void showCommandLine(const QStringList& args, CommandLineRoom room) {
    if (!room.start || room.size < 2) return;
    QByteArray line;
    for (const QString& a : args) line += a.toLocal8Bit() + '\0';
    line.truncate(qsizetype(room.size) - 1);
    std::memset(room.start, 0, room.size);
    std::memcpy(room.start, line.constData(), size_t(line.size()));
}

// In the child, after fork: becomes the role and never returns.
[[noreturn]] void becomeRole(const Spawn& s, int socket, int signals, const sigset_t& mask, pid_t zygote, CommandLineRoom title,
                             RoleMain roleMain) {
    ::close(socket);
    ::close(signals);
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the zygote, which dies with the agent
    if (::getppid() != zygote) _exit(127);
    if (::dup2(s.out, STDOUT_FILENO) < 0 || ::dup2(s.err, STDERR_FILENO) < 0) _exit(127);
    ::close(s.out);
    ::close(s.err);
    if (s.channel >= 0 && (::dup2(s.channel, 3) < 0 || ::close(s.channel) != 0)) _exit(127);  // (3 was the zygote's socket)
    showCommandLine(s.args, title);
    if (::chdir(s.cwd.toLocal8Bit().constData()) != 0) {
        std::fprintf(stderr, "cannot enter %s: %s\n", qPrintable(s.cwd), std::strerror(errno));
        _exit(127);
    }
    ::clearenv();  // the role's environment is exactly the one the agent sent
    for (auto it = s.env.constBegin(); it != s.env.constEnd(); ++it)
        ::setenv(it.key().toString().toLocal8Bit().constData(), it.value().toString().toLocal8Bit().constData(), 1);
    std::vector<QByteArray> storage;
    for (const QString& a : s.args) storage.push_back(a.toLocal8Bit());
    std::vector<char*> argv;
    for (QByteArray& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int code = roleMain(int(storage.size()), argv.data());
    // Everything the role wrote is closed by now; what is left is LibTorch's static destructors,
    // which take 2 s of CPU deregistering its operators (every trainer's end of a run waited on them).
    std::fflush(nullptr);
    _exit(code);
}

}  // namespace

int serve(int socket, CommandLineRoom title, RoleMain roleMain) {
    sigset_t childSignals, previous;
    sigemptyset(&childSignals);
    sigaddset(&childSignals, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &childSignals, &previous);
    const int signals = ::signalfd(-1, &childSignals, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signals < 0) {
        std::fprintf(stderr, "hips-trainer zygote: signalfd: %s\n", std::strerror(errno));
        return 1;
    }
    const pid_t self = ::getpid();
    QHash<pid_t, QString> children;

    auto reapChildren = [&] {
        signalfd_siginfo info;
        while (::read(signals, &info, sizeof info) == sizeof info) {
        }
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
            const QString node = children.take(pid);
            reply(socket, {{QStringLiteral("op"), QStringLiteral("exited")},
                           {QStringLiteral("node"), node},
                           {QStringLiteral("code"), WIFEXITED(status) ? WEXITSTATUS(status) : 0},
                           {QStringLiteral("signal"), WIFSIGNALED(status) ? WTERMSIG(status) : 0}});
        }
    };
    auto spawn = [&](const QCborMap& m, const QList<int>& fds) {
        QString error;
        const std::optional<Spawn> s = parseSpawn(m, fds, &error);
        if (!s) {
            for (int fd : fds) ::close(fd);
            return reply(socket, {{QStringLiteral("op"), QStringLiteral("failed")},
                                  {QStringLiteral("node"), m.value(QStringLiteral("node")).toString()},
                                  {QStringLiteral("error"), error}});
        }
        std::fflush(nullptr);  // nothing buffered may be written twice
        const pid_t pid = ::fork();
        if (pid == 0) becomeRole(*s, socket, signals, previous, self, title, roleMain);
        ::close(s->out);
        ::close(s->err);
        if (s->channel >= 0) ::close(s->channel);
        if (pid < 0)
            return reply(socket, {{QStringLiteral("op"), QStringLiteral("failed")},
                                  {QStringLiteral("node"), s->node},
                                  {QStringLiteral("error"), QStringLiteral("fork: ") + QString::fromLocal8Bit(std::strerror(errno))}});
        children.insert(pid, s->node);
        reply(socket,
              {{QStringLiteral("op"), QStringLiteral("spawned")}, {QStringLiteral("node"), s->node}, {QStringLiteral("pid"), qint64(pid)}});
    };
    auto signalChild = [&](const QCborMap& m) {
        // Only a child not yet reaped: its pid cannot have been reused.
        const QString node = m.value(QStringLiteral("node")).toString();
        const int sig = int(m.value(QStringLiteral("signal")).toInteger());
        if (sig != SIGTERM && sig != SIGKILL && sig != SIGINT) return;
        for (auto it = children.constBegin(); it != children.constEnd(); ++it)
            if (it.value() == node) ::kill(it.key(), sig);
    };

    pollfd watched[2] = {{socket, POLLIN, 0}, {signals, POLLIN, 0}};
    for (;;) {
        if (::poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (watched[1].revents) reapChildren();
        if (!watched[0].revents) continue;
        if (!handleRequest(socket, spawn, signalChild)) break;
    }
    for (auto it = children.constBegin(); it != children.constEnd(); ++it) ::kill(it.key(), SIGKILL);
    while (::waitpid(-1, nullptr, 0) > 0) {
    }
    return 0;
}

}  // namespace hips::zygote
