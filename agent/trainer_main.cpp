// hips-trainer: runs one worker or master-worker process (started by hips-agent).
//   hips-trainer role --topology FILE --node ID --out DIR
// Kept apart from hips-agent so that only the processes that train load LibTorch.
#include "ProcessTuning.h"
#include "RoleRunner.h"
#include "TrainingRoles.h"

#include <QCoreApplication>
#include <cstdio>
#include <sys/stat.h>

int main(int argc, char** argv) {
    ::umask(077);  // net.params and net.meta hold a model trained on private data
    hips::keepLargeAllocations();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("hips-trainer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QCommandLineParser args;
    args.setApplicationDescription(QStringLiteral("HiPS Studio worker and master-worker process"));
    args.addHelpOption();
    args.addVersionOption();
    args.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("role"));
    hips::addRoleOptions(args);
    args.process(app);
    if (args.positionalArguments().value(0) != QLatin1String("role")) {
        std::fprintf(stderr, "usage: hips-trainer role --topology FILE --node ID [--out DIR]\n");
        return 2;
    }
    return hips::runRoleFromArgs(args, hips::trainingRoles());
}
