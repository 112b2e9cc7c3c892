#include "LocalAgentLauncher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <unistd.h>

namespace hips {

LocalAgentLauncher::LocalAgentLauncher(QObject* parent) : QObject(parent) {
    m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
        m_buffer += m_process.readAllStandardOutput();
        const qsizetype newline = m_buffer.indexOf('\n');
        if (m_ready || newline < 0) return;
        const QByteArray line = m_buffer.left(newline).trimmed();
        if (!line.startsWith("HIPS-AGENT-ENDPOINT ")) {
            Q_EMIT failed(QStringLiteral("the local agent said '%1' instead of its endpoint").arg(QString::fromUtf8(line)));
            return;
        }
        m_ready = true;
        Q_EMIT ready(QString::fromUtf8(line.mid(20)));
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) Q_EMIT failed(QStringLiteral("cannot start %1: %2").arg(agentPath(), m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        // (After a crash, Qt's exit code is the signal's number.)
        if (status == QProcess::CrashExit)
            return Q_EMIT exited(code > 0
                                     ? QStringLiteral("was killed by signal %1 (%2)").arg(code).arg(QString::fromLocal8Bit(strsignal(code)))
                                     : QStringLiteral("was killed by a signal"),
                                 -1);
        Q_EMIT exited(QStringLiteral("exited with status %1").arg(code), code);
    });
}

LocalAgentLauncher::~LocalAgentLauncher() {
    if (!running()) return;
    m_process.terminate();
    if (!m_process.waitForFinished(5000)) {
        m_process.kill();
        m_process.waitForFinished(1000);
    }
}

QString LocalAgentLauncher::agentPath() {
    const QString fromEnv = qEnvironmentVariable("HIPS_AGENT");
    if (!fromEnv.isEmpty()) return fromEnv;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("hips-agent"));
}

void LocalAgentLauncher::start(const CurveKeyPair& agentKeys, const QByteArray& controllerPublicKey, const QString& runsRoot,
                               bool outlivesController) {
    if (outlivesController) m_process.setChildProcessModifier([] { ::setsid(); });
    else
        m_process.setChildProcessModifier([controller = ::getpid()] {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != controller) ::_exit(127);  // (gone before the prctl: no signal would come)
        });
    const QString path = agentPath();
    if (!QFileInfo(path).isExecutable()) {
        // Queued: the caller of start() must be able to connect and enter its event loop first.
        const QString reason = QStringLiteral("%1 is missing or not executable; build it, or set HIPS_AGENT").arg(path);
        QMetaObject::invokeMethod(
            this, [this, reason] { Q_EMIT failed(reason); }, Qt::QueuedConnection);
        return;
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HIPS_AGENT_KEYS_STDIN"), QStringLiteral("1"));  // (never in its environment: /proc shows that)
    m_process.setProcessEnvironment(env);
    m_process.start(path, {QStringLiteral("daemon"), QStringLiteral("--bind"), QStringLiteral("tcp://127.0.0.1:*"),
                           QStringLiteral("--runs-root"), runsRoot});
    m_process.write(agentKeys.toText() + '\n' + controllerPublicKey + '\n');
    m_process.closeWriteChannel();
}

void LocalAgentLauncher::terminate() {
    if (!running()) return;
    m_process.terminate();
    QTimer::singleShot(5000, this, [this] {
        if (running()) m_process.kill();
    });
}

}  // namespace hips
