#include "AgentDaemon.h"

#include <QCryptographicHash>

#include "ClockStamp.h"
#include "ControlProtocol.h"
#include "PrintableText.h"
#include "RoleLog.h"
#include "PrivateFiles.h"
#include "StartCommand.h"
#include "RoleRunner.h"
#include "TopologyReader.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSysInfo>
#include <algorithm>
#include <utility>
#include <cstdio>

namespace hips {

AgentDaemon::AgentDaemon(const QString& bindEndpoint, bool standby, const CurveConfig& curve, const QByteArray& controllerKey,
                         const QString& runsRoot, QObject* parent)
    : QObject(parent),
      m_standby(standby),
      m_runsRoot(runsRoot),
      m_trainerZygote(qEnvironmentVariable("HIPS_TRAINER_ZYGOTE") != QLatin1String("0")) {
    // The controller's key is the only one admitted, and every connection made with it is named
    // "controller": a new controller (after the last one died, or `hips stop` while a run is
    // attached) is reached on its own connection, which the channel learns from its first message.
    m_guard = std::make_unique<CurveGuard>(m_zmq, QList<QByteArray>{controllerKey}, QStringLiteral("hips-agent"),
                                           QString::fromLatin1(control::kControllerId));
    WireLimits limits;
    limits.maxHeaderBytes = control::kMaxCommandBytes;
    limits.maxPayloadBytes = 0;
    Channel channel = Channel::router(m_zmq, QStringLiteral("agent"), bindEndpoint, curve, limits);
    m_endpoint = QString::fromStdString(channel.socket().get(zmq::sockopt::last_endpoint));
    m_socket = std::make_unique<SocketThread>(m_zmq, std::move(channel), [this](Envelope&& e) {
        auto shared = std::make_shared<Envelope>(std::move(e));
        QMetaObject::invokeMethod(
            this, [this, shared] { onMessage(shared->peer, shared->message); }, Qt::QueuedConnection);
    });

    connect(&m_roles, &RoleSupervisor::started, this, [this](const QString& node, qint64 pid) {
        sendEvent(control::event::kStarted, node, {{QStringLiteral("pid"), pid}});
    });
    connect(&m_roles, &RoleSupervisor::exited, this, &AgentDaemon::onRoleExited);
    connect(&m_roles, &RoleSupervisor::metricLine, this, [this](const QString& node, const QByteArray& json) {
        sendEvent(control::event::kMetric, node, {{QStringLiteral("json"), QString::fromUtf8(json)}});
        if (m_hostLogs.contains(node))
            if (const QString line = metric::roleLogLine(QJsonDocument::fromJson(json).object()); !line.isEmpty()) logOnHost(node, line);
    });
    connect(&m_roles, &RoleSupervisor::logLine, this, [this](const QString& node, const QString& stream, const QString& line) {
        sendEvent(control::event::kLog, node, {{QStringLiteral("stream"), stream}, {QStringLiteral("line"), line}});
        logOnHost(node, line);
    });

    m_sinceController.start();
    connect(&m_resendTimer, &QTimer::timeout, this, &AgentDaemon::resendUnacked);
    m_resendTimer.start(control::kResendMs);
    connect(&m_watchdog, &QTimer::timeout, this, &AgentDaemon::checkController);
    m_watchdog.start(1000);
}

AgentDaemon::~AgentDaemon() {
    m_socket->stop();
}

void AgentDaemon::onMessage(const QString& peer, const Message& m) {
    if (peer != QLatin1String(control::kControllerId)) {  // cannot happen: only the controller's key gets in
        std::fprintf(stderr, "hips-agent: ignored '%s' from '%s'\n", qPrintable(printableText(m.type)), qPrintable(printableText(peer)));
        return;
    }
    m_sinceController.restart();
    if (std::exchange(m_orphaned, false)) {
        std::fprintf(stderr, "hips-agent: a controller is back; it gets the %lld events it missed\n",
                     static_cast<long long>(m_journal.pending().size()));
        QTimer::singleShot(0, this, &AgentDaemon::resendUnacked);  // after its hello is answered
    }
    const QString& type = m.type;
    if (type == QLatin1String("hello")) {
        const bool compatible = m.integer(QStringLiteral("version")) == control::kProtocolVersion;
        if (compatible && m.fields.value(QStringLiteral("probe_devices")).toBool() && !m_devices) {
            probeDevices();  // the controller says hello every second: the answer comes with the first after it
            m_socket->post(peer, Message(QStringLiteral("probing")));  // keeps its silence clock at zero meanwhile
            return;
        }
        Message ok(QStringLiteral("hello_ok"), {{QStringLiteral("version"), control::kProtocolVersion},
                                                {QStringLiteral("agent_version"), QStringLiteral(HIPS_VERSION)},
                                                {QStringLiteral("compatible"), compatible},
                                                {QStringLiteral("host"), QSysInfo::machineHostName()},
                                                {QStringLiteral("pid"), QCoreApplication::applicationPid()},
                                                // What a controller that attaches checks against the history's mark:
                                                // a numbering that started again holds none of its run.
                                                {QStringLiteral("next_seq"), m_journal.nextSeq()}});
        if (m_devices) ok.fields.insert(QStringLiteral("devices"), *m_devices);
        control::answerClock(ok, m, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
        if (m_devices && m_devices->contains(QStringLiteral("error"))) m_devices.reset();  // said once, probed again next time
        m_socket->post(peer, std::move(ok));
        m_seen = 0;  // a controller saying hello has seen nothing of this agent's yet
        if (compatible) m_helloDone = true;  // (an incompatible one does not end the run this agent holds)
    } else if (!m_helloDone && type != QLatin1String("shutdown")) {
        // (A shutdown is taken whenever it comes: one during the device probe, which answers
        // "probing" in place of a hello, left the agent running after its run had ended.)
        std::fprintf(stderr, "hips-agent: '%s' before a compatible hello, ignored\n", qPrintable(type));
    } else if (type == QLatin1String("ping")) {
        Message pong(QStringLiteral("pong"));  // keeps the controller's silence clock at zero
        control::answerClock(pong, m, double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
        m_socket->post(peer, std::move(pong));
    } else if (type == QLatin1String("start")) {
        if (m_shuttingDown) {  // no new roles once stopping; say so, or the controller waits for it
            sendEvent(control::event::kExited, m.string(QStringLiteral("node")),
                      {{QStringLiteral("code"), -1},
                       {QStringLiteral("crashed"), false},
                       {QStringLiteral("error"), QStringLiteral("the agent is shutting down")}});
            return;
        }
        onStart(m);
    } else if (type == QLatin1String("stop")) {
        const QString node = m.string(QStringLiteral("node"));
        if (m_restarts.cancel(node))  // (no process to stop: it ends here, and says so)
            sendEvent(control::event::kExited, node,
                      {{QStringLiteral("code"), -1},
                       {QStringLiteral("crashed"), false},
                       {QStringLiteral("error"), QStringLiteral("its restart was cancelled: the controller stopped it")}});
        m_roles.stop(node);
    } else if (type == QLatin1String("stop_all")) {
        cancelRestarts();
        m_roles.stopAll();
    } else if (type == QLatin1String("shutdown")) {
        shutdown(QStringLiteral("the controller asked"));
    } else if (type == QLatin1String("ack")) {
        m_journal.acknowledge(m.integer(QStringLiteral("seq")));
        // Received, though not yet stored (its history may be busy): those need no resending.
        m_seen = std::max(m_seen, m.integer(QStringLiteral("seen")));
    }
}

void AgentDaemon::probeDevices() {
    if (m_probing) return;
    m_probing = true;
    auto* probe = new QProcess(this);
    auto done = [this, probe](const QString& error) {
        if (!m_probing) return;
        m_probing = false;
        const QByteArray line = probe->readAllStandardOutput().trimmed().split('\n').value(0);
        const QJsonObject json = QJsonDocument::fromJson(line).object();
        m_devices =
            error.isEmpty() && json.contains(QStringLiteral("torch"))
                ? QCborMap::fromJsonObject(json)
                : QCborMap{{QStringLiteral("error"), error.isEmpty() ? QStringLiteral("hips-trainer probe printed no answer") : error}};
        probe->deleteLater();
    };
    connect(probe, &QProcess::finished, this, [probe, done](int code, QProcess::ExitStatus status) {
        done(status == QProcess::NormalExit && code == 0 ? QString()
                                                         : QStringLiteral("hips-trainer probe failed: %1")
                                                               .arg(QString::fromUtf8(probe->readAllStandardError()).trimmed().left(300)));
    });
    connect(probe, &QProcess::errorOccurred, this, [probe, done](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) done(QStringLiteral("cannot start %1: %2").arg(probe->program(), probe->errorString()));
    });
    // CUDA's first start on a machine can take seconds; beyond a minute something is wrong.
    QTimer::singleShot(control::kDeviceProbeTimeoutMs, probe, [probe, done] {
        probe->kill();
        done(QStringLiteral("hips-trainer probe did not answer within %1 s").arg(control::kDeviceProbeTimeoutMs / 1000));
    });
    probe->start(QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("hips-trainer")), {QStringLiteral("probe")});
}

void AgentDaemon::onStart(const Message& m) {
    auto refuse = [&](const QString& node, const QString& why) {
        sendEvent(control::event::kExited, node,
                  {{QStringLiteral("code"), -1}, {QStringLiteral("crashed"), false}, {QStringLiteral("error"), why}});
    };
    QString error;
    const std::optional<StartCommand> start = StartCommand::fromMessage(m, m_runsRoot, QDir(QDir::homePath()).canonicalPath(), &error);
    if (!start) return refuse(m.string(QStringLiteral("node")), error);
    const QString outDir = realOutDir(start->outDir, &error);
    if (outDir.isEmpty()) return refuse(start->node, error);
    const TopologyLoad topology = TopologyReader::readJson(start->topologyJson.toUtf8());
    const auto nodeInfo = topology.ok() ? topology.topology->node(start->node) : std::nullopt;
    if (!nodeInfo)
        return refuse(start->node, topology.ok() ? QStringLiteral("node %1 is not in the topology it was sent with").arg(start->node)
                                                 : QStringLiteral("the topology sent with it is invalid: ") + topology.errorText());
    // A start for a node that still runs (or is stopping) starts nothing and leaves its files and
    // restarts as they are; it is said, not answered with an exit (the process still runs).
    if (m_roles.running(start->node))
        return sendEvent(control::event::kLog, start->node,
                         {{QStringLiteral("stream"), QStringLiteral("stderr")},
                          {QStringLiteral("line"), QStringLiteral("agent: %1 is still running (or stopping); the start sent for it "
                                                                  "was ignored: stop it first")
                                                       .arg(start->node)}});
    // LibTorch is loaded only by the processes that train, and by servers on a GPU.
    const QString program = runsInTrainer(*nodeInfo) ? QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("hips-trainer"))
                                                     : QCoreApplication::applicationFilePath();
    // Written atomically (write + rename): roles started a moment ago may be reading them.
    const QString topologyPath = QDir(outDir).filePath(QStringLiteral("topology.json"));
    const QString keysPath = QDir(outDir).filePath(QStringLiteral("peer-keys.txt"));
    if (const QString e = writeOnce(topologyPath, start->topologyJson.toUtf8()); !e.isEmpty()) return refuse(start->node, e);
    if (const QString e = writeOnce(keysPath, start->peerKeys.toText()); !e.isEmpty()) return refuse(start->node, e);
    RoleLaunch launch{start->node,
                      program,
                      topologyPath,
                      outDir,
                      start->threads,
                      start->nodeKey.toText(),
                      keysPath,
                      isTrainingRole(nodeInfo->kind) && m_trainerZygote,
                      start->placement,
                      QCryptographicHash::hash(start->topologyJson.toUtf8(), QCryptographicHash::Sha256).toHex(),
                      QCryptographicHash::hash(start->peerKeys.toText(), QCryptographicHash::Sha256).toHex()};
    launch.sharedTrainer = launch.forkFromZygote && topology.topology->sharesTrainer(*nodeInfo);
    const TrainingSettings& training = topology.topology->training;
    m_orphanTimeoutS = training.orphanTimeoutS;
    m_silenceS = training.agentTimeoutS;
    m_hostLogs.remove(start->node);  // (a node started again in another run writes there)
    if (start->logOnHost)
        if (const QString e = keepLogsOnHost(start->node, outDir); !e.isEmpty()) return refuse(start->node, e);
    m_restarts.remember(launch, training.continuesThroughFailures() && restartable(nodeInfo->kind, training)
                                    ? int(training.param(QStringLiteral("max_restarts")))
                                    : 0);
    m_roles.start(launch);
}

QString AgentDaemon::keepLogsOnHost(const QString& node, const QString& outDir) {
    const QString logsDir = QDir(outDir).filePath(QStringLiteral("logs"));
    if (const QString e = makePrivateDirectory(logsDir); !e.isEmpty()) return e;
    if (const QString e = checkOwnDirectory(logsDir); !e.isEmpty()) return e;  // (not a link planted there)
    m_hostLogs.insert(node, RoleLogFiles(logsDir));
    return {};
}

// A role's line in its log on this host. A write that fails (a full disk) is said once, in the
// log the controller keeps, and this host keeps no more of that role's log: the run goes on.
void AgentDaemon::logOnHost(const QString& node, const QString& line) {
    const auto it = m_hostLogs.find(node);
    if (it == m_hostLogs.end()) return;
    if (const QString e = it->append(node, line); !e.isEmpty()) {
        m_hostLogs.erase(it);
        sendEvent(control::event::kLog, node,
                  {{QStringLiteral("stream"), QStringLiteral("stderr")},
                   {QStringLiteral("line"), QStringLiteral("hips-agent: this host keeps no more of the log: ") + e}});
    }
}

// A role ended. Under fault_policy continue a crashed worker is started again after a backoff,
// and the controller is told so with the exit; otherwise its exit is final.
void AgentDaemon::onRoleExited(const QString& node, const RoleExitInfo& info) {
    QCborMap fields{
        {QStringLiteral("code"), info.exitCode}, {QStringLiteral("crashed"), info.crashed}, {QStringLiteral("error"), info.error}};
    int attempt = 0, maxRestarts = 0;
    const std::optional<int> delay = m_shuttingDown ? std::nullopt : m_restarts.planRestart(node, info, &attempt, &maxRestarts);
    if (delay) {
        fields.insert(QStringLiteral("restarting"), true);
        fields.insert(QStringLiteral("attempt"), attempt);
        fields.insert(QStringLiteral("max_restarts"), maxRestarts);
        fields.insert(QStringLiteral("delay_ms"), *delay);
        QTimer::singleShot(*delay, this, [this, node] {
            if (const std::optional<RoleLaunch> launch = m_restarts.takeDue(node)) m_roles.start(*launch);
        });
    }
    sendEvent(control::event::kExited, node, fields);
    quitWhenIdle();
}

// No restart once the run stops: each role whose restart was pending ends for good, and says so.
void AgentDaemon::cancelRestarts() {
    for (const QString& node : m_restarts.cancelAll())
        sendEvent(control::event::kExited, node,
                  {{QStringLiteral("code"), -1},
                   {QStringLiteral("crashed"), false},
                   {QStringLiteral("error"), QStringLiteral("its restart was cancelled: the run is stopping")}});
}

// Every node of a run brings the same topology and keys for the same directory: written (whole,
// atomically) the first time, and again only if they differ (a role moved here from a lost host:
// the topology says where it runs now), and then the roles here restart with the new file.
QString AgentDaemon::writeOnce(const QString& path, const QByteArray& bytes) {
    if (m_written.value(path) == bytes) return {};
    if (const QString e = writeFileAtomically(path, bytes); !e.isEmpty()) return e;
    m_restarts.fileRewritten(path, QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    if (m_written.size() > 64) m_written.clear();  // a standby agent serves run after run
    m_written.insert(path, bytes);
    return {};
}

// The checked output directory, created (0700) and confined once more with symbolic links
// resolved: a link inside the runs directory must not lead a role, or a new folder, out of it.
// The deepest folder that exists already is checked before anything is created below it, and
// every folder of it below the runs directory must be this user's, writable by no one else.
QString AgentDaemon::realOutDir(const QString& outDir, QString* error) const {
    auto confined = [this](const QString& path) {
        const QString real = QFileInfo(path).canonicalFilePath();
        return real == m_runsRoot || isInside(real, m_runsRoot);
    };
    QString existing = outDir;
    while (!QFileInfo::exists(existing)) existing = QFileInfo(existing).path();
    if (!confined(existing)) {
        *error = QStringLiteral("the output directory %1 leads outside %2").arg(outDir, m_runsRoot);
        return {};
    }
    if (const QString e = makePrivateDirectory(outDir); !e.isEmpty()) {
        *error = e;
        return {};
    }
    const QString real = QFileInfo(outDir).canonicalFilePath();
    if (!isInside(real, m_runsRoot)) {
        *error = QStringLiteral("the output directory %1 leads outside %2").arg(outDir, m_runsRoot);
        return {};
    }
    // Every folder of it below the runs directory is this user's alone: one another user made in
    // advance (a run's name guessed) would let them read what the run writes, or swap its files.
    // Nor can anyone rename it away from above to put theirs in its place after these checks.
    for (const QString& e : {checkOwnDirectoriesBelow(real, m_runsRoot), checkFoldersAboveAreSafe(real)})
        if (!e.isEmpty()) {
            *error = e;
            return {};
        }
    return real;
}

void AgentDaemon::sendEvent(const QString& kind, const QString& node, QCborMap fields) {
    fields.insert(QStringLiteral("kind"), kind);
    fields.insert(QStringLiteral("node"), node);
    const QCborMap& kept = m_journal.append(std::move(fields));
    if (controllerListens()) m_socket->post(QString::fromLatin1(control::kControllerId), Message(QStringLiteral("event"), kept));
}

// The controller pings every second: after three missed pings it is presumed not to listen (dead,
// stopped, cut off), and events wait in the journal instead of piling up in a dead connection.
bool AgentDaemon::controllerListens() const {
    return !m_orphaned && m_sinceController.elapsed() < 3 * control::kPingMs;
}

void AgentDaemon::resendUnacked() {
    // Events older than one resend period and still unacknowledged go again; the controller
    // drops duplicates by sequence number. (Every unacknowledged one went again: those sent a
    // moment before, not yet acknowledged, a quarter to half of all events, and they took the
    // budget a backlog needed.)
    const qint64 olderThanAPeriod = std::exchange(m_sentBeforeLastResend, m_journal.nextSeq() - 1);
    // While no controller listens, nothing is sent: the journal waits for the next one.
    if (!controllerListens()) return;
    // Those it says it received wait only for their storing: sent again, they would flood it.
    int budget = 5000;  // ~1 MB a period: a returning controller's backlog goes in seconds
    for (auto it = m_journal.unseenFrom(m_seen); it != m_journal.pending().end() && it.key() <= olderThanAPeriod && budget-- > 0; ++it)
        m_socket->post(QString::fromLatin1(control::kControllerId),
                       Message(QStringLiteral("event"), EventJournal::asSentAfter(it, m_seen)));
}

void AgentDaemon::checkController() {
    const qint64 silentMs = m_sinceController.elapsed();
    if (silentMs < qint64(m_silenceS) * 1000 || m_shuttingDown) return;
    QString why = QStringLiteral("no word from the controller for %1 s").arg(m_silenceS);
    // A run under way goes on without its controller for orphan_timeout_s, and one that ended
    // meanwhile keeps its events that long: a controller may attach again and take them.
    const bool underWay = m_roles.runningCount() + m_restarts.pendingCount() > 0;
    if (m_helloDone && m_orphanTimeoutS > 0 && (underWay || !m_journal.pending().isEmpty())) {
        if (!m_orphaned) {
            m_orphaned = true;
            std::fprintf(stderr,
                         "hips-agent: %s; its run goes on for up to %d s (orphan_timeout_s) for a controller "
                         "to attach (hips attach)\n",
                         qPrintable(why), m_orphanTimeoutS);
        }
        if (silentMs < qint64(m_orphanTimeoutS) * 1000) return;
        why = QStringLiteral("no controller for %1 s (orphan_timeout_s)").arg(m_orphanTimeoutS);
    }
    if (!m_standby) return shutdown(why, control::kAgentExitControllerSilent);
    if (!m_helloDone) return;  // waiting for a controller is what standby is for
    std::fprintf(stderr, "hips-agent: %s; stopping its roles and waiting for the next\n", qPrintable(why));
    cancelRestarts();
    m_roles.stopAll();
    m_helloDone = false;
    m_orphaned = false;
    m_journal.clear();  // its events have no reader any more
    m_hostLogs.clear();
}

void AgentDaemon::shutdown(const QString& reason, int exitCode) {
    if (m_shuttingDown) return;
    m_shuttingDown = true;
    m_exitCode = exitCode;
    if (reason != QLatin1String("the controller asked"))  // the normal end says nothing
        std::fprintf(stderr, "hips-agent: shutting down: %s\n", qPrintable(reason));
    cancelRestarts();
    m_roles.stopAll();
    quitWhenIdle();
}

void AgentDaemon::quitWhenIdle() {
    if (!m_shuttingDown || m_roles.runningCount() > 0) return;
    // "bye" tells a remote controller, which cannot see this process end, that it has.
    m_socket->post(QString::fromLatin1(control::kControllerId), Message(QStringLiteral("bye")));
    QTimer::singleShot(300, qApp, [code = m_exitCode] { QCoreApplication::exit(code); });  // let the last events leave
}

}  // namespace hips
