#include "RunCommand.h"

#include "CommandLine.h"
#include "AggregatorRegistry.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "DeployCommand.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "DataFormatRegistry.h"
#include "TopologyAdvice.h"
#include "Partition.h"
#include "ResumeTarget.h"
#include "HistoryRecords.h"
#include "PrivacyBudget.h"
#include "RunController.h"
#include "RunOverrides.h"
#include "RunStore.h"
#include "TopologyReader.h"
#include "UnixSignals.h"
#include "Vocabulary.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <functional>
#include <tuple>
#include <cstdio>

namespace hips {

namespace {

// "1 process", "11 processes".
QString counted(qint64 n, const char* one, const char* many) {
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

// Settings that run but train poorly, each with what to use instead.
void printAdvice(const Topology& t) {
    for (const TopologyIssue& note : topologyAdvice(t)) std::printf("note: %s\n", qPrintable(note.toString()));
}

// "3 parties, 11 processes, 4 training workers" (each as many as the topology has).
QString sizeOf(const Topology& t) {
    return counted(t.parties.size(), "party", "parties") + QStringLiteral(", ") + counted(t.nodes().size(), "process", "processes") +
           QStringLiteral(", ") + counted(t.trainingWorkerCount(), "training worker", "training workers");
}

const QString kDefaultTopology = QStringLiteral(":/topologies/default.json");

QString megabytes(quint64 bytes) {
    return QString::number(double(bytes) / 1e6, 'f', 1);
}

int scoreWidth = 8;  // the score column: test_acc, or a regression's test_rmse (printHeader)
std::optional<Topology> privacyColumn;  // the run, its privacy settled: its rows end with epsilon

void printRow(const RoundRow& r) {
    const QString acc = std::isnan(r.testScore()) ? QStringLiteral("-") : QString::number(r.testScore(), 'f', 4);
    const QString loss = r.trainReports > 0 ? QString::number(r.trainLoss, 'f', 4) : QStringLiteral("-");
    std::printf("%5d  %*s  %7s  %9.0f  %9s  %9s  %7.1fs", r.round, scoreWidth, qPrintable(acc), qPrintable(loss), r.samplesPerSecond,
                qPrintable(megabytes(r.bytesInside)), qPrintable(megabytes(r.bytesAcross)), r.elapsed);
    // (The controller's, with its restarts' reruns; under sampling: the most draws.)
    if (privacyColumn) std::printf("  %8.3f", std::isnan(r.epsilon) ? privacyEpsilon(*privacyColumn, r.round) : r.epsilon);
    std::printf("\n");
    std::fflush(stdout);
}

void printHeader(bool regression, const std::optional<Topology>& privacy = std::nullopt) {
    scoreWidth = regression ? 9 : 8;
    privacyColumn = privacy && privacy->training.privacy ? privacy : std::nullopt;
    std::printf("%5s  %*s  %7s  %9s  %9s  %9s  %8s%s\n", "round", scoreWidth, regression ? "test_rmse" : "test_acc", "loss", "samples/s",
                "inside_MB", "across_MB", "elapsed", privacyColumn ? "   epsilon" : "");
}

void printSummary(const RunSummary& s, const char* command) {
    const QString score = s.regression ? QStringLiteral("test RMSE") : QStringLiteral("test accuracy");
    const QString accuracy =
        s.evaluated ? QStringLiteral("final %1 %2, best %3").arg(score).arg(s.finalAccuracy, 0, 'f', 4).arg(s.bestAccuracy, 0, 'f', 4)
                    : QStringLiteral("no %1 yet").arg(score);
    std::printf(
        "\n%s after %s in %.1f s: %s; %lld samples; "
        "%s MB inside parties, %s MB across parties\nrun directory: %s\n",
        s.ok        ? "finished"
        : s.stopped ? "stopped"
                    : "FAILED",
        qPrintable(counted(s.rounds, "round", "rounds")), s.seconds, qPrintable(accuracy), static_cast<long long>(s.samples),
        qPrintable(megabytes(s.bytesInside)), qPrintable(megabytes(s.bytesAcross)), qPrintable(s.runDir));
    if (const QString privacy = privacyText(s.toJson()); !privacy.isEmpty()) std::printf("privacy: %s\n", qPrintable(privacy));
    if (!s.ok) std::fprintf(stderr, "%s: %s\n", command, qPrintable(s.reason));
    std::fflush(stdout);
}

// RUN as the user gives it: a history id, or a run's directory.
std::optional<qint64> historyRunOf(const QString& run, const RunStore& store, QString* error) {
    bool isId = false;
    const qint64 id = run.toLongLong(&isId);
    if (isId && !QFileInfo(run).isDir()) {
        if (!store.run(id))
            return *error = QStringLiteral("%1 has no run %2 (hips history list shows them)").arg(store.path()).arg(id), std::nullopt;
        return id;
    }
    const QString runDir = QFileInfo(run).canonicalFilePath();
    const auto found = runDir.isEmpty() ? std::nullopt : store.runOfDirectory(runDir);
    if (!found)
        return *error = QStringLiteral(
                            "%1 is not the directory of a run in %2; pass the run's directory or its history "
                            "id, with --history if it was another history")
                            .arg(run, store.path()),
               std::nullopt;
    return found;
}

// What `hips run --resume RUN` goes on with: RUN is a run directory or a history id.
std::optional<ResumeTarget> resumeTarget(const QString& run, const RunStore& store, int rounds, QString* error) {
    const std::optional<qint64> id = historyRunOf(run, store, error);
    if (!id) return std::nullopt;
    return resumeTarget(store, *id, error, rounds);
}

std::optional<Topology> loadTopology(const QString& path) {
    const TopologyLoad load = TopologyReader::readFile(path);
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return std::nullopt;
    }
    return load.topology;
}

}  // namespace

int followRun(RunController& controller, const char* command, const std::function<bool()>& begin);

int validateCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.addPositionalArgument("topology", "Topology file to check.", "TOPOLOGY");
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips validate"));
    if (args.positionalArguments().size() != 1) {
        std::fprintf(stderr, "usage: hips validate TOPOLOGY\n");
        return 2;
    }
    const auto t = loadTopology(args.positionalArguments().first());
    if (!t) return 2;
    std::printf("%s: valid: %s\n", qPrintable(args.positionalArguments().first()), qPrintable(sizeOf(*t)));
    printAdvice(*t);
    return 0;
}

namespace {
int runOrSimulate(const QStringList& arguments, bool simulate);
}

int runCommand(const QStringList& arguments) {
    return runOrSimulate(arguments, false);
}

int simulateCommand(const QStringList& arguments) {
    return runOrSimulate(arguments, true);
}

namespace {

const char* const kSimulateIntro =
    "Simulate the run in this process on a virtual clock: every role at once, each step and message costing what it "
    "would deployed (a worker group's device_profile and availability, each party's wan), with the same rounds, rules and "
    "draws as hips run, into the same run directory and history.\n\n";

int runOrSimulate(const QStringList& arguments, bool simulate) {
    const QString command = simulate ? QStringLiteral("hips simulate") : QStringLiteral("hips run");
    QCommandLineParser args;
    args.setApplicationDescription(
        QString::fromLatin1(simulate ? kSimulateIntro : "") +
        QStringLiteral("Run a topology to the end (the shipped default when none is given).\n\nModes (--mode NAME, "
                       "parameters with --param NAME=VALUE):\n%1\nAggregation rules (--aggregation NAME, "
                       "--party-aggregation NAME):\n%2\nServer optimizers (--server-optimizer NAME):\n%3\n"
                       "Codecs (--compression NAME, --party-compression NAME):\n%8\nPartitions (--partition NAME):\n%4\nModels (--model "
                       "NAME, or --model FILE.pt saved with torch.jit.save):\n%5\nData sets (--dataset NAME):\n%6\n"
                       "Attacks (a worker group's, a party's or training's \"adversary\" in the topology):\n%7\n"
                       "Fault policies (--fault-policy NAME):\n%9")
            .arg(strategyHelp(ModeRegistry::all()), strategyHelp(AggregatorRegistry::all()), strategyHelp(ServerOptimizerRegistry::all()),
                 strategyHelp(PartitionRegistry::all()), strategyHelp(ModelRegistry::all()), strategyHelp(DatasetRegistry::all()),
                 strategyHelp(AdversaryRegistry::all()), strategyHelp(CodecRegistry::all()), strategyHelp(FaultPolicyRegistry::all())) +
        QStringLiteral("\nA party's own data (\"data\": {\"format\": NAME, \"path\": PATH, options} in the topology):\n%1")
            .arg(DataFormatRegistry::help()));
    args.addPositionalArgument("topology", "Topology file.", "[TOPOLOGY]");
    args.addOption({"out", "Run directory (default runs/<time>-<name>).", "DIR"});
    args.addOption({"resume",
                    "Go on with a stopped, failed or interrupted run (its directory or history id) from its "
                    "last checkpoint, into the same history run; with --rounds, to that many rounds (a "
                    "finished run too).",
                    "RUN"});
    args.addOption({"history", "Run history file (default: the user's application data directory).", "PATH", RunStore::defaultPath()});
    addOverrideOptions(args);
    args.addOption({"data-dir", "Folder of the data set's files (training.data_dir).", "DIR"});
    args.addOption({"mode", "Training mode (listed above).", "NAME"});
    args.addOption({"aggregation", "Aggregation rule at the global server (listed above).", "NAME"});
    args.addOption({"party-aggregation",
                    "Aggregation rule at the party servers (listed above; its parameters as "
                    "party_<name>, e.g. --param party_byzantine_f=1).",
                    "NAME"});
    args.addOption({"server-optimizer",
                    "The global server's optimizer of the round's aggregate: sgd (FedAvg), "
                    "momentum, adam, yogi or adagrad (server_lr, server_beta1, … with --param).",
                    "NAME"});
    args.addOption({"compression",
                    "How floats travel across parties: none, fp16, 2bit or topk (listed above; "
                    "codec_threshold, codec_ratio, codec_error_feedback with --param).",
                    "CODEC"});
    args.addOption({"party-compression", "The same inside parties (its parameters as party_<name>).", "CODEC"});
    args.addOption({"fault-policy",
                    "What a death or a silent process does: fail (the run stops, naming it) or continue "
                    "(rounds go on without it, crashed workers are restarted; min_workers, min_parties, "
                    "round_timeout_s, max_restarts with --param).",
                    "POLICY"});
    args.addOption({"transport-security",
                    "How the data plane is protected: sealed (the default: CURVE for identities and "
                    "headers, payloads sealed with AES-256-GCM beside it) or curve (ZeroMQ's CURVE seals "
                    "every byte: slower) (training.transport_security).",
                    "NAME"});
    args.addOption({"orphan-timeout",
                    "How long the run goes on if this controller dies or stops, for hips "
                    "attach to take it up (training.orphan_timeout_s, default 600; 0: it stops "
                    "with the controller).",
                    "S"});
    args.addOption({"agent-timeout",
                    "How long the controller and an agent wait for a word from each other before "
                    "they give up on it: a host lost is found this soon (training.agent_timeout_s, "
                    "default 10; raise it over links that stall).",
                    "S"});
    args.addOption({"flat",
                    "A single-layer parameter server (training.hierarchy flat): every worker pushes straight "
                    "to the global server; the baseline of the two-layer saving."});
    args.addOption({"servers",
                    "Key slicing: this many global servers and servers in every party, each holding a "
                    "slice of the model (a tensor below --slice-bound floats whole, by a hash of its key).",
                    "N"});
    args.addOption({"slice-bound", "Tensors of fewer floats go whole to one server (training.slice_bound, default 1024).", "FLOATS"});
    args.addOption({"wan",
                    "Every party's link to the central party, emulated: bandwidth in Mbit/s and one-way "
                    "latency in ms (a party's \"wan\" in the topology).",
                    "MBPS[,MS]"});
    args.addOption({"proximal-mu", "FedProx's proximal term μ at the workers (0: off).", "MU"});
    args.addOption({"partition", "How the training set is split among the workers (listed above).", "NAME"});
    args.addOption({"device",
                    "Where the workers and the master worker train: cpu or cuda:N; PARTY=DEVICE for one "
                    "party's (repeatable).",
                    "DEVICE"});
    args.addOption({"server-device",
                    "Where every server's robust rule works (krum, multi_krum, bulyan, "
                    "geometric_median): cpu or cuda:N.",
                    "DEVICE"});
    args.addOption({"param", "A parameter of the mode or a rule, e.g. dc_lambda=0.04 (repeatable).", "NAME=VALUE"});
    addSshOptions(args);
    args.addHelpOption();
    processCommand(args, arguments, command);
    if (args.positionalArguments().size() > 1) {  // (`hips run topo.json 50` ran 20 rounds)
        std::fprintf(stderr, "%s: one TOPOLOGY at most, got: %s (options are written --name VALUE; see %s --help)\n", qPrintable(command),
                     qPrintable(args.positionalArguments().join(QStringLiteral(" "))), qPrintable(command));
        return 2;
    }

    if (simulate && args.isSet("resume")) {
        std::fprintf(stderr, "hips simulate: a simulated run keeps no checkpoints to resume from; simulate it again from the start\n");
        return 2;
    }
    if (args.isSet("resume") && !QFileInfo::exists(args.value("history"))) {  // (opening it would make a new, empty one)
        std::fprintf(stderr, "hips run: there is no history at %s to resume a run of; pass the one it was run with (--history)\n",
                     qPrintable(args.value("history")));
        return 2;
    }
    QString historyError;
    const auto store = RunStore::open(args.value("history"), &historyError);
    if (!store) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(command), qPrintable(historyError));
        return 2;
    }
    std::optional<ResumeTarget> resume;
    if (args.isSet("resume")) {
        if (!args.positionalArguments().isEmpty() || args.isSet("out")) {
            std::fprintf(stderr,
                         "hips run: --resume goes on with the run's own topology and directory; give no "
                         "topology file or --out with it\n");
            return 2;
        }
        // They were silently ignored: the run goes on as it began, from its own topology.json,
        // but for its number of rounds (more, to go on with a finished run).
        QStringList given = overridesGiven(args);
        given.removeAll(QStringLiteral("--rounds"));
        if (!given.isEmpty()) {
            std::fprintf(stderr,
                         "hips run: --resume goes on with the run's own settings, which %s would change; "
                         "leave %s out, or start a new run with them\n",
                         qPrintable(given.join(QStringLiteral(", "))), given.size() == 1 ? "it" : "them");
            return 2;
        }
        int rounds = 0;  // as it was
        if (const QString e = readPositive(args, "rounds", rounds); !e.isEmpty()) {
            std::fprintf(stderr, "hips run: %s\n", qPrintable(e));
            return 2;
        }
        QString error;
        resume = resumeTarget(args.value("resume"), *store, rounds, &error);
        if (!resume) {
            std::fprintf(stderr, "hips run: cannot resume %s: %s\n", qPrintable(args.value("resume")), qPrintable(error));
            return 2;
        }
    }
    const QString path =
        resume ? QDir(resume->runDir).filePath(QStringLiteral("topology.json")) : args.positionalArguments().value(0, kDefaultTopology);
    auto topology = resume ? std::optional<Topology>(resume->topology) : loadTopology(path);
    if (!topology) return 2;
    if (const QString e = resume ? QString() : applyOverrides(args, *topology); !e.isEmpty()) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(command), qPrintable(e));
        return 2;
    }
    // The file was valid as read (loadTopology), so what is wrong now came with the options.
    if (const TopologyIssues issues = TopologyReader::validate(*topology); !issues.isEmpty()) {
        const QString origin = resume ? path : command + QStringLiteral(": with the options given");
        for (const TopologyIssue& i : issues) std::fprintf(stderr, "%s: %s\n", qPrintable(origin), qPrintable(i.toString()));
        return 2;
    }
    const TrainingSettings& s = topology->training;
    std::printf("hips %s with %s\n", HIPS_VERSION, HIPS_TORCH_FLAVOR);
    std::printf("%s: %s — %s, model %s on %s, mode %s, %s\n", qPrintable(command), qPrintable(topology->name),
                qPrintable(sizeOf(*topology)), qPrintable(s.torchScript() ? QFileInfo(s.modelFile).fileName() : s.model),
                qPrintable(topology->partiesBringData() ? QStringLiteral("the parties' own data") : s.dataset), qPrintable(s.mode),
                qPrintable(counted(s.rounds, "round", "rounds")));
    printAdvice(*topology);
    Topology settledRun = *topology;  // (the controller settles the run's own, and says what it settled)
    settlePrivacy(&settledRun);
    if (simulate) std::printf("on a virtual clock: elapsed is what the deployed run would take\n");
    printHeader(s.regression(), settledRun);

    if (resume)
        std::printf("resuming run %lld from the checkpoint of round %d\n", static_cast<long long>(resume->historyRun), s.resumeRound);
    if (resume && (s.compression != QLatin1String("none") || s.partyCompression != QLatin1String("none")))
        std::printf("the codecs' residuals start afresh (no checkpoint holds them): a compressed run resumes near, not bit for bit\n");
    RunController controller;
    controller.setStore(store.get());
    controller.setDeployOptions(deployOptionsFrom(args));
    controller.setSimulated(simulate);
    QString out = args.value("out");
    if (!resume && out.isEmpty() && (out = RunDirectory::freshDefaultPath(topology->name)).isEmpty()) {
        std::fprintf(stderr, "%s: cannot make a run directory under %s/runs; pass --out\n", qPrintable(command),
                     qPrintable(QDir::currentPath()));
        return 2;
    }
    return followRun(controller, simulate ? "hips simulate" : "hips run", [&] {
        return resume ? controller.resume(*topology, resume->runDir, resume->historyRun) : controller.start(*topology, out);
    });
}

}  // namespace

// `hips attach RUN`: takes up a run whose controller died or was stopped, printing its rounds
// so far and then the rest, as `hips run` would have.
int attachCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription(
        QStringLiteral("Take up a run still under way on its agents after its controller died or was stopped: reconnect, store "
                       "every event the history misses, and follow it to the end as hips run would."));
    args.addPositionalArgument("run", "The run: its history id or its directory.", "RUN");
    args.addOption({"history", "Run history file (default: the user's application data directory).", "PATH", RunStore::defaultPath()});
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips attach"));
    if (args.positionalArguments().size() != 1) {
        std::fprintf(stderr, "usage: hips attach RUN (a history id, see hips history list, or a run directory)\n");
        return 2;
    }
    if (!QFileInfo::exists(args.value("history"))) {  // (a mistyped path became a new, empty history)
        std::fprintf(stderr, "hips attach: there is no history at %s (--history PATH names it)\n", qPrintable(args.value("history")));
        return 2;
    }
    QString error;
    const auto store = RunStore::open(args.value("history"), &error);
    if (!store) {
        std::fprintf(stderr, "hips attach: %s\n", qPrintable(error));
        return 2;
    }
    const std::optional<qint64> run = historyRunOf(args.positionalArguments().first(), *store, &error);
    if (!run) {
        std::fprintf(stderr, "hips attach: %s\n", qPrintable(error));
        return 2;
    }
    std::printf("hips %s with %s\nhips attach: run %lld\n", HIPS_VERSION, HIPS_TORCH_FLAVOR, static_cast<long long>(*run));
    // The run's own columns: a regression's RMSE, and ε under privacy (a regression's showed under
    // test_acc, and ε not at all).
    if (const TopologyLoad load = TopologyReader::readJson(store->topologyJson(*run)); load.topology) {
        Topology settled = *load.topology;
        settlePrivacy(&settled);
        printHeader(settled.training.regression(), settled);
    } else {
        printHeader(false);
    }
    RunController controller;
    controller.setStore(store.get());
    return followRun(controller, "hips attach", [&] { return controller.attach(*run); });
}

// Prints a run's rounds, notices and outcome as they come, and returns its exit status (a
// signal stops the run: 128 + its number).
int followRun(RunController& controller, const char* command, const std::function<bool()>& begin) {
    QObject::connect(&controller, &RunController::deployProgress, [](const QString& host, const QString& stage) {
        std::printf("deploy %-12s %s\n", qPrintable(host), qPrintable(stage));
        std::fflush(stdout);
    });
    int signalExit = 0;
    UnixSignals signals;
    QObject::connect(&signals, &UnixSignals::received, &controller, [&](int sig) {
        signalExit = 128 + sig;
        controller.stop(QStringLiteral("interrupted by %1; stopped every process").arg(UnixSignals::name(sig)));
    });
    QObject::connect(&controller, &RunController::roundCompleted, &printRow);
    QObject::connect(&controller, &RunController::notice, [](const QString&, const QString& text) {
        std::printf("! %s\n", qPrintable(text));
        std::fflush(stdout);
    });
    QObject::connect(&controller, &RunController::metricRecord, [](const QJsonObject& r) {
        if (r.value(QStringLiteral("kind")).toString() != metric::kDevice ||
            r.value(QStringLiteral("device")).toString() == QLatin1String("cpu"))
            return;  // the CPU is the default: only GPUs get a line
        std::printf("%s %s\n", qPrintable(r.value(QStringLiteral("node")).toString()), qPrintable(describeDeviceRecord(r)));
        std::fflush(stdout);
    });
    int status = 1;
    QObject::connect(&controller, &RunController::finished, [&](const RunSummary& summary) {
        printSummary(summary, command);
        status = summary.ok ? 0 : (signalExit ? signalExit : 1);
        QCoreApplication::exit(status);
    });
    if (!begin()) {
        std::fprintf(stderr, "%s: %s\n", command, qPrintable(controller.error()));
        return 2;
    }
    QCoreApplication::exec();
    return status;
}

}  // namespace hips
