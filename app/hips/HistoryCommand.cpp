#include "HistoryCommand.h"

#include "RunStore.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <cstdio>

namespace hips {

static QString accuracy(double a) { return a < 0 ? QStringLiteral("-") : QString::number(a, 'f', 4); }

static int listRuns(const RunStore& store) {
    std::printf("%4s  %-20s  %-19s  %9s  %-11s  %8s  %8s  %6s  %9s\n", "id", "name", "start", "duration", "status",
                "best_acc", "final", "rounds", "across_MB");
    for (const RunRecord& r : store.runs()) {
        const RunFacts f = store.facts(r.id);
        const QString start = QDateTime::fromMSecsSinceEpoch(qint64(r.started * 1000)).toString("yyyy-MM-dd HH:mm:ss");
        const QString duration = r.ended > 0 ? QString::number(r.ended - r.started, 'f', 1) + 's' : QStringLiteral("-");
        std::printf("%4lld  %-20s  %-19s  %9s  %-11s  %8s  %8s  %6d  %9.1f\n", static_cast<long long>(r.id),
                    qPrintable(r.name.left(20)), qPrintable(start), qPrintable(duration), qPrintable(r.status),
                    qPrintable(accuracy(f.bestAccuracy)), qPrintable(accuracy(f.finalAccuracy)), f.rounds,
                    f.bytesAcross / 1e6);
    }
    return 0;
}

int historyCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription("The run history. Sub-command: list.");
    args.addPositionalArgument("command", "list");
    args.addOption({"history", "History file (default: the user's application data directory).", "PATH",
                    RunStore::defaultPath()});
    args.addHelpOption();
    args.process(arguments);
    if (args.positionalArguments().value(0) != QLatin1String("list")) {
        std::fprintf(stderr, "usage: hips history list [--history PATH]\n");
        return 2;
    }
    QString error;
    const auto store = RunStore::open(args.value("history"), &error);
    if (!store) {
        std::fprintf(stderr, "hips history: %s\n", qPrintable(error));
        return 2;
    }
    return listRuns(*store);
}

}  // namespace hips
