// hips-trainer: runs one worker or master-worker process (started by hips-agent).
//   hips-trainer role --topology FILE --node ID --out DIR
//   hips-trainer probe  (prints {"torch", "cuda", "gpus"} as one JSON line: what this host can train on)
//   hips-trainer model-info FILE  (a TorchScript model's SHA-256 and tensor sizes, as one JSON line)
//   hips-trainer export TOPOLOGY PARAMS torchscript|state_dict OUT  (a run's net.params for PyTorch: hips export)
//   hips-trainer check-data REQUEST  (a party's source read here: its counts, never its contents; DataCheck.h)
//   hips-trainer simulate TOPOLOGY OUT CLOCK_ORIGIN [THREADS]  (a whole run in this process on a virtual clock: hips simulate)
//   hips-trainer zygote [ROOM]  (with the agent's socket on descriptor 3: forks trainers on demand)
//   (forked by the zygote, with the agent's socket on descriptor 3: a shared trainer, SharedTrainer.h)
// Kept apart from hips-agent so that only the processes that train load LibTorch.
#include "DataCheck.h"
#include "DeviceProbe.h"
#include "LocalTrainer.h"
#include "TrainError.h"
#include "TopologyReader.h"
#include "ProcessMemory.h"
#include "RoleScope.h"
#include "RoleRunner.h"
#include "Simulation.h"
#include "SharedTrainer.h"
#include "TrainerZygote.h"
#include "TrainingRoles.h"

#include <QCborValue>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>
#include <csignal>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

static int sharedMain(int argc, char** argv);

// A role, or (forked by the zygote with the agent's socket on descriptor 3) a shared trainer.
static int roleMain(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "shared") == 0) return sharedMain(argc, argv);
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

// One role of a shared trainer, on its own thread (SharedTrainer.h): its command line as a
// trainer process's would be.
static int sharedRoleMain(const QStringList& arguments) {
    QCommandLineParser args;
    hips::addRoleOptions(args);
    if (!args.parse(arguments) || args.positionalArguments().value(0) != QLatin1String("role")) {
        std::fprintf(hips::roleErr(), "usage: hips-trainer role --topology FILE --node ID [--out DIR]: %s\n", qPrintable(args.errorText()));
        return hips::kRoleUsage;
    }
    return hips::runRoleFromArgs(args, hips::trainingRoles());
}

static int sharedMain(int argc, char** argv) {
    struct stat agentSocket {};
    if (::fstat(3, &agentSocket) != 0 || !S_ISSOCK(agentSocket.st_mode)) {
        std::fprintf(stderr, "hips-trainer shared: descriptor 3 must be the agent's socket (the agent's zygote forks it)\n");
        return 2;
    }
    QCoreApplication app(argc, argv);  // (image plugins are found through it)
    return hips::shared_trainer::serve(3, sharedRoleMain);
}

// What the controller sizes a run with a TorchScript model by: read here, where LibTorch is.
static int modelInfoMain(const char* file) {
    try {
        const hips::ScriptModelInfo info = hips::inspectScriptModel(QString::fromLocal8Bit(file));
        QJsonArray tensors;
        for (size_t n : info.tensors) tensors.append(qint64(n));
        const QJsonObject o{{"sha256", info.sha256},
                            {"tensors", tensors},
                            {"parameters", qint64(info.parameters)},
                            {"buffer_tensors", qint64(info.bufferTensors)},
                            {"torch", hips::torchVersion()}};
        std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

static int exportMain(char** argv) {
    const hips::TopologyLoad load = hips::TopologyReader::readFile(QString::fromLocal8Bit(argv[2]));
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return 2;
    }
    try {
        hips::exportTrainedModel(load.topology->training, QString::fromLocal8Bit(argv[3]), QString::fromLocal8Bit(argv[5]),
                                 std::strcmp(argv[4], "state_dict") == 0);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

// "Check data" for a designer or hips check-data elsewhere: the counts on stdout, or why not on stderr.
static int checkDataMain(int argc, char** argv) {
    QCoreApplication app(argc, argv);  // (image plugins are found through it)
    try {
        std::printf("%s\n", qPrintable(hips::runDataCheckRequest(QByteArray(argv[2]))));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

// hips simulate: every role of the topology in this process (Simulation.h); its records on stdout.
static int simulateMain(int argc, char** argv) {
    QCoreApplication app(argc, argv);  // (image plugins are found through it)
    const hips::TopologyLoad load = hips::TopologyReader::readFile(QString::fromLocal8Bit(argv[2]));
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return hips::kRoleUsage;
    }
    bool okOrigin = false, okThreads = true;
    const hips::sim::Options options{QString::fromLocal8Bit(argv[3]), QByteArray(argv[4]).toDouble(&okOrigin),
                                     argc > 5 ? QByteArray(argv[5]).toInt(&okThreads) : 0};
    if (!okOrigin || !okThreads || options.threads < 0) {
        std::fprintf(stderr, "usage: hips-trainer simulate TOPOLOGY OUT CLOCK_ORIGIN [THREADS]\n");
        return hips::kRoleUsage;
    }
    try {
        hips::sim::simulate(*load.topology, options);
        return hips::kRoleOk;
    } catch (const hips::RoleError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return hips::kRoleFailed;
    } catch (const std::exception& e) {  // (TrainError: the data, the model)
        std::fprintf(stderr, "%s\n", e.what());
        return hips::kRoleTrainFailed;
    }
}

static int trainerMain(int argc, char** argv) {
    if ((argc == 5 || argc == 6) && std::strcmp(argv[1], "simulate") == 0) return simulateMain(argc, argv);
    if (argc == 2 && std::strcmp(argv[1], "probe") == 0) {
        const QByteArray json = QJsonDocument(hips::probeDevices().toJsonObject()).toJson(QJsonDocument::Compact);
        std::printf("%s\n", json.constData());
        return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "model-info") == 0) return modelInfoMain(argv[2]);
    if (argc == 6 && std::strcmp(argv[1], "export") == 0) return exportMain(argv);
    if (argc == 3 && std::strcmp(argv[1], "check-data") == 0) return checkDataMain(argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "zygote") == 0) {
        struct stat agentSocket {};
        if (::fstat(3, &agentSocket) != 0 || !S_ISSOCK(agentSocket.st_mode)) {
            std::fprintf(stderr, "hips-trainer zygote: descriptor 3 must be the agent's socket (hips-agent starts it)\n");
            return 2;
        }
        // Its stderr, and its shared trainers' (forked from it, as every forked role), is the
        // controller's terminal in a local run: `hips run … 2>&1 | head` must not end them at the
        // next stray warning (QProcess set SIGPIPE back to its default for this process).
        ::signal(SIGPIPE, SIG_IGN);
        const hips::zygote::CommandLineRoom title{argv[0], size_t(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0])};
        // A role's first torch::set_num_threads builds LibTorch's pthreadpool, starting (and at
        // once stopping) a spinning thread: 3 ms of CPU in every trainer of a 64-worker start.
        // Set here, once, it is inherited built: at one thread it holds no thread to lose in a fork.
        hips::setTorchThreads(1);
        return hips::zygote::serve(3, title, roleMain);
    }
    return roleMain(argc, argv);
}

int main(int argc, char** argv) {
    ::umask(077);  // net.params and net.meta hold a model trained on private data
    hips::keepLargeAllocations();
    const int code = trainerMain(argc, argv);
    // Each command has closed what it wrote; LibTorch's static destructors would take 2 s of CPU
    // deregistering its operators at every exit (a run's end, a probe, a model's check), for nothing.
    std::fflush(nullptr);
    _exit(code);
}
