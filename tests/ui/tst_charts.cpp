// Live charts: appends never redraw by themselves (a burst costs one redraw), long series are
// decimated, smoothing, log scale, x-axis choice, legend toggles and hover values.
#include "ChartAxes.h"
#include "LiveChart.h"
#include "RunCharts.h"
#include "../history/SmallDisk.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QJsonArray>
#include <QRegularExpression>
#include <QComboBox>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QSlider>
#include <QTemporaryDir>
#include <QToolButton>
#include <QValueAxis>
#include <QApplication>
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

QColor colourOf(LiveChart& c, const QString& name) {
    for (QAbstractSeries* s : c.chart()->series())
        if (s->name() == name) return static_cast<QLineSeries*>(s)->pen().color();
    return {};
}

QValueAxis* valueAxis(LiveChart& c, Qt::Orientation o) {
    return qobject_cast<QValueAxis*>(c.chart()->axes(o).first());
}

}  // namespace

class ChartsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aBurstOfAppendsIsOneRedrawOfDecimatedPoints() {
        LiveChart chart("t", "y");
        chart.show();
        const int line = chart.addLine("a", Qt::blue);
        chart.redrawNow();
        const int before = chart.redrawCount();
        for (int i = 0; i < 100000; ++i) chart.append(line, i, 1.7e12 + i, i / 10.0, std::sin(i / 100.0));
        QCOMPARE(chart.redrawCount(), before);  // appending only stores
        QTRY_COMPARE(chart.redrawCount(), before + 1);
        QCOMPARE(chart.pointCount(line), 100000);
        QCOMPARE(chart.drawnPointCount(line), LiveChart::kMaxDrawnPoints);
        QCOMPARE(drawn(chart, line)->at(0), QPointF(0, 0));
        QCOMPARE(drawn(chart, line)->at(LiveChart::kMaxDrawnPoints - 1).x(), 99999.0);
    }

    // A lone point (a run stopped after one round) is marked, so it shows; a long series is a
    // plain line.
    void shortSeriesShowTheirPoints() {
        LiveChart chart("t", "y");
        const int one = chart.addLine("one", Qt::blue), many = chart.addLine("many", Qt::red);
        chart.append(one, 1, 0, 0, 0.5);
        for (int i = 0; i < 500; ++i) chart.append(many, i + 1, 0, i, 0.5);
        chart.redrawNow();
        QCOMPARE(drawn(chart, one)->count(), 1);
        QVERIFY(drawn(chart, one)->pointsVisible());
        QVERIFY(!drawn(chart, many)->pointsVisible());
    }

    void smoothingDrawsTheEmaOverTheFaintRawLine() {
        LiveChart chart("t", "y");
        const int line = chart.addLine("a", Qt::blue);
        for (int i = 0; i < 4; ++i) chart.append(line, i + 1, 0, i, i % 2 ? 1.0 : 0.0);  // 0 1 0 1
        chart.setSmoothing(0.5);
        QLineSeries* raw = static_cast<QLineSeries*>(chart.chart()->series()[0]);
        QLineSeries* smooth = drawn(chart, line);
        QCOMPARE(raw->count(), 4);
        QVERIFY(raw->isVisible());
        // Debiased as TensorBoard's: the EMA from 0 divided by 1 − 0.5^n.
        QCOMPARE(smooth->at(0).y(), 0.0);
        QCOMPARE(smooth->at(1).y(), 0.5 / 0.75);  // (0.5·0 + 0.5·1) / (1 − 0.25)
        QCOMPARE(smooth->at(2).y(), 0.25 / 0.875);
        QCOMPARE(smooth->at(3).y(), 0.625 / 0.9375);
        chart.append(line, 5, 0, 4, 1.0);  // an arriving point continues the same average
        chart.redrawNow();
        QCOMPARE(drawn(chart, line)->at(4).y(), (0.5 * 0.625 + 0.5) / (1 - 1.0 / 32));
        // One legend entry per line: the faint raw line has none, however often it is shown again.
        chart.show();
        chart.setSmoothing(0);
        chart.setSmoothing(0.6);
        QCOMPARE(raw->isVisible(), true);
        QStringList shown;
        for (QLegendMarker* m : chart.chart()->legend()->markers())
            if (m->isVisible()) shown << m->label();
        QCOMPARE(shown, QStringList{"a"});
        chart.setSmoothing(0);
        QVERIFY(!raw->isVisible());
        QCOMPARE(drawn(chart, line)->at(1).y(), 1.0);
    }

    void xAxisChoiceAndLogScale() {
        LiveChart chart("t", "y");
        const int line = chart.addLine("a", Qt::blue);
        chart.append(line, 1, 1000, 0.5, 0.0);  // a zero has no place on a log axis
        chart.append(line, 2, 2000, 1.5, 10.0);
        chart.append(line, 3, 3000, 2.5, 100.0);
        chart.redrawNow();
        QCOMPARE(drawn(chart, line)->at(2).x(), 3.0);
        chart.setXAxis(LiveChart::XAxis::Elapsed);
        QCOMPARE(drawn(chart, line)->at(2).x(), 2.5);
        chart.setXAxis(LiveChart::XAxis::WallTime);
        QCOMPARE(drawn(chart, line)->at(2).x(), 3000.0);
        chart.setLogY(true);
        QCOMPARE(drawn(chart, line)->count(), 2);
        QVERIFY(qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).first()));
    }

    void legendClickTogglesTheLineAndHoverShowsTheValue() {
        LiveChart chart("t", "y");
        const int a = chart.addLine("a", Qt::blue);
        chart.addLine("b", Qt::red);
        chart.append(a, 4, 0, 0, 0.75);
        chart.redrawNow();
        QLegendMarker* marker = chart.chart()->legend()->markers(drawn(chart, a)).first();
        Q_EMIT marker->clicked();
        QVERIFY(!chart.lineVisible(a));
        QVERIFY(!drawn(chart, a)->isVisible());
        Q_EMIT marker->clicked();
        QVERIFY(chart.lineVisible(a));
        Q_EMIT drawn(chart, a)->hovered(QPointF(4, 0.75), true);
        QCOMPARE(chart.hoverText(), QStringLiteral("a — round 4: 0.75"));
    }

    // The real mouse over the plot: every visible line's value at the nearest x, in the line
    // under the chart (and a tooltip at the cursor).
    void mouseOverThePlotShowsEveryLinesValue() {
        LiveChart chart("t", "y");
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const int a = chart.addLine("train", Qt::blue), b = chart.addLine("test", Qt::red);
        for (int r = 1; r <= 5; ++r) {
            chart.append(a, r, 0, r, 0.1 * r);
            chart.append(b, r, 0, r, 1.0 + r);
        }
        chart.redrawNow();
        QChartView* view = qobject_cast<QChartView*>(chart.chart()->scene()->views().first());
        const QPointF at = chart.chart()->mapToPosition(QPointF(3.2, 0.5));
        const QPoint pos = view->mapFromScene(chart.chart()->mapToScene(at));
        QTest::mouseMove(view->viewport(), pos);
        QTRY_VERIFY2(chart.hoverText().startsWith("round 3"), qPrintable(chart.hoverText()));
        QVERIFY2(chart.hoverText().contains("train: 0.3") && chart.hoverText().contains("test: 4"), qPrintable(chart.hoverText()));
        chart.setLineVisible(b, false);
        QTest::mouseMove(view->viewport(), pos + QPoint(1, 0));
        QTRY_VERIFY2(!chart.hoverText().contains("test:"), qPrintable(chart.hoverText()));
    }

    // The mouse over one chart draws a crosshair at the same round on the others (not on the
    // staleness chart, whose x counts pushes); leaving the plot takes it away.
    void aCrosshairFollowsTheMouseAcrossCharts() {
        RunCharts charts;
        charts.resize(1500, 900);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        for (int r = 1; r <= 5; ++r) {
            RoundRow row;
            row.round = r, row.elapsed = r, row.testAccuracy = 0.5 + 0.05 * r, row.trainLoss = 1.0 / r, row.trainReports = 1;
            charts.addRound(row, 1000.0 * r);
        }
        for (LiveChart* c : charts.charts()) c->redrawNow();
        LiveChart* accuracy = charts.accuracy();
        QChartView* view = qobject_cast<QChartView*>(accuracy->chart()->scene()->views().first());
        const QPoint pos = view->mapFromScene(accuracy->chart()->mapToScene(accuracy->chart()->mapToPosition(QPointF(3.1, 0.6))));
        QTest::mouseMove(view->viewport(), pos);
        QTRY_COMPARE(charts.loss()->crosshair(), std::optional<double>(3));
        QCOMPARE(charts.throughput()->crosshair(), std::optional<double>(3));
        QVERIFY(!accuracy->crosshair());  // the cursor itself is there
        QVERIFY(!charts.staleness()->crosshair());
        auto* line = [&]() -> QGraphicsLineItem* {
            for (QGraphicsItem* item : charts.loss()->chart()->childItems())
                if (auto* l = dynamic_cast<QGraphicsLineItem*>(item)) return l;
            return nullptr;
        }();
        QVERIFY(line && line->isVisible());
        const double x = charts.loss()->chart()->mapToPosition(QPointF(3, 0)).x();
        QCOMPARE(line->line().x1(), x);
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(view->viewport(), &leave);
        QVERIFY(!charts.loss()->crosshair());
        QVERIFY(!line->isVisible());
    }

    // A round one line has no point at (the master skipped its evaluation): the hover says so
    // for that line, and never shows a neighbouring round's value as this round's.
    void hoverOnARoundWithoutEvaluationSaysSo() {
        LiveChart chart("t", "y");
        chart.resize(600, 400);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const int train = chart.addLine("train loss", Qt::blue), test = chart.addLine("test loss", Qt::red);
        for (int r = 1; r <= 5; ++r) {
            chart.append(train, r, 0, r, 0.1 * r);
            if (r != 3) chart.append(test, r, 0, r, 1.0 + r);
        }
        chart.redrawNow();
        QChartView* view = qobject_cast<QChartView*>(chart.chart()->scene()->views().first());
        const QPoint pos = view->mapFromScene(chart.chart()->mapToScene(chart.chart()->mapToPosition(QPointF(3.1, 0.5))));
        QTest::mouseMove(view->viewport(), pos);
        QTRY_VERIFY2(chart.hoverText().startsWith("round 3"), qPrintable(chart.hoverText()));
        QVERIFY2(chart.hoverText().contains("train loss: 0.3") && chart.hoverText().contains("test loss: not evaluated"),
                 qPrintable(chart.hoverText()));
    }

    // A chart saves as a PNG of what it draws and as CSV of every point (names quoted); a file
    // that cannot be written is an error naming it.
    void exportsPngAndCsv() {
        QTemporaryDir dir;
        LiveChart chart("Test accuracy", "accuracy");
        chart.resize(500, 300);
        const int a = chart.addLine("say \"hi\"", Qt::blue);
        chart.append(a, 1, 1000, 0.5, 0.25);
        chart.append(a, 2, 2000, 1.5, 0.75);
        chart.redrawNow();
        QCOMPARE(chart.savePng(dir.filePath("c.png")), QString());
        const QImage picture(dir.filePath("c.png"));
        QCOMPARE(picture.size(), chart.chart()->scene()->views().first()->size());
        QCOMPARE(chart.saveCsv(dir.filePath("c.csv")), QString());
        QFile csv(dir.filePath("c.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll(), QByteArray("line,round,wall_ms,elapsed_s,value\n\"say \"\"hi\"\"\",1,1000,0.5,0.25\n"
                                           "\"say \"\"hi\"\"\",2,2000,1.5,0.75\n"));
        QVERIFY(chart.saveCsv(dir.filePath("missing/c.csv")).contains("missing/c.csv"));
        QVERIFY(chart.savePng(dir.filePath("missing/c.png")).contains("missing/c.png"));
        // A name from a history file is text, never a formula nor arguments to fill in.
        LiveChart named("Test accuracy", "accuracy");
        named.append(named.addLine("=run %2 %3", Qt::red), 3, 3000, 2.5, 0.5);
        QCOMPARE(named.saveCsv(dir.filePath("n.csv")), QString());
        QFile again(dir.filePath("n.csv"));
        QVERIFY(again.open(QIODevice::ReadOnly));
        QCOMPARE(again.readAll(), QByteArray("line,round,wall_ms,elapsed_s,value\n'=run %2 %3,3,3000,2.5,0.5\n"));
        QVERIFY(chart.findChild<QToolButton*>("export_chart"));
    }

    // A chart saved on a full disk is an error, not a cut-off picture reported as saved.
    void aFullDiskIsAnError() {
        QTemporaryDir dir;
        SmallDisk disk(dir.filePath("small"), "size=64k,mode=0755");
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        QFile filler(disk.filePath("filler"));
        QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        while (filler.write(QByteArray(4096, 'x')) == 4096) {
        }
        LiveChart chart("Test accuracy", "accuracy");
        chart.resize(500, 300);
        chart.append(chart.addLine("a", Qt::blue), 1, 1000, 0.5, 0.25);
        chart.redrawNow();
        for (const QString& name : {QStringLiteral("c.png"), QStringLiteral("c.csv")}) {
            const QString e = name.endsWith("png") ? chart.savePng(disk.filePath(name)) : chart.saveCsv(disk.filePath(name));
            QVERIFY2(e.contains(name) && e.contains("no space left"), qPrintable(e));
            QVERIFY(!QFile::exists(disk.filePath(name)));
        }
    }

    // A new run starts from fresh axes, not the last run's range or zoom.
    void clearForgetsTheLastRunsAxes() {
        LiveChart chart("t", "y");
        int line = chart.addLine("a", Qt::blue);
        for (int r = 1; r <= 200; ++r) chart.append(line, r, 0, r, 1000.0 * r);
        chart.redrawNow();
        QVERIFY(valueAxis(chart, Qt::Horizontal)->max() >= 200);
        chart.clear();
        line = chart.addLine("a", Qt::blue);
        chart.append(line, 1, 0, 1, 0.5);
        chart.append(line, 2, 0, 2, 0.6);
        chart.redrawNow();
        QVERIFY2(valueAxis(chart, Qt::Horizontal)->max() <= 5, qPrintable(QString::number(valueAxis(chart, Qt::Horizontal)->max())));
        QVERIFY(valueAxis(chart, Qt::Vertical)->max() <= 1);
    }

    // Per-worker charts from the roles' records: ESync's local steps (a line per worker) and the
    // staleness of each push in the asynchronous modes (x: the worker's own push count).
    void workerChartsTakeStepsAndStaleness() {
        RunCharts charts;
        for (int round = 1; round <= 3; ++round) {
            charts.addRecord({{"kind", "train"}, {"node", "p1/worker0"}, {"round", round}, {"local_steps", 12}}, 0, round);
            charts.addRecord({{"kind", "train"}, {"node", "p1/worker1"}, {"round", round}, {"local_steps", 1}}, 0, round);
        }
        charts.addRecord({{"kind", "aggregate"}, {"node", "c/global_server0"}, {"round", 1}}, 0, 1);  // not per worker
        QCOMPARE(charts.localSteps()->lineCount(), 2);
        QCOMPARE(charts.localSteps()->pointCount(0), 3);
        charts.localSteps()->redrawNow();
        QCOMPARE(drawn(*charts.localSteps(), 1)->at(2), QPointF(3, 1));
        for (int staleness : {0, 2, 1})
            charts.addRecord({{"kind", "async_push"}, {"node", "c/global_server0"}, {"origin", "p2/worker1"}, {"staleness", staleness}}, 0,
                             1);
        QCOMPARE(charts.staleness()->lineCount(), 1);
        charts.staleness()->redrawNow();
        QCOMPARE(drawn(*charts.staleness(), 0)->at(1), QPointF(2, 2));
        charts.clear();  // a new run
        QCOMPARE(charts.localSteps()->lineCount(), 0);
    }

    // Beside the test accuracy: top-5 (5 classes or more) and each party's accuracy on its own
    // held-out rows, a line each, added as the first of them comes; a new run starts without them.
    void accuracyChartTakesTopFiveAndEachPartysHeldOutAccuracy() {
        RunCharts charts;
        RoundRow row;
        row.round = 1, row.elapsed = 2, row.testAccuracy = 0.5;
        charts.addRound(row, 1000);
        QCOMPARE(charts.accuracy()->lineCount(), 1);  // no top-5: fewer than 5 classes
        row.round = 2, row.testTop5 = 0.9;
        charts.addRound(row, 2000);
        QCOMPARE(charts.accuracy()->lineCount(), 2);
        for (int round : {1, 2})
            for (const char* node : {"party1/worker0", "party2/worker0"})
                charts.addRecord({{"kind", "party_eval"},
                                  {"node", node},
                                  {"round", round},
                                  {"test_acc", 0.4 + 0.1 * round},
                                  {"correct", 5},
                                  {"samples", 10}},
                                 0, round);
        QCOMPARE(charts.accuracy()->lineCount(), 4);
        charts.accuracy()->redrawNow();
        QCOMPARE(drawn(*charts.accuracy(), 1)->at(0), QPointF(2, 0.9));
        QCOMPARE(drawn(*charts.accuracy(), 3)->at(1), QPointF(2, 0.6));
        QCOMPARE(drawn(*charts.accuracy(), 3)->name(), QString("party2 (own held-out data)"));
        charts.clear();
        QCOMPARE(charts.accuracy()->lineCount(), 1);
    }

    // A worker has one colour in every chart, live or stored: the topology's order decides it,
    // not the order its records came in.
    void workersKeepTheirColoursWhateverOrderTheyReport() {
        RunCharts live, stored;
        live.setTopology(twoParties("esync"));
        stored.setTopology(twoParties("esync"));
        const QStringList nodes{"p2/worker1", "p1/worker0", "p2/worker0", "p1/worker1"};
        for (const QString& node : nodes) live.addRecord({{"kind", "train"}, {"node", node}, {"round", 1}, {"local_steps", 3}}, 0, 1);
        for (auto it = nodes.crbegin(); it != nodes.crend(); ++it)
            stored.addRecord({{"kind", "train"}, {"node", *it}, {"round", 1}, {"local_steps", 3}}, 0, 1);
        QSet<QRgb> colours;
        for (const char* name : {"p1/0", "p1/1", "p2/0", "p2/1"}) {
            const QColor colour = colourOf(*live.localSteps(), name);
            QVERIFY2(colour.isValid(), name);
            QCOMPARE(colourOf(*stored.localSteps(), name), colour);
            colours.insert(colour.rgb());
        }
        QCOMPARE(colours.size(), 4);
    }

    // The staleness chart stays empty in a mode whose pushes all belong to their round: it says so.
    void anEmptyStalenessChartSaysWhy() {
        RunCharts charts;
        charts.setTopology(twoParties("fedavg"));
        QVERIFY2(charts.staleness()->chart()->title().contains("none in mode fedavg"), qPrintable(charts.staleness()->chart()->title()));
        charts.clear();
        charts.setTopology(twoParties("asgd"));
        QCOMPARE(charts.staleness()->chart()->title(), QString("Staleness of each push (asynchronous modes)"));
    }

    // Once the run has ended, its traffic is the run's (as `hips run`, the history and the report
    // count it), beside what the last round had sent by its aggregation.
    void factsGiveTheRunsTrafficOnceItEnds() {
        RunCharts charts;
        RoundRow row;
        row.round = 3, row.elapsed = 2, row.testAccuracy = 0.8, row.bytesInside = 4000000, row.bytesAcross = 2000000;
        charts.addRound(row, 1000);
        QVERIFY(charts.factsText().contains("4.0 MB"));
        QVERIFY(!charts.factsText().contains("in the run"));
        charts.setRunTraffic(4500000, 2000000);
        QVERIFY2(charts.factsText().contains("4.5 MB in the run (4.0 MB by this round)"), qPrintable(charts.factsText()));
        QVERIFY(charts.factsText().contains("<td>2.0 MB</td>"));  // the same: said once
    }

    // Each process's CPU and memory over the run (its usage records), a party's traffic across
    // parties as the sum of what its nodes sent there, and a row per party in the facts.
    void processAndPartyChartsTakeUsageTrafficAndData() {
        RunCharts charts;
        for (int round = 1; round <= 3; ++round) {
            charts.addRecord(
                {{"kind", "usage"}, {"node", "p1/server0"}, {"round", round}, {"cpu_percent", 10.0 * round}, {"rss_bytes", 2e8}}, 0, round);
            charts.addRecord({{"kind", "usage"}, {"node", "p1/worker0"}, {"round", round}, {"cpu_percent", 180.0}}, 0,
                             round);  // no memory figure
        }
        QCOMPARE(charts.cpu()->lineCount(), 2);
        QCOMPARE(charts.cpu()->pointCount(0), 3);
        charts.cpu()->redrawNow();
        QCOMPARE(drawn(*charts.cpu(), 0)->at(2).y(), 30.0);
        QCOMPARE(charts.memory()->lineCount(), 1);
        charts.memory()->redrawNow();
        QCOMPARE(drawn(*charts.memory(), 0)->at(0).y(), 200.0);  // MB
        auto traffic = [](const char* node, int round, double across) {
            return QJsonObject{{"kind", "traffic"},
                               {"node", node},
                               {"round", round},
                               {"links", QJsonArray{QJsonObject{{"peer", "c/server0"}, {"tier", "across"}, {"sent", across}},
                                                    QJsonObject{{"peer", "p1/worker0"}, {"tier", "inside"}, {"sent", 9e6}}}}};
        };
        charts.addRecord(traffic("p1/server0", 1, 1e6), 0, 1);
        charts.addRecord(traffic("p1/server1", 1, 2e6), 0, 1);  // key slicing: the party's second server
        charts.addRecord(traffic("p2/server0", 1, 5e6), 0, 1);
        charts.addRecord(traffic("p1/server0", 2, 3e6), 0, 2);
        QCOMPARE(charts.partyAcross()->lineCount(), 2);
        charts.partyAcross()->redrawNow();
        QCOMPARE(drawn(*charts.partyAcross(), 0)->points().last().y(), 5.0);  // 3 + 2 MB: p1's two servers
        QCOMPARE(drawn(*charts.partyAcross(), 1)->points().last().y(), 5.0);
        charts.addRecord({{"kind", "startup"}, {"node", "p1/worker0"}, {"samples", 3000}}, 0, 0);
        charts.addRecord({{"kind", "startup"}, {"node", "p1/worker1"}, {"samples", 2000}}, 0, 0);
        for (const char* node : {"p3/worker0", "p3/worker1"})  // Draco's repetition: both hold part 4; it is the party's once
            charts.addRecord({{"kind", "startup"}, {"node", node}, {"samples", 700}, {"data_parts", QJsonObject{{"4", 700}}}}, 0, 0);
        charts.addRecord({{"kind", "train"}, {"node", "p1/worker0"}, {"round", 1}, {"samples", 640}}, 0, 1);
        charts.addRecord({{"kind", "train"}, {"node", "p1/worker1"}, {"round", 1}, {"samples", 640}}, 0, 1);
        charts.addRecord({{"kind", "party_eval"}, {"node", "p1/server0"}, {"round", 1}, {"test_acc", 0.75}}, 0, 1);
        RoundRow row;
        row.round = 1, row.testAccuracy = 0.8;
        charts.addRound(row, 0);
        const QString facts = charts.factsText();
        QVERIFY2(facts.contains(QRegularExpression(
                     "<td>p1</td><td[^>]*>2</td><td[^>]*>5,?000</td><td[^>]*>1,?280</td><td[^>]*>5.0</td><td[^>]*>0.7500</td>")),
                 qPrintable(facts));
        QVERIFY2(
            facts.contains(QRegularExpression("<td>p2</td><td[^>]*>0</td><td[^>]*>-</td><td[^>]*>0</td><td[^>]*>5.0</td><td[^>]*>-</td>")),
            qPrintable(facts));
        QVERIFY2(facts.contains(QRegularExpression("<td>p3</td><td[^>]*>2</td><td[^>]*>700</td>")), qPrintable(facts));
    }

    // A line per party: its processes' CPU and memory added up, each at its newest report. A
    // process reports its usage at most once a second, so in short rounds each round's records
    // come from some of the party's processes only; a round's point still counts them all.
    void aPartysUsageCountsEveryProcessAtItsNewestReport() {
        RunCharts charts;
        charts.setEveryWorker(false);
        const auto usage = [](const char* node, int round, double cpu, double rssBytes) {
            return QJsonObject{{"kind", "usage"}, {"node", node}, {"round", round}, {"cpu_percent", cpu}, {"rss_bytes", rssBytes}};
        };
        charts.addRecord(usage("p1/server0", 1, 10, 1e8), 0, 1);
        charts.addRecord(usage("p1/worker0", 1, 100, 3e8), 0, 1);
        charts.addRecord(usage("p1/worker1", 2, 90, 4e8), 0, 2);  // round 2: only worker1 reported
        charts.addRecord(usage("p1/worker0", 1, 120, 3.5e8), 0, 1);  // a late report of round 1
        charts.addRecord(usage("p1/server0", 3, 20, 1e8), 0, 3);
        QCOMPARE(charts.memory()->lineCount(), 1);
        charts.memory()->redrawNow();
        charts.cpu()->redrawNow();
        const QList<QPointF> memory = drawn(*charts.memory(), 0)->points(), cpu = drawn(*charts.cpu(), 0)->points();
        QCOMPARE(memory.size(), 3);
        QCOMPARE(memory[1].y(), 800.0);  // round 2: 100 + 300 + 400 MB
        QCOMPARE(memory[2].y(), 850.0);  // round 3: worker0's late report counts from then on
        QCOMPARE(cpu[2].y(), 230.0);  // 20 + 120 + 90 %
    }

    // A dark desktop gets dark charts (the lines keep their colours).
    void aDarkPaletteGivesDarkCharts() {
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
        dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x1c));
        QApplication::setPalette(dark);
        LiveChart darkChart(QStringLiteral("t"), QStringLiteral("y"));
        QApplication::setPalette(light);
        LiveChart lightChart(QStringLiteral("t"), QStringLiteral("y"));
        QCOMPARE(darkChart.chart()->theme(), QChart::ChartThemeDark);
        QCOMPARE(lightChart.chart()->theme(), QChart::ChartThemeLight);
        QVERIFY(darkChart.chart()->backgroundBrush().color().lightness() < 128);
    }

    void runChartsTakeRoundsWithTrafficAsCumulativeOrRate() {
        RunCharts charts;
        QCOMPARE(charts.findChild<QLabel*>("smoothing_value")->text(), QString("0.00"));
        RoundRow r1, r2;
        r1.round = 1, r1.elapsed = 2, r1.testAccuracy = 0.5, r1.bytesInside = 4000000, r1.bytesAcross = 2000000;
        r1.computeSeconds = 3, r1.commSeconds = 1, r1.trainLoss = 1.0, r1.trainReports = 1;
        r2.round = 2, r2.elapsed = 4, r2.bytesInside = 8000000, r2.bytesAcross = 6000000, r2.trainReports = 1;  // not an eval round
        charts.addRound(r1, 1000);
        charts.addRound(r2, 3000);
        QCOMPARE(charts.accuracy()->pointCount(0), 1);
        QCOMPARE(charts.computeRatio()->pointCount(0), 2);
        charts.traffic()->redrawNow();
        QCOMPARE(drawn(*charts.traffic(), 1)->at(1).y(), 6.0);  // MB across, cumulative
        auto* mode = charts.findChild<QComboBox*>("traffic_mode");
        QVERIFY(mode);
        mode->setCurrentIndex(1);  // rate
        charts.traffic()->redrawNow();
        QCOMPARE(drawn(*charts.traffic(), 1)->at(1).y(), 2.0);  // (6 − 2) MB / (4 − 2) s
        QCOMPARE(charts.traffic()->chart()->axes(Qt::Vertical).first()->titleText(), QString("MB/s sent"));

        // Smoothing applies to rates, never to a cumulative count; back to cumulative, the title too.
        charts.findChild<QSlider*>()->setValue(50);
        QVERIFY(drawn(*charts.traffic(), 1)->at(1).y() != 2.0);
        QCOMPARE(drawn(*charts.loss(), 0)->at(1).y(), 0.25 / 0.75);  // the loss is smoothed: (0.5·0.5·1 + 0.5·0) / (1 − 0.25)
        QCOMPARE(charts.findChild<QLabel*>("smoothing_value")->text(), QString("0.50"));
        mode->setCurrentIndex(0);
        charts.traffic()->redrawNow();
        QCOMPARE(drawn(*charts.traffic(), 1)->at(1).y(), 6.0);
        QCOMPARE(charts.traffic()->chart()->axes(Qt::Vertical).first()->titleText(), QString("MB sent"));
    }

    // A run that failed in its first second kept "The run is under way" on the Charts tab, where
    // Start all had taken the user: it says that it failed, and why.
    void aRunThatEndsBeforeItsFirstRoundSaysSo() {
        RunCharts charts;
        charts.setLive(true);
        QVERIFY(charts.factsText().contains("under way"));
        charts.setEnded(true, "party1/worker0: Fashion-MNIST file /x <y> is missing");
        QVERIFY2(charts.factsText().contains("failed before its first round: party1/worker0: Fashion-MNIST file /x &lt;y&gt; is missing"),
                 qPrintable(charts.factsText()));
        charts.setLive(true);
        charts.setEnded(false, {});
        QVERIFY(charts.factsText().contains("stopped before its first round"));
        RoundRow r1;
        r1.round = 1, r1.testAccuracy = 0.5;
        charts.setLive(true);
        charts.addRound(r1, 1000);
        const QString facts = charts.factsText();
        charts.setEnded(true, "later");  // a round shows: its figures stay
        QCOMPARE(charts.factsText(), facts);
    }
};

QTEST_MAIN(ChartsTest)
#include "tst_charts.moc"
