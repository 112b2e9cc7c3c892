#include "ChartAxes.h"
#include "RunCharts.h"

#include <QChart>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using namespace hips;

// The time-per-worker chart (WorkerTimeline): each worker's split of a round, the round every
// worker still in the run has reported.
class WorkerTimelineTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The timeline shows the newest round every worker has reported: compute, communication
    // (comm_s − wait_s) and waiting, one stacked bar per worker.
    void timelineSplitsEachWorkersRound() {
        RunCharts charts;
        WorkerTimeline* t = charts.timeline();
        QCOMPARE(t->shownRound(), 0);
        auto train = [](const char* node, int round, double compute, double comm, double wait) {
            return QJsonObject{{"kind", "train"},      {"node", node},   {"round", round},
                               {"compute_s", compute}, {"comm_s", comm}, {"wait_s", wait}};
        };
        charts.addRecord(train("p1/worker0", 1, 0.5, 0.4, 0.3), 0, 1);
        charts.addRecord(train("p1/worker1", 1, 0.8, 0.1, 0.05), 0, 1);
        QCOMPARE(t->shownRound(), 0);  // drawn at the next event-loop turn, once
        QTRY_COMPARE(t->shownRound(), 1);
        QCOMPARE(t->shownSeconds("p1/worker0"), (QList<double>{0.5, 0.4 - 0.3, 0.3}));
        charts.addRecord(train("p1/worker0", 2, 0.5, 0.4, 0.3), 0, 2);
        t->redrawNow();
        QCOMPARE(t->shownRound(), 1);  // round 2 is not complete yet
        charts.addRecord(train("p1/worker1", 2, 0.9, 0.2, 0.5), 0, 2);  // a wait longer than comm_s is clamped
        t->redrawNow();
        QCOMPARE(t->shownRound(), 2);
        QCOMPARE(t->shownSeconds("p1/worker1"), (QList<double>{0.9, 0.0, 0.2}));
        QCOMPARE(t->chart()->title(), QStringLiteral("Time per worker in round 2"));
        charts.clear();
        QCOMPARE(t->shownRound(), 0);
    }
    // A worker declared down (or that left the run) is not waited for: the rounds after it are
    // drawn with the workers left, and it counts again once it reports.
    void timelineGoesOnWithoutALostWorker() {
        RunCharts charts;
        WorkerTimeline* t = charts.timeline();
        auto train = [](const char* node, int round) {
            return QJsonObject{{"kind", "train"}, {"node", node}, {"round", round}, {"compute_s", 0.5}, {"comm_s", 0.2}, {"wait_s", 0.1}};
        };
        for (const char* w : {"p1/worker0", "p1/worker1", "p1/worker2"}) charts.addRecord(train(w, 1), 0, 1);
        for (int round = 2; round <= 5; ++round)
            for (const char* w : {"p1/worker0", "p1/worker1"}) charts.addRecord(train(w, round), 0, round);
        t->redrawNow();
        QCOMPARE(t->shownRound(), 1);  // waiting for p1/worker2
        charts.addRecord(QJsonObject{{"kind", "membership"}, {"member", "p1/worker2"}, {"state", "left"}, {"reason", "r"}}, 0, 5);
        t->redrawNow();
        QCOMPARE(t->shownRound(), 5);
        QCOMPARE(t->chart()->title(), QStringLiteral("Time per worker in round 5"));
        charts.addRecord(train("p1/worker2", 6), 0, 6);  // back: it counts again, and round 6 waits for all three
        charts.addRecord(train("p1/worker0", 6), 0, 6);
        t->redrawNow();
        QCOMPARE(t->shownRound(), 5);
        charts.addRecord(train("p1/worker1", 6), 0, 6);
        t->redrawNow();
        QCOMPARE(t->shownRound(), 6);
    }
    // The per-worker timeline exports as the other charts do: the shown round's split as CSV.
    void timelineExportsItsRound() {
        RunCharts charts;
        QCOMPARE(charts.findChildren<QToolButton*>("export_chart").size(), charts.charts().size() + 1);
        charts.addRecord({{"kind", "train"}, {"node", "p1/worker0"}, {"round", 1}, {"compute_s", 0.5}, {"comm_s", 0.25}, {"wait_s", 0.125}},
                         0, 1);
        charts.timeline()->redrawNow();
        QTemporaryDir dir;
        const QString path = dir.filePath("timeline.csv");
        QCOMPARE(charts.timeline()->saveCsv(path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("round,worker,compute_s,comm_s,wait_s\n1,\"p1/worker0\",0.5,0.25,0.125\n"));
        QCOMPARE(charts.timeline()->savePng(dir.filePath("timeline.png")), QString());
        QVERIFY(QFileInfo(dir.filePath("timeline.png")).size() > 0);
        auto* seconds = qobject_cast<QValueAxis*>(charts.timeline()->chart()->axes(Qt::Horizontal).first());
        QVERIFY(seconds);
        const QStringList labels = tickLabels(seconds);
        QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
    }
};

QTEST_MAIN(WorkerTimelineTest)
#include "tst_workertimeline.moc"
