#pragma once
// The report's charts, drawn with Qt Charts offscreen so that a report looks like the GUI.
// Needs a QApplication (Qt Charts draws through QGraphicsScene); any platform will do,
// "offscreen" included.
#include "RunReport.h"

#include <QColor>
#include <QImage>

class QValueAxis;

namespace hips {

struct ChartLine {
    QString name;
    QList<QPointF> points;
    QColor color;
};

struct ChartSpec {
    QString title, xTitle, yTitle;
    QList<ChartLine> lines;
    bool integerX = false;  // rounds: label the x axis with whole numbers
    bool isEmpty() const;
};

struct RenderedChart {
    QString title;
    QImage image;  // empty when the run recorded nothing for this chart
};

// An axis over data from lo to hi: padded, on round numbers, and not below 0 when lo is not.
QValueAxis* reportAxis(const QString& title, double lo, double hi, bool integer);

// Draws one line chart into an image of `size` logical pixels at `scale` device pixels each.
// Series longer than a few thousand points are decimated (LTTB) first.
QImage renderLineChart(const ChartSpec& spec, QSize size, qreal scale = 2.0);

// Test accuracy vs round and vs time, loss, traffic per tier, throughput, computing-time ratio.
QList<ChartSpec> reportChartSpecs(const RunReport& report);
QList<RenderedChart> renderReportCharts(const RunReport& report, QSize size = QSize(720, 340));

}  // namespace hips
