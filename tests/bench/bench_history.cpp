// Run-store ingest: metric rows per second through the writer thread (target >= 200,000).
#include "RunStore.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    QString error;
    auto store = hips::RunStore::open(dir.filePath("bench.sqlite"), &error);
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    const qint64 run = store->beginRun("bench", "{}", {});
    constexpr int kRows = 500000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRows; ++i) store->appendMetric(run, 1.0 + i * 1e-3, "party1/worker0", i / 100, "loss", 0.5);
    store->flush();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("metric ingest: %d rows in %.2f s = %.0f rows/s (target >= 200000); stored %lld\n", kRows, seconds,
                kRows / seconds, static_cast<long long>(store->metricCount(run)));
    return 0;
}
