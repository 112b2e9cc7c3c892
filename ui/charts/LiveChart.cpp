#include "LiveChart.h"

#include "LiteralText.h"
#include "ChartExport.h"
#include "Theme.h"

#include "Lttb.h"
#include "NiceTicks.h"
#include "PrivateFiles.h"
#include "RunReport.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QGraphicsLineItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QBuffer>
#include <QToolButton>
#include <QMouseEvent>
#include <QToolTip>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QVBoxLayout>
#include <cmath>
#include <functional>

namespace hips {

namespace {

// Charts due for a redraw take turns: one per pass of the event loop, so that five charts
// fed by the same message never redraw (and stall input) all at once.
class RedrawQueue : public QObject {
public:
    static RedrawQueue& instance() {
        static RedrawQueue queue;
        return queue;
    }
    void enqueue(LiveChart* chart, std::function<void()> redraw) {
        for (const auto& [c, f] : m_pending)
            if (c == chart) return;
        m_pending.append({chart, std::move(redraw)});
        if (!m_timer.isActive()) m_timer.start(0);
    }
    void remove(LiveChart* chart) {
        m_pending.removeIf([chart](const auto& p) { return p.first == chart; });
    }

private:
    RedrawQueue() {
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            if (m_pending.isEmpty()) return;
            auto [chart, redraw] = m_pending.takeFirst();
            redraw();
            if (!m_pending.isEmpty()) m_timer.start(0);
        });
    }
    QList<std::pair<LiveChart*, std::function<void()>>> m_pending;
    QTimer m_timer;
};

// Keeps an axis still while the data stay inside it: a new range only when the data leave it,
// or fill less than half of it. Each range change relayouts the whole chart.
bool needsNewRange(double axisLo, double axisHi, double lo, double hi) {
    if (lo < axisLo || hi > axisHi) return true;
    return (hi - lo) < 0.5 * (axisHi - axisLo);
}

}  // namespace

LiveChart::LiveChart(const QString& title, const QString& yTitle, QWidget* parent)
    : QWidget(parent),
      m_chart(new QChart),
      m_view(new QChartView(m_chart)),
      m_hover(new QLabel),
      m_crosshair(new QGraphicsLineItem(m_chart)) {
    m_crosshair->setPen(QPen(QColor(0x80, 0x80, 0x80), 1, Qt::DashLine));
    m_crosshair->setZValue(100);  // over the lines
    m_crosshair->hide();
    if (isDarkPalette(palette())) m_chart->setTheme(QChart::ChartThemeDark);  // before any line: it resets colours
    m_chart->setTitle(title);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->legend()->setShowToolTips(true);  // a name elided in a narrow chart shows whole on hover
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setRubberBand(QChartView::RectangleRubberBand);
    m_view->setToolTip(tr("Drag to zoom, right-click to zoom out; click a legend entry to hide its line"));
    m_hover->setObjectName(QStringLiteral("hover"));
    m_hover->setTextFormat(Qt::PlainText);  // (it names lines: a run's name from a history file is no markup)
    m_hover->setMinimumHeight(m_hover->fontMetrics().height());
    auto* exportButton = chartExportButton(
        this, [this] { return m_chart->title(); },
        [this](const QString& format, const QString& path) { return format == QLatin1String("png") ? savePng(path) : saveCsv(path); });
    auto* bottom = new QHBoxLayout;
    bottom->setContentsMargins(0, 0, 0, 0);
    bottom->addWidget(m_hover, 1);
    bottom->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);
    setProperty("yTitle", yTitle);
    m_view->viewport()->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);  // the values of every line at the cursor's x
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { RedrawQueue::instance().enqueue(this, [this] { redraw(); }); });
    m_sinceRedraw.start();
    rebuildAxes();
}

LiveChart::~LiveChart() {
    RedrawQueue::instance().remove(this);
}

int LiveChart::addLine(const QString& name, const QColor& color, Qt::PenStyle style) {
    Line line;
    line.name = name;
    line.color = color;
    line.raw = new QLineSeries;
    line.smooth = new QLineSeries;
    line.raw->setName(literalLegend(name));
    line.smooth->setName(literalLegend(name));
    QColor faint = color;
    faint.setAlpha(70);
    line.raw->setPen(QPen(faint, 1));
    line.smooth->setPen(QPen(color, 2, style));
    m_chart->addSeries(line.raw);
    m_chart->addSeries(line.smooth);
    for (QLineSeries* s : {line.raw, line.smooth}) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    const int index = int(m_lines.size());
    m_lines << line;
    for (QLegendMarker* m : m_chart->legend()->markers(line.raw)) m->setVisible(false);
    for (QLegendMarker* m : m_chart->legend()->markers(line.smooth))
        connect(m, &QLegendMarker::clicked, this, [this, index] { setLineVisible(index, !m_lines[index].visible); });
    for (QLineSeries* s : {line.raw, line.smooth})
        connect(s, &QLineSeries::hovered, this, [this, index](const QPointF& p, bool state) { onHover(index, p, state); });
    scheduleRedraw();
    return index;
}

void LiveChart::append(int line, double round, double wallMs, double elapsed, double value) {
    Line& l = m_lines[line];
    l.samples.append(Sample{round, wallMs, elapsed, value});
    smoothNext(l, value);
    scheduleRedraw();
}

// TensorBoard's debiased EMA: the average starts at 0 and is divided by the weight its terms have
// (1 − alpha^n), so the first points are pulled neither toward 0 nor toward the first value.
void LiveChart::replaceLast(int line, double round, double wallMs, double elapsed, double value) {
    Line& l = m_lines[line];
    if (!l.samples.isEmpty()) {
        l.samples.removeLast();
        l.smoothed.removeLast();
        l.ema = l.emaBefore;
        l.emaDecay = l.emaDecayBefore;
    }
    append(line, round, wallMs, elapsed, value);
}

void LiveChart::smoothNext(Line& l, double value) {
    l.emaBefore = l.ema;
    l.emaDecayBefore = l.emaDecay;
    if (!std::isfinite(value)) {  // a diverged loss is drawn as it is, and does not poison what follows
        l.smoothed.append(value);
        return;
    }
    l.ema = m_alpha * l.ema + (1 - m_alpha) * value;
    l.emaDecay *= m_alpha;
    l.smoothed.append(l.ema / (1 - l.emaDecay));
}

void LiveChart::clear() {
    m_rangeFresh = false;
    m_chart->zoomReset();
    m_chart->removeAllSeries();
    m_lines.clear();
    m_hover->clear();
    rebuildAxes();  // a new run starts from fresh axes, not the last run's range
    scheduleRedraw();
}

void LiveChart::setYTitle(const QString& title) {
    setProperty("yTitle", title);
    m_y->setTitleText(title);
}

void LiveChart::setTitle(const QString& title) {
    m_chart->setTitle(title);
}

void LiveChart::setLineName(int line, const QString& name) {
    Line& l = m_lines[line];
    l.name = name;
    l.raw->setName(literalLegend(name));
    l.smooth->setName(literalLegend(name));
}

void LiveChart::setXAxis(XAxis axis) {
    if (axis == m_xAxis) return;
    m_xAxis = axis;
    m_rangeFresh = false;
    rebuildAxes();
    redrawNow();
}

void LiveChart::setSmoothing(double alpha) {
    m_alpha = std::clamp(alpha, 0.0, 0.99);
    for (Line& l : m_lines) {
        l.smoothed.clear();
        l.ema = 0, l.emaDecay = 1;
        for (const Sample& sample : l.samples) smoothNext(l, sample.value);
    }
    redrawNow();
}

void LiveChart::setLogY(bool log) {
    if (log == m_logY) return;
    m_logY = log;
    m_rangeFresh = false;
    rebuildAxes();
    redrawNow();
}

void LiveChart::setLineVisible(int line, bool visible) {
    m_lines[line].visible = visible;
    for (QLegendMarker* m : m_chart->legend()->markers(m_lines[line].smooth)) {
        QFont f = m->font();
        f.setStrikeOut(!visible);
        m->setFont(f);
    }
    redrawNow();
}

void LiveChart::setLive(bool live) {
    if (live == m_live) return;
    m_live = live;
    m_rangeFresh = false;
    scheduleRedraw();
}

void LiveChart::resetZoom() {
    m_chart->zoomReset();
    m_rangeFresh = false;
    redrawNow();
}

qsizetype LiveChart::drawnPointCount(int line) const {
    return m_lines[line].smooth->count();
}

QString LiveChart::hoverText() const {
    return m_hover->text();
}

void LiveChart::scheduleRedraw() {
    m_dirty = true;
    if (m_timer.isActive()) return;
    m_timer.start(int(std::max<qint64>(0, kMinRedrawMs - m_sinceRedraw.elapsed())));
}

void LiveChart::redrawNow() {
    m_dirty = true;
    m_timer.stop();
    RedrawQueue::instance().remove(this);
    m_rangeFresh = false;
    redraw();
}

double LiveChart::xOf(const Sample& s) const {
    switch (m_xAxis) {
        case XAxis::Round: return s.round;
        case XAxis::WallTime: return s.wallMs;
        case XAxis::Elapsed: return s.elapsed;
    }
    return s.round;
}

void LiveChart::rebuildAxes() {
    for (QAbstractAxis* a : m_chart->axes()) {
        m_chart->removeAxis(a);
        delete a;
    }
    if (m_xAxis == XAxis::WallTime) {
        auto* x = new QDateTimeAxis;
        x->setFormat(QStringLiteral("HH:mm:ss"));
        x->setTitleText(tr("time of day"));
        connect(x, &QDateTimeAxis::rangeChanged, x, [x] { applyNiceTimeTicks(x); });
        m_x = x;
    } else {
        auto* x = new QValueAxis;
        x->setTitleText(m_xAxis == XAxis::Round ? tr("round") : tr("seconds since start"));
        const bool rounds = m_xAxis == XAxis::Round;
        connect(x, &QValueAxis::rangeChanged, x, [x, rounds] { applyNiceTicks(x, rounds); });
        m_x = x;
    }
    if (m_logY) {
        auto* y = new QLogValueAxis;
        y->setBase(10);
        y->setLabelFormat(QStringLiteral("%g"));
        y->setMinorTickCount(8);  // 2, 3, … 9 between the decades
        m_y = y;
    } else {
        auto* y = new QValueAxis;
        connect(y, &QValueAxis::rangeChanged, y, [y] { applyNiceTicks(y, false); });
        m_y = y;
    }
    m_y->setTitleText(property("yTitle").toString());
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : m_chart->series()) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
}

// Draws what arrived since the last redraw; the chart's own zoom, when the user zoomed, is kept.
void LiveChart::redraw() {
    if (!m_dirty) return;
    m_dirty = false;
    m_sinceRedraw.restart();
    ++m_redraws;
    double xLo = INFINITY, xHi = -INFINITY, yLo = INFINITY, yHi = -INFINITY;
    for (Line& l : m_lines) {
        QList<QPointF> raw, smooth;
        raw.reserve(l.samples.size());
        smooth.reserve(l.samples.size());
        for (qsizetype i = 0; i < l.samples.size(); ++i) {
            const double x = xOf(l.samples[i]);
            if (m_logY && (l.samples[i].value <= 0 || l.smoothed[i] <= 0)) continue;
            raw << QPointF(x, l.samples[i].value);
            smooth << QPointF(x, l.smoothed[i]);
        }
        raw = lttb(raw, kMaxDrawnPoints);
        smooth = lttb(smooth, kMaxDrawnPoints);
        const bool smoothing = m_alpha > 0;
        l.raw->replace(smoothing ? raw : QList<QPointF>());
        l.smooth->replace(smoothing ? smooth : raw);
        l.raw->setVisible(l.visible && smoothing);
        l.smooth->setVisible(l.visible);
        // A series shown again shows its legend entry again: the faint line has none, the bold one speaks for both.
        // A hidden line keeps its entry, struck out, to be clicked back.
        for (QLegendMarker* m : m_chart->legend()->markers(l.raw)) m->setVisible(false);
        for (QLegendMarker* m : m_chart->legend()->markers(l.smooth)) m->setVisible(true);
        // A short series shows its points (a single one is otherwise invisible: a line needs two).
        for (QLineSeries* s : {l.raw, l.smooth}) s->setPointsVisible(raw.size() <= kMarkedPoints);
        if (!l.visible) continue;
        for (const QPointF& p : raw) {
            xLo = std::min(xLo, p.x()), xHi = std::max(xHi, p.x());
            yLo = std::min(yLo, p.y()), yHi = std::max(yHi, p.y());
        }
    }
    if (m_chart->isZoomed() || !std::isfinite(xLo)) return;
    if (xHi <= xLo) xHi = xLo + 1;
    if (yHi <= yLo) yHi = yLo + (m_logY ? yLo : 1);
    if (m_xAxis == XAxis::WallTime) {
        auto* x = static_cast<QDateTimeAxis*>(m_x);
        if (!m_rangeFresh || needsNewRange(double(x->min().toMSecsSinceEpoch()), double(x->max().toMSecsSinceEpoch()), xLo, xHi))
            x->setRange(QDateTime::fromMSecsSinceEpoch(qint64(xLo)), QDateTime::fromMSecsSinceEpoch(qint64(xHi + (xHi - xLo) * 0.2)));
    } else {
        auto* x = static_cast<QValueAxis*>(m_x);
        if (!m_rangeFresh || needsNewRange(x->min(), x->max(), xLo, xHi)) {
            x->setRange(xLo, xHi + (m_live ? (xHi - xLo) * 0.2 : 0));  // room to grow into while a run goes on; ends on ticks
        }
    }
    if (m_logY) {
        // Whole decades, so that at least two of them are labelled however narrow the data.
        auto* y = static_cast<QLogValueAxis*>(m_y);
        const double lo = std::pow(10.0, std::floor(std::log10(yLo))), hi = std::pow(10.0, std::ceil(std::log10(yHi * 1.0001)));
        if (!m_rangeFresh || needsNewRange(y->min(), y->max(), yLo, yHi)) y->setRange(lo, std::max(hi, lo * 10));
    } else {
        auto* y = static_cast<QValueAxis*>(m_y);
        if (!m_rangeFresh || needsNewRange(y->min(), y->max(), yLo, yHi)) {
            const double pad = (yHi - yLo) * 0.05;
            y->setRange(yLo >= 0 ? std::max(0.0, yLo - pad) : yLo - pad, yHi + pad);  // counts never dip below 0; ends on ticks
        }
    }
    m_rangeFresh = true;
}

QString LiveChart::savePng(const QString& path) const {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!m_view->grab().save(&buffer, "PNG")) return tr("cannot draw the chart to write %1").arg(path);
    return writeUserFile(path, png);
}

// Every point of every line, long format: line, round, unix time (ms), seconds since start, value.
QString LiveChart::saveCsv(const QString& path) const {
    QByteArray text = "line,round,wall_ms,elapsed_s,value\n";
    for (const Line& l : m_lines) {
        const QByteArray name = csvField(l.name);  // (a name of a run from a history file may hold "%2", or a formula)
        for (const Sample& p : l.samples)
            text += name + QStringLiteral(",%1,%2,%3,%4\n")
                               .arg(p.round)
                               .arg(p.wallMs, 0, 'f', 0)
                               .arg(p.elapsed, 0, 'g', 10)
                               .arg(p.value, 0, 'g', 10)
                               .toUtf8();
    }
    return writeUserFile(path, text);
}

void LiveChart::setCrosshair(std::optional<double> x) {
    m_crosshairX = x;
    const QRectF plot = m_chart->plotArea();
    if (!x || m_lines.isEmpty() || plot.isEmpty()) {
        m_crosshair->hide();
        return;
    }
    const double px = m_chart->mapToPosition(QPointF(*x, 0), m_lines.first().smooth).x();
    if (px < plot.left() - 0.5 || px > plot.right() + 0.5) {  // outside this chart's range (zoomed)
        m_crosshair->hide();
        return;
    }
    m_crosshair->setLine(px, plot.top(), px, plot.bottom());
    m_crosshair->show();
}

bool LiveChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && event->type() == QEvent::MouseMove) {
        const QPoint pos = static_cast<QMouseEvent*>(event)->position().toPoint();
        if (!showValuesAt(pos, m_view->viewport()->mapToGlobal(pos))) Q_EMIT cursorLeft();
    }
    if (watched == m_view->viewport() && event->type() == QEvent::Leave) Q_EMIT cursorLeft();
    // Resting on the plot, the values stay in the tooltip, with the view's usage hint below them.
    if (watched == m_view->viewport() && event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (showValuesAt(help->pos(), help->globalPos())) return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString LiveChart::xLabel(double x) const {
    switch (m_xAxis) {
        case XAxis::Round: return tr("round %1").arg(qRound(x));
        case XAxis::WallTime: return QDateTime::fromMSecsSinceEpoch(qint64(x)).toString(QStringLiteral("HH:mm:ss"));
        case XAxis::Elapsed: return tr("%1 s").arg(x, 0, 'f', 1);
    }
    return {};
}

// Inside the plot: the point nearest the cursor's x, and each visible line's value there, in a
// tooltip at the cursor and in the line under the chart, as TensorBoard shows them. A line with
// no point there (a round that was not evaluated) says so, instead of lending a neighbour's value.
bool LiveChart::showValuesAt(const QPoint& viewportPos, const QPoint& globalPos) {
    const QPointF scenePos = m_view->mapToScene(viewportPos);
    if (!m_chart->plotArea().contains(m_chart->mapFromScene(scenePos))) return false;
    const double x = m_chart->mapToValue(m_chart->mapFromScene(scenePos)).x();
    double shownX = x;
    double best = INFINITY;
    for (const Line& l : m_lines) {
        if (!l.visible) continue;
        for (const Sample& p : l.samples)
            if (std::abs(xOf(p) - x) < best) best = std::abs(xOf(p) - x), shownX = xOf(p);
    }
    if (!std::isfinite(best)) return false;
    QStringList values;
    for (const Line& l : m_lines) {
        if (!l.visible || l.samples.isEmpty()) continue;
        const auto at = std::find_if(l.samples.begin(), l.samples.end(), [&](const Sample& p) { return xOf(p) == shownX; });
        if (at == l.samples.end()) {
            values << tr("%1: not evaluated").arg(l.name);
            continue;
        }
        const qsizetype i = at - l.samples.begin();
        values << QStringLiteral("%1: %2").arg(l.name, QString::number(m_alpha > 0 ? l.smoothed[i] : l.samples[i].value, 'g', 5));
    }
    m_hover->setText(xLabel(shownX) + QStringLiteral(" — ") + values.join(QStringLiteral(", ")));
    Q_EMIT cursorAt(shownX);
    QToolTip::showText(globalPos, xLabel(shownX) + '\n' + values.join('\n') + QStringLiteral("\n\n") + m_view->toolTip(), m_view);
    return true;
}

void LiveChart::onHover(int line, const QPointF& p, bool state) {
    if (!state) return;
    m_hover->setText(QStringLiteral("%1 — %2: %3").arg(m_lines[line].name, xLabel(p.x()), QString::number(p.y(), 'g', 5)));
}

}  // namespace hips
