// hips-agent: the per-host daemon, and the runner of one scheduler or server process.
//   hips-agent daemon [--bind ENDPOINT]
//   hips-agent role --topology FILE --node ID --out DIR
// Workers and the master worker run in hips-trainer (trainer_main.cpp), the one that loads LibTorch.
#include "AgentDaemon.h"
#include "RoleRunner.h"
#include "UnixSignals.h"

#include <QCommandLineParser>
#include <QFile>
#include <QCoreApplication>
#include <cstdio>

using namespace hips;

// The keys file a deployment writes (mode 0600): the agent's key pair and the controller's public key.
static bool readKeys(const QString& path, CurveConfig* curve, QByteArray* controllerKey) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    const QList<QByteArray> lines = f.readAll().split('\n');
    curve->own = CurveKeyPair::fromText(lines.value(0));
    *controllerKey = lines.value(1).trimmed();
    return !curve->own.isNull() && controllerKey->size() == 40;
}

static int runDaemon(QCoreApplication& app, const QCommandLineParser& args) {
    CurveConfig curve;
    QByteArray controllerKey;
    if (args.isSet(QStringLiteral("keys")) && !readKeys(args.value(QStringLiteral("keys")), &curve, &controllerKey)) {
        std::fprintf(stderr, "hips-agent: cannot read the keys in %s; deploy again\n", qPrintable(args.value(QStringLiteral("keys"))));
        return 2;
    }
    try {
        AgentDaemon daemon(args.value(QStringLiteral("bind")), args.isSet(QStringLiteral("standby")), curve, controllerKey);
        UnixSignals signals;
        QObject::connect(&signals, &UnixSignals::received, &daemon, [&daemon](int s) {
            daemon.shutdown(QStringLiteral("received %1").arg(UnixSignals::name(s)));
        });
        // The controller reads this line to learn the port picked for "tcp://127.0.0.1:*".
        std::printf("HIPS-AGENT-ENDPOINT %s\n", qPrintable(daemon.endpoint()));
        std::fflush(stdout);
        return app.exec();
    } catch (const zmq::error_t& e) {
        std::fprintf(stderr, "hips-agent: cannot listen on %s: %s; choose a free port\n",
                     qPrintable(args.value(QStringLiteral("bind"))), e.what());
        return 2;
    }
}

int main(int argc, char** argv) {
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
    args.addOption({QStringLiteral("keys"), QStringLiteral("CURVE keys file written by the deployment (daemon)."),
                    QStringLiteral("file")});
    args.addOption({QStringLiteral("standby"), QStringLiteral("Outlive controllers: wait for the next one (deployed agents).")});
    addRoleOptions(args);
    args.process(app);

    const QString mode = args.positionalArguments().value(0);
    if (mode == QLatin1String("daemon")) return runDaemon(app, args);
    if (mode == QLatin1String("role")) return runRoleFromArgs(args, coordinationRoles());
    std::fprintf(stderr, "hips-agent: say 'daemon' or 'role' (see --help)\n");
    return 2;
}
