// hips: the command-line face of the controller.
//   hips run [TOPOLOGY] [--rounds N] [--model NAME] [--out DIR] ...
//   hips validate TOPOLOGY
//   hips history list [--history PATH]
#include "HistoryCommand.h"
#include "RunCommand.h"

#include <QCoreApplication>
#include <cstdio>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("hips"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QStringList args = app.arguments();
    const QString command = args.value(1);
    args.removeAt(1 < args.size() ? 1 : 0);  // the sub-command's parser sees "hips <options>"
    if (command == QLatin1String("run")) return hips::runCommand(args);
    if (command == QLatin1String("validate")) return hips::validateCommand(args);
    if (command == QLatin1String("history")) return hips::historyCommand(args);
    if (command == QLatin1String("--version")) {
        std::printf("hips %s\n", HIPS_VERSION);
        return 0;
    }
    std::fprintf(stderr, "usage: hips run [TOPOLOGY] [options] | hips validate TOPOLOGY | hips history list"
                         "  (hips run --help)\n");
    return command.isEmpty() || command == QLatin1String("--help") ? 0 : 2;
}
