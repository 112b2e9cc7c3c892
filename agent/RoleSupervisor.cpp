#include "RoleSupervisor.h"

#include "ControlProtocol.h"

#include <QCoreApplication>
#include <QDir>
#include <QTimer>
#include <csignal>
#include <sys/prctl.h>

namespace hips {

static constexpr int kGraceMs = 3000;
// A role's output line longer than this is cut (and marked): every line becomes a control-plane
// event and a history row, and a role that writes without newlines must not grow a buffer forever.
static constexpr qsizetype kMaxLineBytes = 8 * 1024;
// Metric lines carry a traffic table with a row per peer; they get more room, and still leave
// space in an event (control::kMaxEventBytes) for its other fields.
static constexpr qsizetype kMaxMetricBytes = control::kMaxEventBytes / 2;

RoleSupervisor::~RoleSupervisor() {
    for (Role& r : m_roles)
        if (r.process) {
            r.process->disconnect(this);  // no signals into an owner that is being destroyed
            if (r.process->state() != QProcess::NotRunning) {
                r.process->kill();
                r.process->waitForFinished(1000);
            }
        }
}

bool RoleSupervisor::start(const QString& node, const QString& program, const QString& topologyPath,
                           const QString& outDir, int threads, const QByteArray& nodeKey, const QString& peerKeysPath) {
    if (m_roles.value(node).process) return false;  // already running
    auto* p = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // One BLAS/OpenMP thread per role unless configured: several roles share the cores.
    env.insert(QStringLiteral("OPENBLAS_NUM_THREADS"), QString::number(threads));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QString::number(threads));
    env.insert(QStringLiteral("HIPS_NODE_KEY"), QString::fromLatin1(nodeKey));
    env.insert(QStringLiteral("HIPS_PEER_KEYS_FILE"), peerKeysPath);
    env.remove(QStringLiteral("HIPS_AGENT_KEYS"));  // the agent's own keys stay with the agent
    p->setProcessEnvironment(env);
    p->setWorkingDirectory(outDir);
    p->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_roles[node] = Role{};
    m_roles[node].process = p;

    connect(p, &QProcess::readyReadStandardOutput, this, [this, node] { drain(node, false); });
    connect(p, &QProcess::readyReadStandardError, this, [this, node] { drain(node, true); });
    connect(p, &QProcess::started, this, [this, node, p] { Q_EMIT started(node, p->processId()); });
    connect(p, &QProcess::errorOccurred, this, [this, node, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        Q_EMIT exited(node, RoleExitInfo{-1, false, QStringLiteral("failed to start: ") + p->errorString()});
    });
    connect(p, &QProcess::finished, this, [this, node, p](int code, QProcess::ExitStatus status) {
        drain(node, false);
        drain(node, true);
        Q_EMIT exited(node, RoleExitInfo{code, status == QProcess::CrashExit, m_roles[node].lastError});
        p->deleteLater();
        m_roles[node].process = nullptr;
    });
    p->start(program,
             {QStringLiteral("role"), QStringLiteral("--topology"), topologyPath, QStringLiteral("--node"), node,
              QStringLiteral("--out"), outDir});
    return true;
}

void RoleSupervisor::drain(const QString& node, bool errStream) {
    Role& r = m_roles[node];
    if (!r.process) return;
    QByteArray& buffer = errStream ? r.stderrBuffer : r.stdoutBuffer;
    bool& skipping = errStream ? r.stderrSkipping : r.stdoutSkipping;
    buffer += errStream ? r.process->readAllStandardError() : r.process->readAllStandardOutput();
    qsizetype newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
        const QByteArray line = buffer.left(newline);
        buffer.remove(0, newline + 1);
        if (skipping) skipping = false;  // the end of a line already passed on, cut
        else emitLine(node, errStream, line);
    }
    if (buffer.size() > kMaxMetricBytes) {  // no newline in sight: pass it on cut (and marked), skip its rest
        if (!skipping) emitLine(node, errStream, buffer);
        skipping = true;
        buffer.clear();
    }
}

void RoleSupervisor::emitLine(const QString& node, bool errStream, const QByteArray& line) {
    if (!errStream && line.startsWith("@metric ") && line.size() <= kMaxMetricBytes) {
        Q_EMIT metricLine(node, line.mid(8));
        return;
    }
    QString text = QString::fromUtf8(line.left(kMaxLineBytes));
    if (line.size() > kMaxLineBytes) text += QStringLiteral(" … [%1 bytes cut]").arg(line.size() - kMaxLineBytes);
    if (errStream && !line.trimmed().isEmpty()) m_roles[node].lastError = text;
    Q_EMIT logLine(node, errStream ? QStringLiteral("stderr") : QStringLiteral("stdout"), text);
}

void RoleSupervisor::stop(const QString& node) {
    QProcess* p = m_roles.value(node).process;
    if (!p) return;
    p->terminate();
    QTimer::singleShot(kGraceMs, p, [p] { p->kill(); });
}

void RoleSupervisor::stopAll() {
    for (const QString& node : m_roles.keys()) stop(node);
}

int RoleSupervisor::runningCount() const {
    int n = 0;
    for (const Role& r : m_roles) n += r.process && r.process->state() != QProcess::NotRunning;
    return n;
}

}  // namespace hips
