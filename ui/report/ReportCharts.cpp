#include "ReportCharts.h"

#include "LiteralText.h"
#include "Lttb.h"

#include <QChart>
#include <QGraphicsScene>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace hips {

namespace {

constexpr int kMaxPointsPerLine = 2000;  // far more than a 720-pixel-wide chart can show

const QColor kTop5(0x17, 0xbe, 0xcf);
const QColor kAccuracy(0x1f, 0x77, 0xb4), kTestLoss(0xd6, 0x27, 0x28), kTrainLoss(0xff, 0x7f, 0x0e), kInside(0x2c, 0xa0, 0x2c),
    kAcross(0x94, 0x67, 0xbd), kThroughput(0x17, 0xbe, 0xcf), kRatio(0x8c, 0x56, 0x4b);

// As many decimals as the ticks need: "5", "0.1", "0.05", not "5.00 s".
int decimalsOfStep(double step) {
    for (int decimals = 0; decimals < 4; ++decimals, step *= 10)
        if (std::abs(step - std::round(step)) < 1e-6 * std::max(1.0, step)) return decimals;
    return 4;
}

}  // namespace

// A range with a little air (none for rounds), never empty (one point still gets a visible axis), and never below
// zero for data that is not (seconds, bytes, accuracies): no "-5 s" or "-10 MB" tick.
QValueAxis* reportAxis(const QString& title, double lo, double hi, bool integer) {
    const double pad = hi <= lo ? 1.0 : integer ? 0.0 : (hi - lo) * 0.05;  // rounds end on the last (20, not 30)
    auto* a = new QValueAxis;
    a->setTitleText(title);
    a->setRange(lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad);
    a->applyNiceNumbers();
    if (integer && (a->max() - a->min()) / (a->tickCount() - 1) < 1) {  // whole rounds only: not "1 1 1 2 2 2"
        a->setRange(std::floor(a->min()), std::ceil(a->max()));
        a->setTickCount(int(std::lround(a->max() - a->min())) + 1);
    }
    a->setLabelFormat(QStringLiteral("%.%1f").arg(integer ? 0 : decimalsOfStep((a->max() - a->min()) / (a->tickCount() - 1))));
    QFont f = a->labelsFont();
    f.setPointSizeF(8);
    a->setLabelsFont(f);
    return a;
}

bool ChartSpec::isEmpty() const {
    return std::all_of(lines.begin(), lines.end(), [](const ChartLine& l) { return l.points.isEmpty(); });
}

QImage renderLineChart(const ChartSpec& spec, QSize size, qreal scale) {
    QChart chart;
    chart.setTitle(spec.title);
    chart.setAnimationOptions(QChart::NoAnimation);
    chart.setBackgroundRoundness(0);
    chart.legend()->setAlignment(Qt::AlignBottom);
    chart.legend()->setVisible(spec.lines.size() > 1);
    double xLo = 1e300, xHi = -1e300, yLo = 1e300, yHi = -1e300;
    int notFinite = 0;
    for (const ChartLine& line : spec.lines) {
        auto* series = new QLineSeries;
        series->setName(literalLegend(line.name));
        series->setPen(QPen(line.color, 2));
        // A diverged run's loss (inf) or a value a history file holds: left out, and said, where
        // it made the axis's range invalid and the whole chart wrong.
        QList<QPointF> finite;
        for (const QPointF& p : line.points)
            if (std::isfinite(p.x()) && std::isfinite(p.y())) finite << p;
            else ++notFinite;
        const QList<QPointF> points = lttb(finite, kMaxPointsPerLine);
        series->replace(points);
        if (points.size() == 1) series->setPointsVisible(true);
        for (const QPointF& p : points) {
            xLo = std::min(xLo, p.x()), xHi = std::max(xHi, p.x());
            yLo = std::min(yLo, p.y()), yHi = std::max(yHi, p.y());
        }
        chart.addSeries(series);
    }
    if (notFinite > 0)
        chart.setTitle(spec.title +
                       QObject::tr(" (values not finite, left out: %1)").arg(notFinite));  // (no plural: the CLI loads no translation)
    QValueAxis* xAxis = reportAxis(spec.xTitle, xLo, xHi, spec.integerX);
    QValueAxis* yAxis = reportAxis(spec.yTitle, yLo, yHi, false);
    chart.addAxis(xAxis, Qt::AlignBottom);
    chart.addAxis(yAxis, Qt::AlignLeft);
    for (QAbstractSeries* s : chart.series()) s->attachAxis(xAxis), s->attachAxis(yAxis);

    // The chart lays itself out inside a scene; render the scene, not a widget, so no window
    // (and no display) is needed.
    QGraphicsScene scene;
    scene.addItem(&chart);
    chart.setGeometry(QRectF(QPointF(0, 0), size));
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
    }
    scene.removeItem(&chart);
    return image;
}

QList<ChartSpec> reportChartSpecs(const RunReport& r) {
    const QString xRound = QObject::tr("round"), xTime = QObject::tr("seconds since start");
    auto byRound = [](ChartSpec spec) {
        spec.integerX = true;
        return spec;
    };
    const QString score = r.regression ? QObject::tr("RMSE") : QObject::tr("accuracy");
    QList<ChartLine> accuracyLines{{QObject::tr("test %1").arg(score), r.scoreByRound, kAccuracy}};
    if (!r.top5ByRound.isEmpty()) accuracyLines << ChartLine{QObject::tr("top-5 accuracy"), r.top5ByRound, kTop5};
    static const QList<QColor> partyColors{kTrainLoss, kInside, kTestLoss, kAcross, kRatio, QColor(0xe3, 0x77, 0xc2)};
    for (auto it = r.heldOutScoreByRound.begin(); it != r.heldOutScoreByRound.end(); ++it)
        accuracyLines << ChartLine{QObject::tr("%1 (own held-out data)").arg(it.key().section(QLatin1Char('/'), 0, 0)), *it,
                                   partyColors[accuracyLines.size() % partyColors.size()]};
    return {
        byRound({QObject::tr("Test %1 by round").arg(score), xRound, score, accuracyLines}),
        {QObject::tr("Test %1 over time").arg(score), xTime, score, {{QObject::tr("test %1").arg(score), r.scoreByTime, kAccuracy}}},
        byRound({QObject::tr("Loss"),
                 xRound,
                 QObject::tr("loss"),
                 {{QObject::tr("training loss (mean of workers)"), r.trainLossByRound, kTrainLoss},
                  {QObject::tr("test loss"), r.testLossByRound, kTestLoss}}}),
        {QObject::tr("Traffic per tier (cumulative)"),
         xTime,
         QObject::tr("MB sent"),
         {{QObject::tr("inside parties"), r.insideMBByTime, kInside}, {QObject::tr("across parties"), r.acrossMBByTime, kAcross}}},
        byRound({QObject::tr("Throughput (all workers)"),
                 xRound,
                 QObject::tr("samples/s"),
                 {{QObject::tr("samples per second"), r.throughputByRound, kThroughput}}}),
        byRound({QObject::tr("Computing-time ratio: compute / (compute + communication)"),
                 xRound,
                 QObject::tr("ratio"),
                 {{QObject::tr("computing-time ratio"), r.computeRatioByRound, kRatio}}}),
    };
}

QList<RenderedChart> renderReportCharts(const RunReport& report, QSize size) {
    QList<RenderedChart> out;
    for (const ChartSpec& spec : reportChartSpecs(report))
        out << RenderedChart{spec.title, spec.isEmpty() ? QImage() : renderLineChart(spec, size)};
    return out;
}

}  // namespace hips
