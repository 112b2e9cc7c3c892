// hips simulate's fleet: no agent, one simulator process (SimulatedFleet in AgentFleet.h).
#include "AgentFleet.h"

#include "ControlProtocol.h"
#include "LocalAgentLauncher.h"
#include "MetricsReporter.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <algorithm>
#include <cstring>

namespace hips {

namespace {

constexpr qsizetype kMaxLineBytes = 64 << 20;  // a record with a 100 x 100 confusion matrix is far below

}  // namespace

SimulatedFleet::SimulatedFleet(const Topology& topology, const QString& runDir, double clockOrigin)
    : AgentFleet(topology, runDir, /*manualAcks=*/false), m_origin(clockOrigin) {
    m_local = true;  // (its files go to the run directory itself)
    m_savesRoster = false;
}

SimulatedFleet::~SimulatedFleet() {
    m_process.disconnect(this);
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(2000);
    }
}

QString SimulatedFleet::loggingNode() const {
    const Party* central = m_topology.centralParty();
    return central ? central->id + QStringLiteral("/global_server0") : QString();
}

void SimulatedFleet::start() {
    const QString trainer = QFileInfo(LocalAgentLauncher::agentPath()).absolutePath() + QStringLiteral("/hips-trainer");
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] { readLines(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] { readLines(QProcess::StandardError); });
    connect(&m_process, &QProcess::started, this, [this] {
        for (const Node& n : m_topology.nodes())
            tell({{QStringLiteral("kind"), control::event::kStarted},
                  {QStringLiteral("node"), n.id},
                  {QStringLiteral("pid"), m_process.processId()}});
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this, trainer](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        m_lastError = QStringLiteral("cannot start %1 (%2); build hips-trainer beside hips").arg(trainer, m_process.errorString());
        onFinished(2, false);
    });
    connect(&m_process, &QProcess::finished, this,
            [this](int code, QProcess::ExitStatus status) { onFinished(code, status == QProcess::CrashExit); });
    Q_EMIT ready();
    m_process.start(trainer, {QStringLiteral("simulate"), QDir(m_runDir).filePath(QStringLiteral("topology.json")), m_runDir,
                              QString::number(m_origin, 'f', 3)});
}

void SimulatedFleet::shutdown() {
    m_shutdownSent = true;
    if (m_process.state() == QProcess::NotRunning) {
        if (!std::exchange(m_goneSent, true)) QTimer::singleShot(0, this, [this] { Q_EMIT gone(!m_finished); });
        return;
    }
    m_process.terminate();
    QTimer::singleShot(kStopGraceMs, this, [this] {
        if (m_process.state() != QProcess::NotRunning) m_process.kill();
    });
}

void SimulatedFleet::readLines(QProcess::ProcessChannel channel) {
    m_process.setReadChannel(channel);
    QByteArray& partial = m_partial[channel == QProcess::StandardError];
    partial += m_process.readAll();
    qsizetype end;
    while ((end = partial.indexOf('\n')) >= 0) {
        onLine(partial.left(end), channel == QProcess::StandardError);
        partial.remove(0, end + 1);
    }
    if (partial.size() > kMaxLineBytes) {  // (it is our own child, but a line without end is still not kept whole)
        onLine(partial.left(kMaxLineBytes), channel == QProcess::StandardError);
        partial.clear();
    }
}

// A record goes to the node it names (the controller takes only the run's nodes); any other line
// is the simulator's log, kept under the global server's.
void SimulatedFleet::onLine(const QByteArray& line, bool error) {
    if (!error && line.startsWith(MetricsReporter::kPrefix)) {
        const QByteArray json = line.mid(qsizetype(std::strlen(MetricsReporter::kPrefix)));
        const QString node = QJsonDocument::fromJson(json).object().value(QStringLiteral("node")).toString();
        if (!node.isEmpty())
            return tell({{QStringLiteral("kind"), control::event::kMetric},
                         {QStringLiteral("node"), node},
                         {QStringLiteral("json"), QString::fromUtf8(json)}});
    }
    const QString text = QString::fromUtf8(line);
    if (error && !text.trimmed().isEmpty()) m_lastError = text;
    tell({{QStringLiteral("kind"), control::event::kLog},
          {QStringLiteral("node"), loggingNode()},
          {QStringLiteral("stream"), error ? QStringLiteral("stderr") : QStringLiteral("stdout")},
          {QStringLiteral("line"), text}});
}

// The simulator's end is every node's: the global server's first, with the reason when it failed.
void SimulatedFleet::onFinished(int code, bool crashed) {
    if (std::exchange(m_finished, true)) return;
    for (QProcess::ProcessChannel c : {QProcess::StandardOutput, QProcess::StandardError}) {
        readLines(c);
        const bool error = c == QProcess::StandardError;
        if (!m_partial[error].isEmpty()) onLine(std::exchange(m_partial[error], {}), error);
    }
    if (code != 0 || crashed)  // (the reason, as the simulator said it; then every node ends with it)
        Q_EMIT failed(crashed ? QStringLiteral("the simulation was killed by signal %1").arg(code)
                              : QStringLiteral("the simulation stopped: %1")
                                    .arg(m_lastError.isEmpty() ? QStringLiteral("exit status %1").arg(code) : m_lastError));
    const QString first = loggingNode();
    QList<Node> nodes = m_topology.nodes();
    std::stable_partition(nodes.begin(), nodes.end(), [&first](const Node& n) { return n.id == first; });
    for (const Node& n : nodes)
        tell({{QStringLiteral("kind"), control::event::kExited},
              {QStringLiteral("node"), n.id},
              {QStringLiteral("code"), code},
              {QStringLiteral("crashed"), crashed},
              {QStringLiteral("error"), code != 0 || crashed ? m_lastError : QString()}});
    if (m_shutdownSent && !std::exchange(m_goneSent, true)) Q_EMIT gone(false);
}

void SimulatedFleet::tell(QCborMap event) {
    Q_EMIT this->event(nullptr, event, ++m_seq);
}

}  // namespace hips
