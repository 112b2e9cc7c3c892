// Run-history speed:
//   metric ingest through the writer thread        target >= 200,000 rows/s
//   `history list` over 1,000 runs                  target <= 100 ms
//   an agent event stored and committed, one at a time, with metrics.jsonl made durable before
//   the commit that names its length against without (the baseline, in the same run)
// The list is timed twice: the query and formatting inside this process (median of 5), and
// the whole `hips history list` command as a user runs it (process start included).
#include "RoleLogFiles.h"
#include "RunStore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void benchIngest(hips::RunStore& store) {
    const qint64 run = store.beginRun("bench", "{}", {});
    constexpr int kRows = 500000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRows; ++i) store.appendMetric(run, 1.0 + i * 1e-3, "party1/worker0", i / 100, "loss", 0.5);
    store.flush();
    const double s = seconds(start);
    std::printf("metric ingest: %d rows in %.2f s = %.0f rows/s (target >= 200000); stored %lld\n", kRows, s, kRows / s,
                static_cast<long long>(store.metricCount(run)));
    store.deleteRun(run);
    store.flush();
}

// A run as the default topology writes it: 4 workers, 20 rounds, every metric and traffic row.
void writeTypicalRun(hips::RunStore& store, int index) {
    const qint64 run = store.beginRun(QStringLiteral("run%1").arg(index), "{}", {});
    const double t0 = 1.7e9 + index * 100.0;
    for (int round = 1; round <= 20; ++round) {
        const double t = t0 + round;
        for (int w = 0; w < 4; ++w) {
            const QString node = QStringLiteral("party%1/worker%2").arg(1 + w / 2).arg(w % 2);
            for (const char* name : {"train.loss", "train.samples", "train.compute_s", "train.comm_s"})
                store.appendMetric(run, t, node, round, name, 1.0);
            store.appendTraffic(run, {t, node + ">server0", "inside", 1000000LL * round, round});
        }
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.apply_s", 0.01);
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.round_s", 1.0);
        store.appendMetric(run, t, "central/master_worker", round, "eval.test_acc", 0.5 + round * 0.01);
        store.appendMetric(run, t, "central/master_worker", round, "eval.test_loss", 1.0 / round);
        for (int p = 1; p <= 2; ++p)
            store.appendTraffic(run,
                                {t, QStringLiteral("party%1/server0>central/global_server0").arg(p), "across", 2000000LL * round, round});
    }
    store.finishRun(run, "finished", {});
}

void benchList(hips::RunStore& store, const QString& path) {
    constexpr int kRuns = 1000;
    const auto fill = std::chrono::steady_clock::now();
    for (int i = 0; i < kRuns; ++i) writeTypicalRun(store, i);
    store.flush();
    std::printf("history of %d runs written in %.1f s\n", kRuns, seconds(fill));

    std::vector<double> times;
    int listed = 0;
    for (int i = 0; i < 5; ++i) {
        const auto start = std::chrono::steady_clock::now();
        QByteArray text;
        for (const auto& [run, facts] : store.runList()) {  // what `hips history list` prints
            text +=
                QString::asprintf("%4lld %-20s %s %8.4f %8.4f %6d %9.1f\n", static_cast<long long>(run.id), qPrintable(run.name),
                                  qPrintable(run.status), facts.bestAccuracy, facts.finalAccuracy, facts.rounds, facts.bytesAcross / 1e6)
                    .toUtf8();
            ++listed;
        }
        times.push_back(seconds(start));
    }
    std::sort(times.begin(), times.end());
    std::printf("history list, %d runs, query and format: median %.1f ms (min %.1f, max %.1f; target <= 100 ms)\n", listed / 5,
                times[2] * 1e3, times.front() * 1e3, times.back() * 1e3);

    const QString hips = QStringLiteral(HIPS_BIN_DIR "/hips");
    if (!QFile::exists(hips)) return;
    times.clear();
    for (int i = 0; i < 5; ++i) {
        QProcess p;
        const auto start = std::chrono::steady_clock::now();
        p.start(hips, {"history", "list", "--history", path});
        p.waitForFinished(60000);
        times.push_back(seconds(start));
    }
    std::sort(times.begin(), times.end());
    std::printf("`hips history list` command, %d runs, whole process: median %.1f ms (min %.1f, max %.1f)\n", kRuns, times[2] * 1e3,
                times.front() * 1e3, times.back() * 1e3);
}

// A controller's agent events, each as it stores one: a line appended to metrics.jsonl, the
// event's rows and the agent's mark in one commit, then waiting until it is committed (the
// acknowledgement). Median of kEvents, alternating without and with the file made durable first.
void benchAgentEvents(hips::RunStore& store, const QString& dir) {
    constexpr int kEvents = 200;
    hips::AppendFile metrics(dir + "/metrics.jsonl");
    if (const QString e = metrics.open(); !e.isEmpty()) return (void)std::fprintf(stderr, "%s\n", qPrintable(e));
    const std::function<QString()> durable = metrics.durability();
    const qint64 run = store.beginRun("events", "{}", {});
    std::vector<double> plain, synced;
    for (int i = 0; i < 2 * kEvents; ++i) {
        const bool sync = i % 2 == 1;
        const auto start = std::chrono::steady_clock::now();
        metrics.append(QByteArray(R"({"kind":"train","node":"party1/worker0","round":)") + QByteArray::number(i) +
                       R"(,"loss":0.5,"samples":640,"compute_s":0.1,"comm_s":0.01})" + '\n');
        store.beginGroup();
        for (const char* name : {"train.loss", "train.samples", "train.compute_s", "train.comm_s"})
            store.appendMetric(run, 1.7e9 + i, "party1/worker0", i, name, 1.0);
        store.markAgentEvent(run, "localhost", i, metrics.size(), sync ? durable : std::function<QString()>());
        store.endGroup();
        store.flush();
        (sync ? synced : plain).push_back(seconds(start));
    }
    std::sort(plain.begin(), plain.end());
    std::sort(synced.begin(), synced.end());
    const double p = plain[kEvents / 2], d = synced[kEvents / 2];
    std::printf(
        "agent event stored and committed: median %.2f ms with metrics.jsonl made durable first, %.2f ms without: %.2fx "
        "(90th percentile %.2f / %.2f ms)\n",
        d * 1e3, p * 1e3, d / p, synced[kEvents * 9 / 10] * 1e3, plain[kEvents * 9 / 10] * 1e3);
    store.deleteRun(run);
    store.flush();
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;  // or keep the history at argv[1], to look into it afterwards
    const QString path = argc > 1 ? QString::fromLocal8Bit(argv[1]) : dir.filePath("bench.sqlite");
    QString error;
    auto store = hips::RunStore::open(path, &error);
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    benchIngest(*store);
    benchAgentEvents(*store, QFileInfo(path).absolutePath());
    benchList(*store, path);
    return 0;
}
