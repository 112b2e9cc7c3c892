#include "ExportCommand.h"

#include "CommandLine.h"
#include "LocalAgentLauncher.h"
#include "RunStore.h"
#include "TopologyReader.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <cstdio>

namespace hips {

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "hips export: %s\n", qPrintable(message));
    return 2;
}

}  // namespace

// The weights are the run's last evaluated model (net.params): LibTorch reads and writes them, so
// hips-trainer (beside hips-agent) does the conversion; hips itself never loads LibTorch.
int exportCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription(
        "Writes a run's trained model for PyTorch: a TorchScript model as the same module "
        "with its trained weights, any model as a state_dict (torch.load reads both).");
    args.addPositionalArgument("RUN", "Run id (see `hips history list`).");
    args.addPositionalArgument("FILE", "The file to write (model.pt).");
    args.addOption({"format",
                    "torchscript (a TorchScript model's only) or state_dict; default: torchscript for a "
                    "TorchScript model, else state_dict.",
                    "FORMAT"});
    args.addOption({"history", "History file (default: the user's application data directory).", "PATH", RunStore::defaultPath()});
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips export"));
    const QStringList words = args.positionalArguments();
    if (words.size() != 2) return fail("usage: hips export RUN [--format torchscript|state_dict] FILE");
    bool idOk = false;
    const qint64 id = words[0].toLongLong(&idOk);
    if (!idOk || id <= 0) return fail(QStringLiteral("RUN is a run's id, a number (see `hips history list`); got '%1'").arg(words[0]));
    const QString format = args.value("format");
    if (!format.isEmpty() && format != QLatin1String("torchscript") && format != QLatin1String("state_dict"))
        return fail(QStringLiteral("--format is torchscript or state_dict, not '%1'").arg(format));
    QString error;
    const auto store = RunStore::open(args.value("history"), &error, RunStore::ReadOnly);
    if (!store) return fail(error);
    if (!store->run(id)) return fail(QStringLiteral("there is no run %1 in the history; see `hips history list`").arg(id));
    const QString dir = store->runDirectory(id);
    const QString params = QDir(dir).filePath(QStringLiteral("net.params"));
    if (dir.isEmpty() || !QFileInfo::exists(params))
        return fail(QStringLiteral("run %1 left no trained model (%2 is missing): it ended before its first evaluation, "
                                   "or its directory was removed")
                        .arg(id)
                        .arg(params));
    const TopologyLoad load = TopologyReader::readFile(QDir(dir).filePath(QStringLiteral("topology.json")));
    if (!load.ok()) return fail(load.errorText());
    const bool script = load.topology->training.torchScript();
    if (format == QLatin1String("torchscript") && !script)
        return fail(QStringLiteral("run %1 trained the built-in model %2, which PyTorch loads as a state_dict: use "
                                   "--format state_dict (docs/topology.md: \"The trained model in PyTorch\")")
                        .arg(id)
                        .arg(load.topology->training.model));
    const bool stateDict = format == QLatin1String("state_dict") || (format.isEmpty() && !script);
    QProcess trainer;
    trainer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    trainer.start(QFileInfo(LocalAgentLauncher::agentPath()).absolutePath() + QStringLiteral("/hips-trainer"),
                  {QStringLiteral("export"), QDir(dir).filePath(QStringLiteral("topology.json")), params,
                   stateDict ? QStringLiteral("state_dict") : QStringLiteral("torchscript"), words[1]});
    if (!trainer.waitForFinished(300000) || trainer.exitStatus() != QProcess::NormalExit || trainer.exitCode() != 0)
        return fail(QStringLiteral("the model could not be written to %1 (%2)").arg(words[1], trainer.errorString()));
    std::printf("wrote %s (run %lld, %s)\n", qPrintable(words[1]), static_cast<long long>(id), stateDict ? "a state_dict" : "TorchScript");
    return 0;
}

}  // namespace hips
