// hips-agent: the per-host daemon, and the runner of one scheduler or server process.
//   hips-agent daemon [--bind ENDPOINT]
//   hips-agent role --topology FILE --node ID --out DIR
// Workers and the master worker run in hips-trainer (trainer_main.cpp), the one that loads LibTorch.
#include "AgentDaemon.h"
#include "ProcessMemory.h"
#include "RoleRunner.h"
#include "UnixSignals.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QCoreApplication>
#include <csignal>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <sys/stat.h>

using namespace hips;

// The agent's key pair and the controller's public key, two lines: from the file a deployment
// writes (mode 0600), or from HIPS_AGENT_KEYS, set by the controller that starts a local agent
// (no other user can read a process's environment).
static bool parseKeys(const QByteArray& text, CurveConfig* curve, QByteArray* controllerKey) {
    const QList<QByteArray> lines = text.split('\n');
    curve->own = CurveKeyPair::fromText(lines.value(0));
    *controllerKey = lines.value(1).trimmed();
    return !curve->own.isNull() && controllerKey->size() == 40;
}

// Empty when the keys were read; else what is wrong with them, and where they were looked for.
static QString readKeys(const QCommandLineParser& args, CurveConfig* curve, QByteArray* controllerKey) {
    if (!args.isSet(QStringLiteral("keys"))) {
        if (qEnvironmentVariable("HIPS_AGENT_KEYS_STDIN") == QLatin1String("1")) {
            qunsetenv("HIPS_AGENT_KEYS_STDIN");  // (the roles read their own)
            return parseKeys(readSecretFromStdin(4096), curve, controllerKey)
                       ? QString()
                       : QStringLiteral("the keys on its standard input are malformed");
        }
        const QByteArray fromEnv = qgetenv("HIPS_AGENT_KEYS");
        qunsetenv("HIPS_AGENT_KEYS");  // not for the roles it starts
        if (fromEnv.isEmpty()) return QStringLiteral("HIPS_AGENT_KEYS is not set");
        return parseKeys(fromEnv, curve, controllerKey) ? QString() : QStringLiteral("HIPS_AGENT_KEYS is malformed");
    }
    QFile f(args.value(QStringLiteral("keys")));
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("cannot read %1: %2").arg(f.fileName(), f.errorString());
    return parseKeys(f.read(4096), curve, controllerKey) ? QString() : QStringLiteral("%1 holds malformed keys").arg(f.fileName());
}

// Where roles may write: --runs-root, or runs/ beside the agent's bin/ folder (a deployment's
// install directory). Created private if absent. Empty, with *tried set, when it cannot be.
static QString runsRoot(const QCommandLineParser& args, QString* tried) {
    QString root = args.value(QStringLiteral("runs-root"));
    if (root.isEmpty()) root = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../runs"));
    *tried = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
    errno = 0;
    if (!QDir().mkpath(root) || !QFileInfo(root).isDir()) {
        *tried += errno ? QStringLiteral(" (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))) : QString();
        return {};
    }
    return QFileInfo(root).canonicalFilePath();
}

static int runDaemon(QCoreApplication& app, const QCommandLineParser& args) {
    CurveConfig curve;
    QByteArray controllerKey;
    if (const QString wrong = readKeys(args, &curve, &controllerKey); !wrong.isEmpty()) {
        std::fprintf(stderr,
                     "hips-agent: no valid keys (%s); agents are started by hips run, hips-studio or hips deploy, "
                     "which make them\n",
                     qPrintable(wrong));
        return 2;
    }
    // A controller that died leaves its end of our stdout and stderr closed: a line written there
    // must fail, not kill the agent that keeps its run going (orphan_timeout_s).
    std::signal(SIGPIPE, SIG_IGN);
    QString tried;
    const QString root = runsRoot(args, &tried);
    if (root.isEmpty()) {
        std::fprintf(stderr, "hips-agent: cannot create the runs directory %s; pass --runs-root with a folder it may write in\n",
                     qPrintable(tried));
        return 2;
    }
    try {
        AgentDaemon daemon(args.value(QStringLiteral("bind")), args.isSet(QStringLiteral("standby")), curve, controllerKey, root);
        UnixSignals signals;
        QObject::connect(&signals, &UnixSignals::received, &daemon,
                         [&daemon](int s) { daemon.shutdown(QStringLiteral("received %1").arg(UnixSignals::name(s))); });
        // The controller reads this line to learn the port picked for "tcp://127.0.0.1:*".
        std::printf("HIPS-AGENT-ENDPOINT %s\n", qPrintable(daemon.endpoint()));
        std::fflush(stdout);
        return app.exec();
    } catch (const zmq::error_t& e) {
        std::fprintf(stderr, "hips-agent: cannot listen on %s: %s; choose a free port\n", qPrintable(args.value(QStringLiteral("bind"))),
                     e.what());
        return 2;
    }
}

int main(int argc, char** argv) {
    ::umask(077);  // runs hold models trained on private data: nothing we write is for other users
    hips::keepLargeAllocations();  // servers receive every model slice into a fresh ZeroMQ buffer
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("hips-agent"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QCommandLineParser args;
    args.setApplicationDescription(QStringLiteral("HiPS Studio host agent and role runner"));
    args.addHelpOption();
    args.addVersionOption();
    args.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("daemon | role"));
    args.addOption({QStringLiteral("bind"), QStringLiteral("Control endpoint (daemon)."), QStringLiteral("endpoint"),
                    QStringLiteral("tcp://127.0.0.1:*")});
    args.addOption({QStringLiteral("keys"), QStringLiteral("CURVE keys file written by the deployment (daemon)."), QStringLiteral("file")});
    args.addOption({QStringLiteral("runs-root"), QStringLiteral("Roles write only below this directory (daemon)."), QStringLiteral("dir")});
    args.addOption({QStringLiteral("standby"), QStringLiteral("Outlive controllers: wait for the next one (deployed agents).")});
    addRoleOptions(args);
    args.process(app);

    const QString mode = args.positionalArguments().value(0);
    if (mode == QLatin1String("daemon")) return runDaemon(app, args);
    if (mode == QLatin1String("role")) return runRoleFromArgs(args, coordinationRoles());
    std::fprintf(stderr, "hips-agent: say 'daemon' or 'role' (see --help)\n");
    return 2;
}
