#include "ReportCommand.h"

#include "CommandLine.h"
#include "ReportWriter.h"
#include "RunStore.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <cstdio>

namespace hips {

int reportCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription("Exports a run of the history as a report; the format is the extension of --out.");
    args.addPositionalArgument("RUN", "Run id (see `hips history list`).");
    args.addOption({"out", "Report file: .html (self-contained), .pdf, .csv (metrics) or .json.", "FILE"});
    args.addOption({"history", "History file (default: the user's application data directory).", "PATH", RunStore::defaultPath()});
    args.addOption({"target", "Accuracy whose time-to-reach the summary shows.", "ACC", "0.85"});
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips report"));
    const QStringList words = args.positionalArguments();
    bool idOk = false, targetOk = false;
    const qint64 id = words.value(0).toLongLong(&idOk);
    const double target = args.value("target").toDouble(&targetOk);
    if (words.size() != 1 || !args.isSet("out")) {
        std::fprintf(stderr, "usage: hips report RUN --out FILE.{html,pdf,csv,json} [--history PATH] [--target ACC]\n");
        return 2;
    }
    if (!idOk || id <= 0) {
        std::fprintf(stderr, "hips report: RUN is a run's id, a number (see `hips history list`); got '%s'\n", qPrintable(words.first()));
        return 2;
    }
    if (!targetOk || !(target > 0 && target <= 1)) {  // (NaN is neither above nor below)
        std::fprintf(stderr, "hips report: --target must be an accuracy between 0 and 1, not '%s'\n", qPrintable(args.value("target")));
        return 2;
    }
    QString error;
    const auto store = RunStore::open(args.value("history"), &error, RunStore::ReadOnly);  // a report never writes
    if (!store) {
        std::fprintf(stderr, "hips report: %s\n", qPrintable(error));
        return 2;
    }
    QElapsedTimer timer;
    timer.start();
    const auto report = RunReport::load(*store, id, target, &error);
    if (!report || !store->readError().isEmpty()) {  // (a report of what a failed read left out is no report)
        std::fprintf(stderr, "hips report: %s; nothing written\n", qPrintable(store->readError().isEmpty() ? error : store->readError()));
        return 2;
    }
    if (const QString e = writeReport(*report, args.value("out")); !e.isEmpty()) {
        std::fprintf(stderr, "hips report: %s\n", qPrintable(e));
        return 2;
    }
    std::printf("wrote %s (run %lld, %d metric points) in %.2f s\n", qPrintable(args.value("out")), static_cast<long long>(id),
                report->metricPointCount(), double(timer.nsecsElapsed()) / 1e9);
    return 0;
}

}  // namespace hips
