// Chart axes: tick labels that are distinct and nice, log decades, and wall-clock ticks on whole
// steps of the local clock, with the date once a run spans days.
#include "ChartAxes.h"
#include "LiveChart.h"

#include <QChart>
#include <QDateTimeAxis>
#include <QLogValueAxis>
#include <QSet>
#include <QValueAxis>
#include <QtTest>

using namespace hips;

namespace {

QValueAxis* valueAxis(LiveChart& c, Qt::Orientation o) {
    return qobject_cast<QValueAxis*>(c.chart()->axes(o).first());
}

}  // namespace

class ChartAxesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Two or three rounds once read "1 1 2" and "2 2 2 3"; a zoom gave "0.83409": every label is
    // distinct, rounds are whole, and labels carry only the digits their step needs.
    void tickLabelsAreDistinctAndNice() {
        for (int rounds : {1, 2, 3, 7, 40}) {
            LiveChart chart("t", "y");
            const int line = chart.addLine("a", Qt::blue);
            for (int r = 1; r <= rounds; ++r) chart.append(line, r, 0, r, 0.80 + 0.01 * r);
            chart.redrawNow();
            for (QValueAxis* axis : {valueAxis(chart, Qt::Horizontal), valueAxis(chart, Qt::Vertical)}) {
                const QStringList labels = tickLabels(axis);
                QVERIFY2(labels.size() >= 2 && labels.size() <= 12, qPrintable(labels.join(' ')));
                QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
            }
            for (const QString& label : tickLabels(valueAxis(chart, Qt::Horizontal))) QVERIFY2(!label.contains('.'), qPrintable(label));
        }
        LiveChart chart("t", "y");
        const int line = chart.addLine("a", Qt::blue);
        for (int r = 1; r <= 20; ++r) chart.append(line, r, 0, r, 0.8 + 0.004 * r);
        chart.redrawNow();
        valueAxis(chart, Qt::Vertical)->setRange(0.83409, 0.83731);  // as a rubber-band zoom sets it
        const QStringList zoomed = tickLabels(valueAxis(chart, Qt::Vertical));
        QVERIFY2(zoomed.size() >= 2, qPrintable(zoomed.join(' ')));
        QCOMPARE(QSet<QString>(zoomed.begin(), zoomed.end()).size(), zoomed.size());
        for (const QString& label : zoomed) QVERIFY2(label.size() <= 6, qPrintable(zoomed.join(' ')));  // 0.8345, not 0.83409
    }

    // A log axis spans whole decades, so at least two are labelled however narrow the data.
    void logAxisShowsTwoDecades() {
        LiveChart chart("t", "y");
        const int line = chart.addLine("a", Qt::blue);
        for (int r = 1; r <= 5; ++r) chart.append(line, r, 0, r, 0.3 + 0.05 * r);
        chart.setLogY(true);
        auto* y = qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).first());
        QVERIFY(y);
        QCOMPARE(y->min(), 0.1);
        QCOMPARE(y->max(), 1.0);
    }

    // Wall-clock ticks fall on whole steps of the local clock (10:20:30, 10:20:40 …), the same
    // distance apart, whatever times the rounds came at.
    void wallClockTicksAreWholeSteps() {
        for (double span : {7.3, 41.0, 380.0, 5000.0}) {
            LiveChart chart("t", "y");
            const int line = chart.addLine("a", Qt::blue);
            const double start = 1.7e12 + 123.4;
            for (int k = 0; k <= 10; ++k) chart.append(line, k + 1, start + k * span * 100, k, 0.5 + 0.01 * k);
            chart.setXAxis(LiveChart::XAxis::WallTime);
            auto* x = qobject_cast<QDateTimeAxis*>(chart.chart()->axes(Qt::Horizontal).first());
            QVERIFY(x);
            const qint64 lo = x->min().toMSecsSinceEpoch(), hi = x->max().toMSecsSinceEpoch();
            QVERIFY2(x->tickCount() >= 2 && x->tickCount() <= 8, qPrintable(QString::number(x->tickCount())));
            const qint64 step = (hi - lo) / (x->tickCount() - 1);
            QCOMPARE((hi - lo) % (x->tickCount() - 1), 0);
            QVERIFY2(QList<qint64>({1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000})
                         .contains(step),
                     qPrintable(QString::number(step)));
            QCOMPARE((lo + qint64(x->min().offsetFromUtc()) * 1000) % step, 0);
            QVERIFY(lo <= qint64(start) && hi >= qint64(start + span * 1000));
            QCOMPARE(x->format(), step < 60000 ? QString("HH:mm:ss") : QString("HH:mm"));
        }
        // Runs of days: the date in the labels (every one read "00:00"), and a few labels still.
        for (double days : {1.5, 4.0, 60.0, 900.0}) {
            LiveChart chart("t", "y");
            const int line = chart.addLine("a", Qt::blue);
            const double start = 1.7e12 + 123.4, span = days * 86400e3;
            for (int k = 0; k <= 10; ++k) chart.append(line, k + 1, start + k * span / 10, k, 0.5);
            chart.setXAxis(LiveChart::XAxis::WallTime);
            auto* x = qobject_cast<QDateTimeAxis*>(chart.chart()->axes(Qt::Horizontal).first());
            QVERIFY(x);
            QVERIFY2(x->tickCount() >= 2 && x->tickCount() <= 8, qPrintable(QString("%1 days: %2 ticks").arg(days).arg(x->tickCount())));
            QVERIFY2(x->format().startsWith("yyyy-MM-dd") || x->format().startsWith("MM-dd"), qPrintable(x->format()));
        }
    }
};

QTEST_MAIN(ChartAxesTest)
#include "tst_chartaxes.moc"
