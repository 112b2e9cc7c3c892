// GUI speed:
//   the live charts taking 10,000 points a second (5 s, 5 charts on screen): the event loop's
//   longest stall, measured by a 5 ms probe timer           target <= 40 ms
//   opening a stored run of 100,000 metric points into the charts        target <= 1 s
//   a run of 1,000 workers (20 parties x 50): each round's 1,000 train and 1,040 usage records
//   into the charts, a line per party (the default above 16 workers) against a line per worker
#include "HistoryPanel.h"
#include "LiveChart.h"
#include "MainWindow.h"
#include "RunCharts.h"
#include "RunStore.h"
#include "Topology.h"
#include "SyntheticRun.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace {

void benchLiveAppends() {
    hips::RunCharts charts;
    charts.resize(1500, 800);
    charts.show();
    QApplication::processEvents();
    QElapsedTimer clock;
    clock.start();
    constexpr int kPointsPerSecond = 10000, kSeconds = 5, kBatchMs = 10;
    int appended = 0;
    QTimer feeder;
    // Every 10 ms, the points due by now, spread over the charts' lines as a run's metrics are.
    QObject::connect(&feeder, &QTimer::timeout, [&] {
        const int due = int(clock.elapsed() * kPointsPerSecond / 1000);
        for (; appended < due; ++appended) {
            hips::LiveChart* chart = charts.charts()[appended % 5];
            const double x = appended / 5.0;
            chart->append(0, x, 1.7e12 + x * 10, x / 100, std::sin(x / 500.0) + 1.5);
        }
    });
    feeder.start(kBatchMs);
    qint64 last = 0, longest = 0;
    QTimer probe;
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longest = std::max(longest, now - last);
        last = now;
    });
    probe.start(5);
    int redrawsBefore = 0;
    for (hips::LiveChart* c : charts.charts()) redrawsBefore += c->redrawCount();
    QEventLoop loop;
    QTimer::singleShot(kSeconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    int redraws = -redrawsBefore;
    for (hips::LiveChart* c : charts.charts()) redraws += c->redrawCount();
    std::printf(
        "live charts: %d points in %.1f s (%.0f points/s), %d redraws (%.1f per chart per second), "
        "%lld points on the busiest line, %lld drawn; longest event-loop stall %lld ms (target <= 40 ms)\n",
        appended, clock.elapsed() / 1000.0, appended * 1000.0 / clock.elapsed(), redraws, redraws / 5.0 / (clock.elapsed() / 1000.0),
        static_cast<long long>(charts.accuracy()->pointCount(0)), static_cast<long long>(charts.accuracy()->drawnPointCount(0)),
        static_cast<long long>(longest));
}

void benchOpenStoredRun() {
    QTemporaryDir dir;
    const QString path = dir.filePath("history.sqlite");
    qint64 run = 0;
    {
        QString error;
        auto store = hips::RunStore::open(path, &error);
        run = hips::bench::writeSyntheticRun(*store, "bench-100k", "{}", 5000, 0.2);  // 100,000 points
    }
    hips::MainWindow window(path);
    window.resize(1500, 900);
    window.show();
    window.setTab(hips::MainWindow::ChartsTab);
    QApplication::processEvents();
    std::vector<double> times;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer t;
        t.start();
        window.showStoredRun(run);
        QApplication::processEvents();  // the charts paint
        times.push_back(t.nsecsElapsed() / 1e9);
    }
    std::sort(times.begin(), times.end());
    std::printf(
        "open a stored run of %lld metric points into the charts: median %.2f s (min %.2f, max %.2f; "
        "target <= 1 s), %lld rounds drawn as %lld points\n",
        static_cast<long long>(window.store()->metricCount(run)), times[1], times[0], times[2],
        static_cast<long long>(window.charts()->loss()->pointCount(0)),
        static_cast<long long>(window.charts()->loss()->drawnPointCount(0)));
}

// A 20 x 50 run's records, round by round, into the charts as the Run tab hands them over: the
// seconds each round's records take (the event loop's stall while they come in one burst), a
// line per party (the default at this size) and a line per worker ("Every worker").
void benchThousandWorkers() {
    hips::Topology topology;
    for (int p = 1; p <= 20; ++p) {
        hips::Party party;
        party.id = QStringLiteral("party%1").arg(p);
        hips::WorkerGroup group;
        group.count = 50;
        party.workers = {group};
        topology.parties << party;
    }
    topology.training.mode = QStringLiteral("esync");
    for (bool everyWorker : {false, true}) {
        hips::RunCharts charts;
        charts.resize(1500, 2000);
        charts.show();
        charts.setTopology(topology);
        charts.setEveryWorker(everyWorker);
        constexpr int kRounds = 10;
        double slowest = 0, total = 0;
        for (int round = 1; round <= kRounds; ++round) {
            QElapsedTimer t;
            t.start();
            for (int p = 1; p <= 20; ++p) {
                for (int w = 0; w < 50; ++w) {
                    const QString node = QStringLiteral("party%1/worker%2").arg(p).arg(w);
                    charts.addRecord({{"kind", "train"},
                                      {"node", node},
                                      {"round", round},
                                      {"local_steps", 10 + w % 7},
                                      {"compute_s", 1.0 + w % 5},
                                      {"comm_s", 0.5},
                                      {"wait_s", 0.1},
                                      {"samples", 320}},
                                     1.7e12 + round * 1000, round);
                    charts.addRecord({{"kind", "usage"}, {"node", node}, {"round", round}, {"cpu_percent", 40.0 + w}, {"rss_bytes", 5e7}},
                                     1.7e12 + round * 1000, round);
                }
                for (const char* role : {"scheduler", "server0"})
                    charts.addRecord({{"kind", "usage"},
                                      {"node", QStringLiteral("party%1/%2").arg(p).arg(role)},
                                      {"round", round},
                                      {"cpu_percent", 20.0},
                                      {"rss_bytes", 3e7}},
                                     1.7e12 + round * 1000, round);
            }
            QApplication::processEvents();  // the charts redraw
            const double seconds = t.nsecsElapsed() / 1e9;
            slowest = std::max(slowest, seconds);
            total += seconds;
        }
        std::printf(
            "1,000 workers, %s: a round's 2,040 records and the redraw take %.0f ms on average, %.0f ms at most (%d lines of local "
            "steps)\n",
            everyWorker ? "a line per worker" : "a line per party", total / kRounds * 1000, slowest * 1000,
            charts.localSteps()->lineCount());
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    benchLiveAppends();
    benchOpenStoredRun();
    benchThousandWorkers();
    return 0;
}
