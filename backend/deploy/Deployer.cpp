#include "Deployer.h"

#include "PrintableText.h"

#include "PartyLauncher.h"

#include "CurveSecurity.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

namespace hips {

namespace {

const QStringList kBinaries = {QStringLiteral("hips-agent"), QStringLiteral("hips-trainer")};

}  // namespace

QString shellQuote(const QString& s) {
    return '\'' + QString(s).replace('\'', QStringLiteral("'\\''")) + '\'';
}

// The host key prompt `options` ask for: --accept-new-host-keys takes a new (never a changed) key.
static HostKeyPrompt hostKeyPromptOf(const DeployOptions& options) {
    return options.acceptNewHostKeys ? HostKeyPrompt([](const QString&, const QString&, const std::atomic<bool>&) { return true; })
                                     : options.hostKeyPrompt;
}

QString connectToHost(SshSession& ssh, const Host& host, const DeployOptions& options, const std::atomic<bool>* cancelled) {
    ssh.setCancelFlag(cancelled);
    const SshTarget target{host.id, host.address, host.sshPort, host.user, host.identityFile, options.knownHosts, options.timeoutSeconds};
    if (QString e = ssh.connect(target, hostKeyPromptOf(options)); !e.isEmpty()) return e;
    return ssh.authenticate(options.secretPrompt);
}

QString withRemoteHome(SshSession& ssh, const QString& hostId, QString* path) {
    if (!path->startsWith(QLatin1Char('~'))) return {};
    CommandResult home;
    if (QString e = ssh.run(QStringLiteral("printf %s \"$HOME\""), &home); !e.isEmpty()) return e;
    const QString dir = QString::fromUtf8(home.out);
    if (!home.ok() || !dir.startsWith(QLatin1Char('/')))
        return QStringLiteral(
                   "host '%1': its user's home directory cannot be told ($HOME is '%2'); give its install_dir as an "
                   "absolute path")
            .arg(hostId, printableText(dir, 100));
    *path = dir + path->mid(1);
    return {};
}

// "~/.hips" → "$HOME/.hips", expanded by the remote shell; anything else quoted as it is.
QString remoteDir(const QString& path) {
    QString dir = path;
    while (dir.size() > 1 && dir.endsWith(QLatin1Char('/'))) dir.chop(1);  // (a trailing slash makes a link look like its target)
    if (dir == QLatin1String("~")) return QStringLiteral("\"$HOME\"");
    if (dir.startsWith(QLatin1String("~/"))) return QStringLiteral("\"$HOME\"/") + shellQuote(dir.mid(2));
    return shellQuote(dir);
}

// `dirs` (shell words) are this user's own folders (a link too, if the link is its own), and no
// one else may write there: what runs from them and the keys kept in them are the user's alone.
// (A folder another user made first, or could write to, let them swap the agent after its upload
// and before it ran, or read its keys.)
static QString ownFolders(const QStringList& dirs) {
    QStringList checks;
    for (const QString& d : dirs)
        checks << QStringLiteral("[ -O %1 ] && { [ ! -L %1 ] || [ -n \"$(find %1 -maxdepth 0 -user \"$(id -u)\")\" ]; }").arg(d);
    return QStringLiteral(
               "{ { %1; } || { echo \"install_dir is not this user's own folder: another user could change what runs "
               "there; choose a folder of your own\" >&2; exit 3; }; } && { chmod go-w %2 || { echo \"cannot make "
               "install_dir writable by its owner alone (chmod go-w)\" >&2; exit 3; }; }")
        .arg(checks.join(QStringLiteral(" && ")), dirs.join(' '));
}

QList<Host> remoteHosts(const Topology& topology) {
    QList<Host> out;
    const QSet<QString> noAgent = hostsWithoutSshAgent(topology);  // (Slurm parties' hosts, login hosts)
    for (const Host& h : topology.hosts)
        if (!h.isLoopback() && !noAgent.contains(h.id)) out << h;
    return out;
}

QString Deployer::packageFor(const QString& library) {
    static const QList<std::pair<QString, QString>> table = {
        {"libQt6Core", "libqt6core6"},
        {"libQt6Network", "libqt6network6"},
        {"libQt6Sql", "libqt6sql6"},
        {"libtorch", "libtorch1.13"},
        {"libc10", "libtorch1.13"},
        {"libzmq", "libzmq5"},
        {"libssh", "libssh-4"},
        {"libopenblas", "libopenblas0-pthread"},
        {"libblas", "libopenblas0-pthread"},
        {"libz.", "zlib1g"},
        {"libsodium", "libsodium23"},
        {"libgomp", "libgomp1"},
        {"libprotobuf", "libprotobuf32"},
    };
    for (const auto& [prefix, package] : table)
        if (library.startsWith(prefix)) return package;
    return QStringLiteral("(apt-file search %1)").arg(library);
}

Deployer::Deployer(QObject* parent) : QObject(parent) {}

Deployer::~Deployer() {
    m_cancelled = true;
    for (std::thread& t : m_threads) t.join();
}

void Deployer::start(const Topology& topology, const DeployOptions& options, const QString& onlyHost) {
    QList<Host> hosts = remoteHosts(topology);
    if (!onlyHost.isEmpty()) hosts.removeIf([&](const Host& h) { return h.id != onlyHost; });
    m_pending = int(hosts.size());
    if (hosts.isEmpty()) {
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished(m_results); }, Qt::QueuedConnection);
        return;
    }
    for (const Host& host : hosts)
        m_threads.emplace_back([this, host, options] {
            HostDeployment result = deployHost(host, options);
            QMetaObject::invokeMethod(
                this,
                [this, result] {
                    m_results << result;
                    Q_EMIT hostFinished(result);
                    if (--m_pending == 0) Q_EMIT finished(m_results);
                },
                Qt::QueuedConnection);
        });
}

QString Deployer::uploadModel(SshSession& ssh, const Host& host, const QString& installPath, const DeployOptions& options, bool* uploaded) {
    if (options.modelFile.isEmpty()) return {};
    const QString where = QStringLiteral("host '%1' (%2)").arg(host.id, host.address), dir = remoteDir(host.installDir);
    const QString name = options.modelSha256 + QStringLiteral(".pt");
    CommandResult there;
    const QString check = QStringLiteral("mkdir -p %1/models && %3 && cd %1/models && (sha256sum %2 2>/dev/null || true)")
                              .arg(dir, name, ownFolders({dir + "/models"}));
    if (QString e = ssh.run(check, &there); !e.isEmpty()) return e;
    if (!there.ok())
        return QStringLiteral("%1: cannot prepare %2/models (%3); check install_dir and its permissions")
            .arg(where, host.installDir, QString::fromUtf8(there.err).trimmed());
    if (there.out.startsWith(options.modelSha256.toUtf8() + ' ')) return {};  // the same file is there
    QFile f(options.modelFile);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("%1: cannot read the model %2 on this machine to upload it (%3)").arg(where, f.fileName(), f.errorString());
    const QByteArray bytes = f.readAll();
    if (QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex() != options.modelSha256.toUtf8())
        return QStringLiteral("%1: the model %2 changed since the run was started (its SHA-256 differs); start the run again")
            .arg(where, f.fileName());
    QMetaObject::invokeMethod(
        this, [this, id = host.id] { Q_EMIT progress(id, QStringLiteral("uploading the model")); }, Qt::QueuedConnection);
    if (m_cancelled) return QStringLiteral("%1: deployment cancelled").arg(where);
    if (QString e = ssh.upload(bytes, installPath + QStringLiteral("/models/") + name, 0644); !e.isEmpty()) return e;
    *uploaded = true;
    return {};
}

HostDeployment Deployer::deployHost(const Host& host, const DeployOptions& options) {
    QElapsedTimer clock;
    clock.start();
    HostDeployment r;
    r.host = host.id;
    auto stage = [&](const QString& what) {
        QMetaObject::invokeMethod(
            this, [this, id = host.id, what] { Q_EMIT progress(id, what); }, Qt::QueuedConnection);
        return !m_cancelled;  // false: give up here
    };
    auto failed = [&](const QString& error) {
        r.error = error;
        r.seconds = double(clock.nsecsElapsed()) / 1e9;
        return r;
    };
    const QString where = QStringLiteral("host '%1' (%2)").arg(host.id, host.address);

    // The local build to upload, and its checksums.
    QList<QByteArray> binaries, sums;
    for (const QString& name : kBinaries) {
        QFile f(QDir(options.binDir).filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            return failed(QStringLiteral("%1: cannot read %2 on this machine to upload it; build it first").arg(where, f.fileName()));
        binaries << f.readAll();
        sums << QCryptographicHash::hash(binaries.last(), QCryptographicHash::Sha256).toHex();
    }

    if (!stage(QStringLiteral("connecting"))) return failed(QStringLiteral("%1: deployment cancelled").arg(where));
    SshSession ssh;
    ssh.setCancelFlag(&m_cancelled);
    const SshTarget target{host.id, host.address, host.sshPort, host.user, host.identityFile, options.knownHosts, options.timeoutSeconds};
    if (QString e = ssh.connect(target, hostKeyPromptOf(options)); !e.isEmpty()) return failed(e);
    if (!stage(QStringLiteral("authenticating"))) return failed(QStringLiteral("%1: deployment cancelled").arg(where));
    if (QString e = ssh.authenticate(options.secretPrompt); !e.isEmpty()) return failed(e);

    if (!stage(QStringLiteral("probing"))) return failed(QStringLiteral("%1: deployment cancelled").arg(where));
    const QString dir = remoteDir(host.installDir);
    CommandResult probe;
    const QString probeCommand = QStringLiteral(
                                     "uname -sm && mkdir -p %1/bin %1/runs && %3 && df -Pk %1 | tail -1 && "
                                     "(cd %1/bin && sha256sum %2 2>/dev/null || true)")
                                     .arg(dir, kBinaries.join(' '), ownFolders({dir, dir + "/bin", dir + "/runs"}));
    if (QString e = ssh.run(probeCommand, &probe); !e.isEmpty()) return failed(e);
    if (!probe.ok())
        return failed(QStringLiteral("%1: cannot prepare %2 (%3); check install_dir and its permissions")
                          .arg(where, host.installDir, QString::fromUtf8(probe.err).trimmed()));
    const QStringList lines = QString::fromUtf8(probe.out).split('\n', Qt::SkipEmptyParts);
    r.system = lines.value(0).trimmed();
    if (!r.system.startsWith(QLatin1String("Linux")))
        return failed(QStringLiteral("%1 runs %2; HiPS Studio's agent runs on Linux").arg(where, r.system));
    const qint64 freeKb = lines.value(1).simplified().split(' ').value(3).toLongLong();
    qint64 needKb = 0;
    for (const QByteArray& b : binaries) needKb += b.size() / 1024 + 1;
    if (freeKb > 0 && freeKb < needKb + 1024)
        return failed(QStringLiteral("%1 has %2 MB free under %3, the agent needs %4 MB; free some space")
                          .arg(where)
                          .arg(freeKb / 1024)
                          .arg(host.installDir)
                          .arg(needKb / 1024 + 1));

    // SFTP paths are not expanded by a shell: "~" becomes the remote $HOME here.
    QString installPath = host.installDir;
    if (QString e = withRemoteHome(ssh, host.id, &installPath); !e.isEmpty()) return failed(e);
    for (int i = 0; i < kBinaries.size(); ++i) {
        const bool same = probe.out.contains(sums[i] + "  " + kBinaries[i].toUtf8());
        if (same) continue;
        if (!stage(QStringLiteral("uploading %1").arg(kBinaries[i]))) return failed(QStringLiteral("%1: deployment cancelled").arg(where));
        if (QString e = ssh.upload(binaries[i], installPath + QStringLiteral("/bin/") + kBinaries[i], 0755); !e.isEmpty()) return failed(e);
        r.uploaded = true;
    }

    if (QString e = uploadModel(ssh, host, installPath, options, &r.uploaded); !e.isEmpty()) return failed(e);

    // Keys for this deployment, over SSH: the agent's own pair and the one controller key it admits.
    if (options.controllerPublicKey.size() != 40)
        return failed(QStringLiteral("%1: no controller key to give the agent (a bug: the deployment must make one)").arg(where));
    const CurveKeyPair agentKeys = CurveKeyPair::generate();
    if (agentKeys.isNull()) return failed(QStringLiteral("%1: cannot make CURVE keys: this libzmq lacks CURVE").arg(where));
    if (QString e =
            ssh.upload(agentKeys.toText() + '\n' + options.controllerPublicKey + '\n', installPath + QStringLiteral("/agent.keys"), 0600);
        !e.isEmpty())
        return failed(e);
    r.agentPublicKey = agentKeys.publicKey;

    // One command checks the libraries, replaces any previous agent on this port and starts the
    // new one, which waits for a controller (one round trip, not three: parallel deployments
    // share this machine's CPU).
    if (!stage(QStringLiteral("checking libraries and starting the agent")))
        return failed(QStringLiteral("%1: deployment cancelled").arg(where));
    const QString endpoint = tcpEndpoint(host.address, host.agentPort);
    const QString startCommand =
        QStringLiteral(
            "cd %1 && missing=$(ldd bin/hips-agent bin/hips-trainer | grep 'not found'); "
            "if [ -n \"$missing\" ]; then echo \"$missing\"; exit 3; fi; "
            "(if [ -f agent.pid ]; then old=$(cat agent.pid); grep -q hips-agent /proc/$old/cmdline 2>/dev/null && kill $old && "
            "for i in $(seq 200); do kill -0 $old 2>/dev/null || break; sleep 0.05; done; fi; rm -f agent.log; "
            "setsid nohup bin/hips-agent daemon --standby --keys agent.keys --bind %2 > agent.log 2>&1 < /dev/null & "
            "echo $! > agent.pid) && "
            "for i in $(seq 250); do grep -q HIPS-AGENT-ENDPOINT agent.log && exit 0; sleep 0.02; done; cat agent.log; exit 1")
            // Any interface (NAT, names); a host given by an IPv6 address listens on IPv6's.
            .arg(dir, shellQuote((host.address.contains(QLatin1Char(':')) ? QStringLiteral("tcp://[::]:%1") : QStringLiteral("tcp://*:%1"))
                                     .arg(host.agentPort)));
    CommandResult started;
    if (QString e = ssh.run(startCommand, &started, 20); !e.isEmpty()) {
        // Seen once in CI: the command's channel never closed although the agent had started.
        // Ask again on a fresh channel before calling it a failure.
        CommandResult check;
        if (!ssh.run(QStringLiteral("cd %1 && grep -q HIPS-AGENT-ENDPOINT agent.log").arg(dir), &check, 10).isEmpty() || !check.ok())
            return failed(e);
        started = check;
    }
    if (started.exitStatus == 3) {
        QStringList missing;
        static const QRegularExpression notFound(QStringLiteral(R"(^\s*(\S+) => not found)"), QRegularExpression::MultilineOption);
        for (auto it = notFound.globalMatch(QString::fromUtf8(started.out)); it.hasNext();) {
            const QString lib = it.next().captured(1);
            const QString entry = QStringLiteral("%1 (%2)").arg(lib, packageFor(lib));
            if (!missing.contains(entry)) missing << entry;
        }
        return failed(QStringLiteral("%1 lacks libraries the agent needs: %2; install those Debian packages there")
                          .arg(where, missing.join(QStringLiteral(", "))));
    }
    if (!started.ok())
        return failed(QStringLiteral("%1: the agent did not start: %2").arg(where, QString::fromUtf8(started.out + started.err).trimmed()));
    r.ok = true;
    r.agentEndpoint = endpoint;
    r.seconds = double(clock.nsecsElapsed()) / 1e9;
    return r;
}

}  // namespace hips
