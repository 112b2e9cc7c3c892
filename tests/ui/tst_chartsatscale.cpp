// The charts of a run of many workers: a line per party above RunCharts::kWorkerLinesMax
// workers, every worker's line on demand, and parties and workers in natural order.
#include "RunCharts.h"
#include "WorkerTimeline.h"

#include <QBarSet>
#include <QCheckBox>
#include <QChart>
#include <QFile>
#include <QHorizontalStackedBarSeries>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

namespace {

QLineSeries* drawn(LiveChart& c, int index) {  // the bold (smoothed or raw) series of a line
    return static_cast<QLineSeries*>(c.chart()->series()[index * 2 + 1]);
}

// Two parties' workers, "p1/worker0" … "p2/worker1", in a topology of mode `mode`.
Topology twoParties(const QString& mode) {
    Topology t;
    for (const char* id : {"p1", "p2"}) {
        Party p;
        p.id = id;
        WorkerGroup g;
        g.count = 2;
        p.workers = {g};
        t.parties << p;
    }
    t.training.mode = mode;
    return t;
}

}  // namespace

class ChartsAtScaleTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Above kWorkerLinesMax workers a line per party: its workers' mean local steps, its
    // processes' summed CPU, its pushes' staleness; the timeline a bar per party. "Every
    // worker" draws a line each again, from the same points.
    void manyWorkersAreDrawnAsALinePerParty() {
        Topology t = twoParties("esync");
        t.parties[0].workers[0].count = RunCharts::kWorkerLinesMax;  // 16 + 2 workers
        RunCharts charts;
        charts.setTopology(t);
        QVERIFY(!charts.everyWorker());
        auto* box = charts.findChild<QCheckBox*>("every_worker");
        QVERIFY(box && !box->isHidden() && !box->isChecked());
        for (int round = 1; round <= 2; ++round)
            for (int w = 0; w < 4; ++w) {  // p1's workers take 4, 6, 8, 10 steps: mean 7
                charts.addRecord({{"kind", "train"},
                                  {"node", QString("p1/worker%1").arg(w)},
                                  {"round", round},
                                  {"local_steps", 4 + 2 * w},
                                  {"compute_s", 1.0 + w},
                                  {"comm_s", 0.5},
                                  {"wait_s", 0.0}},
                                 0, round);
                charts.addRecord({{"kind", "usage"}, {"node", QString("p1/worker%1").arg(w)}, {"round", round}, {"cpu_percent", 50.0}}, 0,
                                 round);
            }
        charts.addRecord({{"kind", "train"}, {"node", "p2/worker0"}, {"round", 1}, {"local_steps", 3}}, 0, 1);
        QCOMPARE(charts.localSteps()->lineCount(), 2);
        QCOMPARE(charts.localSteps()->pointCount(0), 2);  // a point per round, not per worker
        charts.localSteps()->redrawNow();
        QCOMPARE(drawn(*charts.localSteps(), 0)->at(1), QPointF(2, 7));
        QCOMPARE(drawn(*charts.localSteps(), 1)->at(0), QPointF(1, 3));
        charts.cpu()->redrawNow();
        QCOMPARE(charts.cpu()->lineCount(), 1);
        QCOMPARE(drawn(*charts.cpu(), 0)->at(1).y(), 200.0);  // four processes at 50 % each
        // A process reports its usage every second: its second report of a round replaces its first.
        charts.addRecord({{"kind", "usage"}, {"node", "p1/worker0"}, {"round", 2}, {"cpu_percent", 90.0}}, 0, 2);
        charts.cpu()->redrawNow();
        QCOMPARE(charts.cpu()->pointCount(0), 2);
        QCOMPARE(drawn(*charts.cpu(), 0)->at(1).y(), 240.0);
        QVERIFY2(charts.cpu()->chart()->title().contains("party"), qPrintable(charts.cpu()->chart()->title()));
        for (int staleness : {0, 4})
            charts.addRecord({{"kind", "async_push"}, {"node", "c/global_server0"}, {"origin", "p2/worker1"}, {"staleness", staleness}}, 0,
                             1);
        charts.addRecord({{"kind", "async_push"}, {"node", "c/global_server0"}, {"origin", "p2/worker0"}, {"staleness", 2}}, 0, 1);
        charts.staleness()->redrawNow();
        QCOMPARE(charts.staleness()->lineCount(), 1);
        QCOMPARE(drawn(*charts.staleness(), 0)->at(2), QPointF(3, 2));  // the party's third push
        box->click();  // every worker, from the points kept
        QVERIFY(charts.everyWorker());
        QCOMPARE(charts.localSteps()->lineCount(), 5);
        charts.localSteps()->redrawNow();
        QCOMPARE(drawn(*charts.localSteps(), 3)->at(1), QPointF(2, 10));
        QCOMPARE(charts.cpu()->lineCount(), 4);
        QCOMPARE(charts.staleness()->lineCount(), 2);
        box->click();
        QCOMPARE(charts.localSteps()->lineCount(), 2);
        // The timeline: p1's bar is its workers' mean (compute 1..4: 2.5), p2 had no round 2.
        charts.addRecord({{"kind", "train"}, {"node", "p2/worker0"}, {"round", 2}, {"compute_s", 9.0}, {"comm_s", 1.0}, {"wait_s", 0.0}}, 0,
                         2);
        charts.addRecord({{"kind", "train"}, {"node", "p2/worker1"}, {"round", 2}, {"compute_s", 9.0}, {"comm_s", 1.0}, {"wait_s", 0.0}}, 0,
                         2);
        charts.timeline()->redrawNow();
        auto* bars = qobject_cast<QHorizontalStackedBarSeries*>(charts.timeline()->chart()->series().first());
        QCOMPARE(bars->barSets().first()->count(), 2);
        QCOMPARE(bars->barSets().first()->at(0), 2.5);
        QCOMPARE(bars->barSets().first()->at(1), 9.0);
        QVERIFY(charts.timeline()->chart()->title().contains("party"));
    }

    // Parties and workers are listed as a topology lists them: party2 before party10, worker2
    // before worker10 (text order put party10 second).
    void partiesAndWorkersAreInNaturalOrder() {
        RunCharts charts;
        for (const char* node : {"party10/worker0", "party2/worker10", "party2/worker2"}) {
            charts.addRecord({{"kind", "startup"}, {"node", node}, {"samples", 100}}, 0, 0);
            charts.addRecord(
                {{"kind", "train"}, {"node", node}, {"round", 1}, {"samples", 10}, {"compute_s", 1.0}, {"comm_s", 0.5}, {"wait_s", 0.0}}, 0,
                1);
        }
        RoundRow row;
        row.round = 1, row.testAccuracy = 0.5;
        charts.addRound(row, 0);
        const QString facts = charts.factsText();
        QVERIFY2(facts.indexOf("<td>party2</td>") >= 0 && facts.indexOf("<td>party2</td>") < facts.indexOf("<td>party10</td>"),
                 qPrintable(facts));
        charts.timeline()->redrawNow();
        QTemporaryDir dir;
        QCOMPARE(charts.timeline()->saveCsv(dir.filePath("t.csv")), QString());
        QFile csv(dir.filePath("t.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().split('\n');
        QVERIFY2(
            lines.value(1).contains("party2/worker2") && lines.value(2).contains("party2/worker10") && lines.value(3).contains("party10/"),
            csv.fileName().toUtf8());
    }

    // A run of few workers draws a line each and offers no choice.
    void fewWorkersAreDrawnALineEach() {
        RunCharts charts;
        charts.setTopology(twoParties("esync"));
        QVERIFY(charts.everyWorker());
        QVERIFY(charts.findChild<QCheckBox*>("every_worker")->isHidden());
    }
};

QTEST_MAIN(ChartsAtScaleTest)
#include "tst_chartsatscale.moc"
