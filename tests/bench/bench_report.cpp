// Report speed: a run with 10,000 metric points exported in each format, from opening the
// history to the file on disk (target <= 2 s each). Median of 3. Then a global server with
// thousands of links (a simulated run of many parties): its run read for a report and for the
// charts (each traffic record's links were searched row by row: quadratic in the links).
#include "ReportWriter.h"
#include "RunReport.h"
#include "RunStore.h"
#include "StoredRecords.h"
#include "SyntheticRun.h"

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>

// A global server that sends to `links` parties, over 10 rounds: a traffic row per link and round.
static bool wideTraffic(const QString& path) {
    constexpr int kLinks = 5000, kRounds = 10;
    QString error;
    auto store = hips::RunStore::open(path, &error);
    if (!store) return std::fprintf(stderr, "%s\n", qPrintable(error)), false;
    QFile topology(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    topology.open(QIODevice::ReadOnly);
    const qint64 run = store->beginRun("bench-wide", topology.readAll(), {{"rounds", kRounds}});
    const double t0 = store->run(run)->started;
    for (int round = 1; round <= kRounds; ++round)
        for (int l = 0; l < kLinks; ++l)
            store->appendTraffic(run, {t0 + round, QStringLiteral("central/global_server0>p%1/server0").arg(l), QStringLiteral("across"),
                                       qint64(round) * 1000000, round});
    store->finishRun(run, "finished", {});
    if (!store->flush()) return std::fprintf(stderr, "%s\n", qPrintable(store->writeError())), false;
    const auto timed = [](const auto& f) {
        const auto start = std::chrono::steady_clock::now();
        f();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    bool loaded = false;
    qsizetype records = 0;
    const double report = timed([&] { loaded = hips::RunReport::load(*store, run, 0.85, &error).has_value(); });
    const double charts = timed([&] { records = hips::storedRecords(*store, run).size(); });
    if (!loaded) return std::fprintf(stderr, "%s\n", qPrintable(error)), false;
    std::printf("a global server's %d links x %d rounds: read for a report %.2f s, for the charts %.2f s (%lld records)\n", kLinks, kRounds,
                report, charts, static_cast<long long>(records));
    return true;
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir dir;
    const QString path = dir.filePath("bench.sqlite");
    QString error;
    qint64 run = 0;
    {
        auto store = hips::RunStore::open(path, &error);
        if (!store) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        QFile topology(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        topology.open(QIODevice::ReadOnly);
        run = hips::bench::writeSyntheticRun(*store, "bench-report", topology.readAll(), 500, 0.5);  // 10,000 points
    }
    for (const QString& format : hips::reportFormats()) {
        std::vector<double> times;
        int points = 0;
        qint64 bytes = 0;
        for (int i = 0; i < 3; ++i) {
            const auto start = std::chrono::steady_clock::now();
            auto store = hips::RunStore::open(path, &error);
            const auto report = hips::RunReport::load(*store, run, 0.85, &error);
            const QString out = dir.filePath("report." + format);
            if (const QString e = hips::writeReport(*report, out); !e.isEmpty()) {
                std::fprintf(stderr, "%s\n", qPrintable(e));
                return 1;
            }
            times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            points = report->metricPointCount();
            bytes = QFile(out).size();
        }
        std::sort(times.begin(), times.end());
        std::printf("report %-4s of %d metric points: median %.2f s (min %.2f, max %.2f; target <= 2 s), %lld bytes\n", qPrintable(format),
                    points, times[1], times[0], times[2], static_cast<long long>(bytes));
    }
    return wideTraffic(dir.filePath("wide.sqlite")) ? 0 : 1;
}
