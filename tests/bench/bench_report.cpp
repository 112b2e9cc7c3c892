// Report speed: a run with 10,000 metric points exported in each format, from opening the
// history to the file on disk (target <= 2 s each). Median of 3.
#include "ReportWriter.h"
#include "RunReport.h"
#include "RunStore.h"
#include "SyntheticRun.h"

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>

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
    return 0;
}
