#include "SharedTrainer.h"

#include "LocalTrainer.h"
#include "ProcessTuning.h"
#include "RoleScope.h"
#include "TrainerZygote.h"

#include <QCborValue>
#include <QDir>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <poll.h>
#include <system_error>
#include <sched.h>
#include <sys/signalfd.h>
#include <thread>
#include <unistd.h>

namespace hips::shared_trainer {

namespace {

constexpr int kStopGraceMs = 3000;  // at the end, what the roles get to stop before the process leaves

struct RoleThread {
    RoleScope scope;
    std::thread thread;
    std::atomic<bool> finished{false};
    int code = 0;
};

class Host {
public:
    Host(int socket, RunRole run) : m_socket(socket), m_run(run) {}

    bool open() {
        sigset_t stops;
        sigemptyset(&stops);
        for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stops, s);
        ::pthread_sigmask(SIG_BLOCK, &stops, nullptr);  // (the role threads inherit the mask)
        m_signals = ::signalfd(-1, &stops, SFD_CLOEXEC | SFD_NONBLOCK);
        return m_signals >= 0 && ::pipe2(m_done, O_CLOEXEC | O_NONBLOCK) == 0;
    }

    void serve() {
        pollfd watched[3] = {{m_socket, POLLIN, 0}, {m_signals, POLLIN, 0}, {m_done[0], POLLIN, 0}};
        for (;;) {
            if (::poll(watched, 3, -1) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (watched[2].revents) reapFinished();
            if (watched[1].revents) {
                signalfd_siginfo info;
                while (::read(m_signals, &info, sizeof info) == sizeof info) {
                }
                for (auto& [node, role] : m_roles) role->scope.requestStop();
            }
            if (!watched[0].revents) continue;
            if (!zygote::handleRequest(
                    m_socket, [this](const QCborMap& m, const QList<int>& fds) { spawn(m, fds); },
                    [this](const QCborMap& m) { signal(m); }))
                break;  // the agent closed its end, or is gone
        }
        stopAll();
    }

private:
    void spawn(const QCborMap& m, const QList<int>& fds) {
        QString error;
        std::optional<zygote::Spawn> s = zygote::parseSpawn(m, fds, &error);
        if (s && m_roles.count(s->node)) error = QStringLiteral("%1 is running already").arg(s->node);
        // One run directory per shared trainer (its working directory): a process has one.
        else if (s && QDir(s->cwd).canonicalPath() != QDir::current().canonicalPath())
            error = QStringLiteral("this shared trainer serves %1, not %2").arg(QDir::currentPath(), s->cwd);
        if (!error.isEmpty()) {
            for (int fd : fds) ::close(fd);
            return failed(m, error);
        }
        if (s->channel >= 0) ::close(s->channel);  // (a process's; a thread speaks through the agent's pipes)
        auto role = std::make_unique<RoleThread>();
        role->scope.out = ::fdopen(s->out, "w");
        role->scope.err = ::fdopen(s->err, "w");
        if (!role->scope.out || !role->scope.err) {
            for (FILE* f : {role->scope.out, role->scope.err})
                if (f) std::fclose(f);
            if (!role->scope.out) ::close(s->out);
            if (!role->scope.err) ::close(s->err);
            return failed(m, QStringLiteral("cannot open its output: ") + QString::fromLocal8Bit(std::strerror(errno)));
        }
        if (role->scope.out) ::setvbuf(role->scope.out, nullptr, _IOLBF, 0);
        if (role->scope.err) ::setvbuf(role->scope.err, nullptr, _IONBF, 0);  // as stderr is
        for (auto it = s->env.constBegin(); it != s->env.constEnd(); ++it)
            role->scope.variables.insert(it.key().toString().toLocal8Bit(), it.value().toString().toLocal8Bit());
        RoleThread* r = role.get();
        try {
            r->thread = std::thread([this, r, args = s->args] {
                setThreadRoleScope(&r->scope);
                r->code = m_run(args);
                setThreadRoleScope(nullptr);
                for (FILE* f : {r->scope.out, r->scope.err})
                    if (f) std::fclose(f);  // EOF on the agent's pipes: all it wrote is there
                r->finished = true;
                const char one = 1;
                (void)!::write(m_done[1], &one, 1);
            });
        } catch (const std::system_error& e) {  // (no thread left: the host's or the cgroup's limit) this one fails, not the others
            for (FILE* f : {r->scope.out, r->scope.err}) std::fclose(f);
            return failed(m, QStringLiteral("cannot start its thread: ") + QString::fromLocal8Bit(e.what()));
        }
        m_roles.emplace(s->node, std::move(role));
        zygote::reply(m_socket, {{QStringLiteral("op"), QStringLiteral("spawned")},
                                 {QStringLiteral("node"), s->node},
                                 {QStringLiteral("pid"), qint64(::getpid())}});
    }

    void failed(const QCborMap& m, const QString& error) {
        zygote::reply(m_socket, {{QStringLiteral("op"), QStringLiteral("failed")},
                                 {QStringLiteral("node"), m.value(QStringLiteral("node")).toString()},
                                 {QStringLiteral("error"), error}});
    }

    void signal(const QCborMap& m) {
        const auto it = m_roles.find(m.value(QStringLiteral("node")).toString());
        if (it == m_roles.end()) return;
        const int sig = int(m.value(QStringLiteral("signal")).toInteger());
        if (sig == SIGTERM || sig == SIGINT) it->second->scope.requestStop();
        if (sig == SIGKILL && !it->second->finished) {  // a thread that did not stop: only the process can be killed
            // (one that has ended, not yet reaped, is no reason to end the others)
            std::fprintf(stderr, "hips-trainer: %s did not stop when asked; the shared trainer ends with every role in it\n",
                         qPrintable(it->first));
            std::fflush(nullptr);
            ::kill(::getpid(), SIGKILL);
        }
    }

    // Each finished role: joined, and its exit told the agent (a stopped one as killed by SIGTERM,
    // as its own process would have been).
    void reapFinished() {
        char drained[64];
        while (::read(m_done[0], drained, sizeof drained) > 0) {
        }
        for (auto it = m_roles.begin(); it != m_roles.end();) {
            RoleThread& r = *it->second;
            if (!r.finished) {
                ++it;
                continue;
            }
            r.thread.join();
            const bool stopped = r.scope.stopRequested() && r.code != 0;
            zygote::reply(m_socket, {{QStringLiteral("op"), QStringLiteral("exited")},
                                     {QStringLiteral("node"), it->first},
                                     {QStringLiteral("code"), stopped ? 0 : r.code},
                                     {QStringLiteral("signal"), stopped ? SIGTERM : 0}});
            it = m_roles.erase(it);
        }
    }

    // The agent is gone: every role is asked to stop, and given kStopGraceMs.
    void stopAll() {
        for (auto& [node, role] : m_roles) role->scope.requestStop();
        pollfd done{m_done[0], POLLIN, 0};
        for (int waited = 0; !m_roles.empty() && waited < kStopGraceMs; waited += 100) {
            ::poll(&done, 1, 100);
            reapFinished();
        }
        std::fflush(nullptr);
        if (!m_roles.empty()) _exit(1);  // (threads still running cannot be joined)
    }

    int m_socket;
    RunRole m_run;
    int m_signals = -1;
    int m_done[2] = {-1, -1};
    std::map<QString, std::unique_ptr<RoleThread>> m_roles;
};

}  // namespace

int serve(int socket, RunRole runRole) {
    Host host(socket, runRole);
    if (!host.open()) {
        std::fprintf(stderr, "hips-trainer: cannot set up the shared trainer: %s\n", std::strerror(errno));
        return 1;
    }
    // A step per core at once: the other workers' threads wait their turn instead of slicing the
    // cores among dozens, so that one receiving its model or answering a heartbeat is not behind them.
    cpu_set_t usable;  // (the cores this process may run on: a Slurm allocation's, a cgroup's cpuset)
    CPU_ZERO(&usable);
    const int cores = ::sched_getaffinity(0, sizeof usable, &usable) == 0 ? CPU_COUNT(&usable) : 0;
    setComputeSlots(std::max(1, cores > 0 ? cores : int(std::thread::hardware_concurrency())));
    // LibTorch's thread pool as the fork left it is replaced at its next use: here, before any
    // role thread starts, rather than by the first of several at once (setTorchThreads).
    setTorchThreads(1);
    host.serve();
    return 0;
}

}  // namespace hips::shared_trainer
