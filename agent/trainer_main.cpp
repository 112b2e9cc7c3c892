// hips-trainer: runs one worker or master-worker process (started by hips-agent).
//   hips-trainer role --topology FILE --node ID --out DIR
//   hips-trainer probe  (prints {"torch", "cuda", "gpus"} as one JSON line: what this host can train on)
//   hips-trainer zygote [ROOM]  (with the agent's socket on descriptor 3: forks trainers on demand)
// Kept apart from hips-agent so that only the processes that train load LibTorch.
#include "DeviceProbe.h"
#include "ProcessMemory.h"
#include "RoleRunner.h"
#include "TrainerZygote.h"
#include "TrainingRoles.h"

#include <QCborValue>
#include <QCoreApplication>
#include <QJsonDocument>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

static int roleMain(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("hips-trainer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QCommandLineParser args;
    args.setApplicationDescription(QStringLiteral("HiPS Studio worker and master-worker process"));
    args.addHelpOption();
    args.addVersionOption();
    args.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("role | zygote"));
    hips::addRoleOptions(args);
    args.process(app);
    if (args.positionalArguments().value(0) != QLatin1String("role")) {
        std::fprintf(stderr, "usage: hips-trainer role --topology FILE --node ID [--out DIR]\n");
        return 2;
    }
    return hips::runRoleFromArgs(args, hips::trainingRoles());
}

int main(int argc, char** argv) {
    ::umask(077);  // net.params and net.meta hold a model trained on private data
    hips::keepLargeAllocations();
    if (argc == 2 && std::strcmp(argv[1], "probe") == 0) {
        const QByteArray json = QJsonDocument(hips::probeDevices().toJsonObject()).toJson(QJsonDocument::Compact);
        std::printf("%s\n", json.constData());
        return 0;
    }
    if (argc >= 2 && std::strcmp(argv[1], "zygote") == 0) {
        struct stat agentSocket {};
        if (::fstat(3, &agentSocket) != 0 || !S_ISSOCK(agentSocket.st_mode)) {
            std::fprintf(stderr, "hips-trainer zygote: descriptor 3 must be the agent's socket (hips-agent starts it)\n");
            return 2;
        }
        const hips::zygote::CommandLineRoom title{argv[0], size_t(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0])};
        return hips::zygote::serve(3, title, roleMain);
    }
    return roleMain(argc, argv);
}
