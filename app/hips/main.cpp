// hips: the command-line face of the controller.
//   hips run [TOPOLOGY] [--rounds N] [--model NAME] [--out DIR] ...
//   hips simulate [TOPOLOGY] [hips run's options]
//   hips validate TOPOLOGY
//   hips check-data TOPOLOGY
//   hips history list [TEXT] | show RUN | delete RUN | rename RUN NAME | tag RUN TAG... | note RUN TEXT
//   hips report RUN --out FILE.{html,pdf,csv,json} [--history PATH]
//   hips export RUN [--format torchscript|state_dict] FILE
#include "CheckDataCommand.h"
#include "DeployCommand.h"
#include "ExportCommand.h"
#include "HistoryCommand.h"
#include "RunCommand.h"
#include "StrategyReference.h"  // (hips reference: headless builds too)
#ifdef HIPS_WITH_REPORTS
#include "ReportCommand.h"

#include <QApplication>
#endif

#include <QCoreApplication>
#include <QDir>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

static constexpr const char* kUsage =
    "usage: hips run [TOPOLOGY] [options]      train (the shipped default topology when none is given)\n"
    "       hips simulate [TOPOLOGY] [options]\n"
    "                                          the same run in one process on a virtual clock (hips run's options)\n"
    "       hips attach RUN                    take up a run whose controller died or was stopped\n"
    "       hips validate TOPOLOGY             check a topology file\n"
    "       hips deploy TOPOLOGY               put hips-agent on every remote host (SSH)\n"
    "       hips check-data TOPOLOGY           what each party's own data holds, read on its hosts (counts only)\n"
    "       hips stop TOPOLOGY                 stop the roles and agents of those hosts\n"
    "       hips history list [TEXT]           the runs (those whose id, name, status, reason, tags or notes hold TEXT)\n"
    "       hips history show|delete RUN       one run's details; or remove it\n"
    "       hips history rename|tag|note RUN   label a run (a name; tags, \"\" clears them; a note)\n"
    "       hips report RUN --out FILE.{html,pdf,csv,json}\n"
    "       hips export RUN [--format torchscript|state_dict] FILE   the trained model for PyTorch\n"
    "       hips reference                     every mode, rule, codec, … and parameter, as Markdown\n"
    "       hips COMMAND --help                options of a command\n";

int main(int argc, char** argv) {
    // The history, run directories and checkpoints hold what was trained on private data: they
    // are for this user only, whatever the umask. A closed stdout (`hips run | head -3`) must
    // not end a run: writes to it fail quietly instead of raising SIGPIPE. Line-buffered stdout
    // keeps its lines and stderr's in the order they happened in a log (`hips run > log 2>&1`).
    ::umask(077);
    ::signal(SIGPIPE, SIG_IGN);
    std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
    const bool report = argc > 1 && std::strcmp(argv[1], "report") == 0;
    // Reports draw charts (Qt Charts needs a QApplication); with no display, draw offscreen.
    if (report && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (report && qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {  // else Qt warns on every start
        const QByteArray dir = QDir::tempPath().toLocal8Bit() + "/runtime-" + QByteArray::number(getuid());
        if (::mkdir(dir.constData(), 0700) == 0 || errno == EEXIST) qputenv("XDG_RUNTIME_DIR", dir);
    }
#ifdef HIPS_WITH_REPORTS
    std::unique_ptr<QCoreApplication> app =
        report ? std::make_unique<QApplication>(argc, argv) : std::make_unique<QCoreApplication>(argc, argv);
#else
    auto app = std::make_unique<QCoreApplication>(argc, argv);
#endif
    QCoreApplication::setApplicationName(QStringLiteral("hips"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QStringList args = app->arguments();
    const QString command = args.value(1);
    args.removeAt(1 < args.size() ? 1 : 0);  // the sub-command's parser sees "hips <options>"
    if (command == QLatin1String("run")) return hips::runCommand(args);
    if (command == QLatin1String("simulate")) return hips::simulateCommand(args);
    if (command == QLatin1String("attach")) return hips::attachCommand(args);
    if (command == QLatin1String("validate")) return hips::validateCommand(args);
    if (command == QLatin1String("history")) return hips::historyCommand(args);
    if (command == QLatin1String("deploy")) return hips::deployCommand(args);
    if (command == QLatin1String("check-data")) return hips::checkDataCommand(args);
    if (command == QLatin1String("stop")) return hips::stopCommand(args);
    if (command == QLatin1String("export")) return hips::exportCommand(args);
    if (command == QLatin1String("reference")) {
        std::printf("%s", qPrintable(hips::strategyReferenceMarkdown()));
        return 0;
    }
#ifdef HIPS_WITH_REPORTS
    if (report) return hips::reportCommand(args);
#else
    if (report) {
        std::fprintf(stderr,
                     "hips report: this hips was built without reports (HIPS_BUILD_UI=OFF); export the "
                     "report with a full build's hips, or see the run with `hips history show RUN`\n");
        return 2;
    }
#endif
    if (command == QLatin1String("--version") || command == QLatin1String("-V")) {
        std::printf("hips %s\n", HIPS_VERSION);
        return 0;
    }
    const bool asked =
        command.isEmpty() || command == QLatin1String("--help") || command == QLatin1String("-h") || command == QLatin1String("help");
    if (!asked) std::fprintf(stderr, "hips: unknown command '%s'\n", qPrintable(command));
    std::fprintf(asked ? stdout : stderr, "%s", kUsage);
    return asked ? 0 : 2;
}
