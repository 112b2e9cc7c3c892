#include "RoleSupervisor.h"

#include "ControlProtocol.h"
#include "ZygoteClient.h"

#include <QCborMap>
#include <QCoreApplication>
#include <QDir>
#include <QSocketNotifier>
#include <QTimer>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <utility>

namespace hips {

static constexpr int kGraceMs = 3000;
// A role's output line longer than this is cut (and marked): every line becomes a control-plane
// event and a history row, and a role that writes without newlines must not grow a buffer forever.
static constexpr qsizetype kMaxLineBytes = 8 * 1024;
// Metric lines carry a traffic table with a row per peer; they get more room, and still leave
// space in an event (control::kMaxEventBytes) for its other fields.
static constexpr qsizetype kMaxMetricBytes = control::kMaxEventBytes / 2;
enum Stream { Stdout = 0, Stderr = 1 };

RoleSupervisor::RoleSupervisor(QObject* parent) : QObject(parent) {}

RoleSupervisor::~RoleSupervisor() {
    for (Role& r : m_roles) {
        if (r.process) {
            r.process->disconnect(this);  // no signals into an owner that is being destroyed
            if (r.process->state() != QProcess::NotRunning) {
                r.process->kill();
                r.process->waitForFinished(1000);
            }
        }
        closePipe(r, Stdout);
        closePipe(r, Stderr);
    }
    for (ZygoteClient* host : m_sharedTrainers) {
        host->disconnect(this);
        delete host;  // closing its socket makes it stop its roles and leave
    }
    if (m_zygote) {
        m_zygote->disconnect(this);
        delete m_zygote;  // closing its socket makes it kill its trainers and leave
    }
}

bool RoleSupervisor::start(const RoleLaunch& launch) {
    if (m_roles.value(launch.node).active()) return false;  // already running
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // One BLAS/OpenMP thread per role unless configured: several roles share the cores.
    env.insert(QStringLiteral("OPENBLAS_NUM_THREADS"), QString::number(launch.threads));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QString::number(launch.threads));
    // A forked trainer gets its key in the environment the zygote sets after the fork, which
    // /proc/PID/environ never shows (it shows the zygote's exec-time one); a process started here
    // reads it from its stdin (startProcess), so that it is in no environment an exec shows.
    if (launch.forkFromZygote) env.insert(QStringLiteral("HIPS_NODE_KEY"), QString::fromLatin1(launch.nodeKey));
    else env.insert(QStringLiteral("HIPS_NODE_KEY_STDIN"), QStringLiteral("1"));
    env.insert(QStringLiteral("HIPS_PEER_KEYS_FILE"), launch.peerKeysPath);
    env.insert(QStringLiteral("HIPS_TOPOLOGY_SHA256"), QString::fromLatin1(launch.topologySha256));
    env.insert(QStringLiteral("HIPS_PEER_KEYS_SHA256"), QString::fromLatin1(launch.peerKeysSha256));
    env.insert(QStringLiteral("HIPS_PLACEMENT"), QString::number(launch.placement));
    env.remove(QStringLiteral("HIPS_AGENT_KEYS"));  // the agent's own keys stay with the agent
    m_roles[launch.node] = Role{};
    m_roles[launch.node].generation = m_nextGeneration++;
    if (!launch.forkFromZygote) {
        startProcess(launch, env);
        return true;
    }
    QString error;
    if (!startForked(launch, env, &error)) {
        m_roles.remove(launch.node);
        QMetaObject::invokeMethod(
            this,
            [this, node = launch.node, error] {  // as a QProcess would: later
                Q_EMIT exited(node, RoleExitInfo{-1, false, QStringLiteral("failed to start: ") + error});
            },
            Qt::QueuedConnection);
    }
    return true;
}

static QStringList roleArguments(const RoleLaunch& launch) {
    return {QStringLiteral("role"),
            QStringLiteral("--topology"),
            launch.topologyPath,
            QStringLiteral("--node"),
            launch.node,
            QStringLiteral("--out"),
            launch.outDir};
}

void RoleSupervisor::startProcess(const RoleLaunch& launch, const QProcessEnvironment& env) {
    auto* p = new QProcess(this);
    const QString node = launch.node;
    m_roles[node].process = p;
    p->setProcessEnvironment(env);
    p->setWorkingDirectory(launch.outDir);
    // (An agent gone between the fork and the prctl left the role to init, with no signal to come.)
    p->setChildProcessModifier([agent = ::getpid()] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != agent) ::_exit(127);
    });
    connect(p, &QProcess::readyReadStandardOutput, this, [this, node] { drain(node, Stdout); });
    connect(p, &QProcess::readyReadStandardError, this, [this, node] { drain(node, Stderr); });
    connect(p, &QProcess::started, this, [this, node, p] { Q_EMIT started(node, p->processId()); });
    connect(p, &QProcess::errorOccurred, this, [this, node, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        // (No `finished` follows: the node is free again here, or every later start of it, a
        // restart's too, was refused as already running, and a stop waited for it for ever.)
        m_roles[node].process = nullptr;
        p->deleteLater();
        Q_EMIT exited(node, RoleExitInfo{-1, false, QStringLiteral("failed to start: ") + p->errorString()});
    });
    connect(p, &QProcess::finished, this, [this, node, p](int code, QProcess::ExitStatus status) {
        drainAtExit(node);
        Q_EMIT exited(node, RoleExitInfo{code, status == QProcess::CrashExit, m_roles[node].lastError});
        p->deleteLater();
        m_roles[node].process = nullptr;
    });
    p->start(launch.program, roleArguments(launch));
    p->write(launch.nodeKey + '\n');  // (buffered until it runs; then its stdin ends)
    p->closeWriteChannel();
}

bool RoleSupervisor::startForked(const RoleLaunch& launch, const QProcessEnvironment& env, QString* error) {
    Role& r = m_roles[launch.node];
    int ends[2][2];  // [stream][read, write]
    for (int s : {Stdout, Stderr})
        if (::pipe2(ends[s], O_CLOEXEC) != 0) {
            *error = QStringLiteral("pipe: ") + QString::fromLocal8Bit(std::strerror(errno));
            if (s == Stderr) ::close(ends[Stdout][0]), ::close(ends[Stdout][1]);
            return false;
        }
    QCborMap childEnv;  // all of it: the child starts from an empty environment
    for (const QString& name : env.keys()) childEnv.insert(name, env.value(name));
    r.host = launch.sharedTrainer ? sharedTrainer(launch.program, launch.outDir) : zygote(launch.program);
    const bool asked = r.host->spawn(launch.node, QStringList{launch.program} + roleArguments(launch), childEnv, launch.outDir,
                                     ends[Stdout][1], ends[Stderr][1], error);
    for (int s : {Stdout, Stderr}) {
        ::close(ends[s][1]);  // the child has its copy; EOF comes when it ends
        r.pipes[s] = ends[s][0];
        ::fcntl(r.pipes[s], F_SETFL, O_NONBLOCK);
        r.notifiers[s] = new QSocketNotifier(r.pipes[s], QSocketNotifier::Read, this);
        connect(r.notifiers[s], &QSocketNotifier::activated, this, [this, node = launch.node, s] { drain(node, s); });
    }
    if (!asked) {
        closePipe(r, Stdout);
        closePipe(r, Stderr);
        return false;
    }
    r.forked = true;
    return true;
}

ZygoteClient* RoleSupervisor::zygote(const QString& program) {
    if (m_zygote) return m_zygote;
    m_zygote = new ZygoteClient(program, this);
    listenTo(m_zygote);
    return m_zygote;
}

ZygoteClient* RoleSupervisor::sharedTrainer(const QString& program, const QString& runDirectory) {
    ZygoteClient*& host = m_sharedTrainers[runDirectory];
    if (!host) {
        host = new ZygoteClient(zygote(program), runDirectory, this);
        listenTo(host);
    }
    return host;
}

// What a zygote or shared trainer says of the roles it runs.
void RoleSupervisor::listenTo(ZygoteClient* host) {
    auto ours = [this, host](const QString& node) { return m_roles.value(node).forked && m_roles.value(node).host == host; };
    connect(host, &ZygoteClient::spawned, this, [this, ours](const QString& node, qint64 pid) {
        if (ours(node)) Q_EMIT started(node, pid);
    });
    connect(host, &ZygoteClient::failed, this, [this, ours](const QString& node, const QString& error) {
        if (ours(node)) forkedExited(node, RoleExitInfo{-1, false, QStringLiteral("failed to start: ") + error});
    });
    connect(host, &ZygoteClient::exited, this, [this, ours](const QString& node, int code, int signal) {
        if (ours(node)) forkedExited(node, RoleExitInfo{signal ? signal : code, signal != 0, {}});  // (its last line once all is read)
    });
    connect(host, &ZygoteClient::died, this, [this, ours](const QString& why) {
        std::fprintf(stderr, "hips-agent: %s; its trainers went with it\n", qPrintable(why));
        for (const QString& node : m_roles.keys())
            if (ours(node)) forkedExited(node, RoleExitInfo{SIGKILL, true, why});  // PR_SET_PDEATHSIG
    });
}

// A shared trainer none of whose roles runs any more: closed, so that it leaves (a worker started
// again later gets a new one).
void RoleSupervisor::leaveIfUnused(ZygoteClient* host) {
    if (!host || host == m_zygote) return;
    for (const Role& r : m_roles)
        if (r.forked && r.host == host) return;
    for (auto it = m_sharedTrainers.begin(); it != m_sharedTrainers.end(); ++it)
        if (it.value() == host) {
            m_sharedTrainers.erase(it);
            host->disconnect(this);
            host->deleteLater();
            return;
        }
}

void RoleSupervisor::forkedExited(const QString& node, const RoleExitInfo& info) {
    auto it = m_roles.find(node);
    if (it == m_roles.end() || !it->forked) return;
    // The child has ended: all it wrote is in the pipes (unless it left a descendant holding them,
    // and writing: a bounded read then).
    drainAtExit(node);
    closePipe(*it, Stdout);
    closePipe(*it, Stderr);
    it->forked = false;
    RoleExitInfo final = info;
    // Its own last error line, read to the end; beside the host's word when its host went (a
    // shared trainer's worker that crashed took the others along: its line says why).
    if (final.error.isEmpty()) final.error = it->lastError;
    else if (!it->lastError.isEmpty()) final.error += QStringLiteral("; its last line: ") + it->lastError;
    ZygoteClient* host = std::exchange(it->host, nullptr);
    Q_EMIT exited(node, final);
    leaveIfUnused(host);
}

QByteArray RoleSupervisor::readAvailable(Role& r, int stream) {
    if (r.process) return stream == Stderr ? r.process->readAllStandardError() : r.process->readAllStandardOutput();
    QByteArray bytes;
    char chunk[64 * 1024];
    while (r.pipes[stream] >= 0 && bytes.size() <= kMaxMetricBytes) {
        const ssize_t n = ::read(r.pipes[stream], chunk, sizeof chunk);
        if (n > 0) bytes.append(chunk, n);
        else if (n == 0) closePipe(r, stream);  // the child is done writing
        else if (errno != EINTR) break;  // EAGAIN: nothing more for now
    }
    return bytes;
}

void RoleSupervisor::closePipe(Role& r, int stream) {
    delete r.notifiers[stream];
    r.notifiers[stream] = nullptr;
    if (r.pipes[stream] >= 0) ::close(r.pipes[stream]);
    r.pipes[stream] = -1;
}

// At most `reads` reads: a role that writes as fast as its lines become events (a print in a
// model's forward) would otherwise keep the agent here, its pings unanswered, until its
// controller found it silent. The notifier comes back at once for the rest.
void RoleSupervisor::drain(const QString& node, int stream, int reads) {
    auto it = m_roles.find(node);
    if (it == m_roles.end() || !it->active()) return;
    QByteArray& buffer = it->buffers[stream];
    bool& skipping = it->skipping[stream];
    for (int read = 0; read < reads; ++read) {
        const QByteArray more = readAvailable(*it, stream);
        if (more.isEmpty()) break;
        buffer += more;
        qsizetype newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
            const QByteArray line = buffer.left(newline);
            buffer.remove(0, newline + 1);
            if (skipping) skipping = false;  // the end of a line already passed on, cut
            else emitLine(node, stream, line);
        }
        if (buffer.size() > kMaxMetricBytes) {  // no newline in sight: pass it on cut (and marked), skip its rest
            if (!skipping) emitLine(node, stream, buffer);
            skipping = true;
            buffer.clear();
        }
        if (it->process) break;  // QProcess hands over all it has at once
    }
}

// What the process wrote last, a line without its newline too (it exited or was killed in the
// middle of one: its last words, often the error).
void RoleSupervisor::drainAtExit(const QString& node) {
    for (int stream : {Stdout, Stderr}) {
        drain(node, stream, kReadsAtExit);
        auto it = m_roles.find(node);
        if (it == m_roles.end()) return;
        if (!it->buffers[stream].isEmpty() && !it->skipping[stream]) emitLine(node, stream, it->buffers[stream]);
        it->buffers[stream].clear();
        it->skipping[stream] = false;
    }
}

void RoleSupervisor::emitLine(const QString& node, int stream, const QByteArray& line) {
    if (stream == Stdout && line.startsWith("@metric ") && line.size() <= kMaxMetricBytes) {
        // Measured as it travels: each invalid byte becomes U+FFFD (3 bytes), and an event over
        // the controller's limit was refused, with every later event of this agent behind it.
        const QByteArray json = QString::fromUtf8(line.mid(8)).toUtf8();
        if (json.size() <= kMaxMetricBytes) return Q_EMIT metricLine(node, json);
    }
    QString text = QString::fromUtf8(line.left(kMaxLineBytes));
    if (line.size() > kMaxLineBytes) text += QStringLiteral(" … [%1 bytes cut]").arg(line.size() - kMaxLineBytes);
    if (stream == Stderr && !line.trimmed().isEmpty()) m_roles[node].lastError = text;
    Q_EMIT logLine(node, stream == Stderr ? QStringLiteral("stderr") : QStringLiteral("stdout"), text);
}

void RoleSupervisor::stop(const QString& node) {
    const Role r = m_roles.value(node);
    if (r.process) {
        QProcess* p = r.process;
        p->terminate();
        QTimer::singleShot(kGraceMs, p, [p] { p->kill(); });
    } else if (r.forked) {
        r.host->signal(node, SIGTERM);
        QTimer::singleShot(kGraceMs, this, [this, node, generation = r.generation] {
            const Role now = m_roles.value(node);
            if (now.forked && now.generation == generation) now.host->signal(node, SIGKILL);
        });
    }
}

void RoleSupervisor::stopAll() {
    for (const QString& node : m_roles.keys()) stop(node);
}

int RoleSupervisor::runningCount() const {
    int n = 0;
    for (const Role& r : m_roles) n += r.forked || (r.process && r.process->state() != QProcess::NotRunning);
    return n;
}

}  // namespace hips
