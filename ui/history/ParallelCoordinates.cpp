#include "ParallelCoordinates.h"

#include "LiteralText.h"
#include "RunSettings.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSet>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace hips {

namespace {

constexpr qreal kPick = 5;  // pixels from a line that still pick it

bool isNumber(const QJsonValue& v, double* out) {
    bool ok = false;
    *out = v.isDouble() ? v.toDouble() : settingText(v).toDouble(&ok);
    return v.isDouble() || ok;
}

qreal distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF d = b - a;
    const qreal length2 = QPointF::dotProduct(d, d);
    const qreal t = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / length2, qreal(0), qreal(1)) : 0;
    const QPointF nearest = a + t * d;
    return std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
}

}  // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent) {
    setMinimumSize(320, 180);
    setMouseTracking(true);
    setObjectName(QStringLiteral("parallel_coordinates"));
}

void ParallelCoordinates::setRuns(const QList<Run>& runs, const QString& scoreName, bool lowerIsBetter) {
    m_runs = runs;
    m_scoreName = scoreName;
    m_lowerIsBetter = lowerIsBetter;
    chooseAxes();
    update();
}

void ParallelCoordinates::setSelected(const QList<qint64>& ids) {
    m_selected = ids;
    update();
}

QStringList ParallelCoordinates::axes() const {
    QStringList keys;
    for (const Axis& a : m_axes) keys << a.key;
    return keys;
}

// The settings whose values differ between the runs, those with the most distinct values first
// (a sweep's swept ones) and by name among equals; free-form ones (names, paths) are left out
// once they have more distinct values than fit on an axis.
void ParallelCoordinates::chooseAxes() {
    m_axes.clear();
    QMap<QString, QList<QJsonValue>> valuesOf;
    for (const Run& r : std::as_const(m_runs))
        for (auto it = r.settings.begin(); it != r.settings.end(); ++it) valuesOf[it.key()] << it.value();
    QList<Axis> candidates;
    for (auto it = valuesOf.cbegin(); it != valuesOf.cend(); ++it) {
        QSet<QString> distinct;
        Axis axis;
        axis.key = it.key();
        axis.min = std::numeric_limits<double>::infinity(), axis.max = -axis.min;
        for (const QJsonValue& v : *it) {
            distinct.insert(settingText(v));
            double x = 0;
            if (isNumber(v, &x)) axis.min = std::min(axis.min, x), axis.max = std::max(axis.max, x);
            else axis.numeric = false;
        }
        if (it->size() < m_runs.size()) distinct.insert(QStringLiteral("-"));  // some runs lack it
        if (distinct.size() < 2) continue;
        if (!axis.numeric) {
            if (distinct.size() > 12) continue;
            axis.values = distinct.values();
            std::sort(axis.values.begin(), axis.values.end());
        }
        candidates << axis;
    }
    auto spread = [](const Axis& a) { return a.numeric ? 100 : int(a.values.size()); };  // numbers first
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Axis& a, const Axis& b) { return spread(a) > spread(b); });
    m_axes = candidates.mid(0, kMaxAxes);
    std::sort(m_axes.begin(), m_axes.end(), [](const Axis& a, const Axis& b) { return a.key < b.key; });
    Axis score;
    score.key = m_scoreName;
    score.min = std::numeric_limits<double>::infinity(), score.max = -score.min;
    for (const Run& r : std::as_const(m_runs))
        if (!std::isnan(r.score)) score.min = std::min(score.min, r.score), score.max = std::max(score.max, r.score);
    m_axes << score;
}

double ParallelCoordinates::fractionOf(const Axis& axis, const QJsonValue& value) const {
    if (value.isUndefined() && axis.numeric) return qQNaN();
    if (!axis.numeric) {
        const qsizetype i = axis.values.indexOf(settingText(value));
        return i < 0 ? qQNaN() : axis.values.size() == 1 ? 0.5 : double(i) / double(axis.values.size() - 1);
    }
    double x = 0;
    if (!isNumber(value, &x) || std::isnan(x)) return qQNaN();
    return axis.max > axis.min ? (x - axis.min) / (axis.max - axis.min) : 0.5;
}

QRectF ParallelCoordinates::plot() const {
    return QRectF(rect()).adjusted(50, 34, -50, -28);
}

double ParallelCoordinates::axisX(int axis) const {
    const QRectF p = plot();
    return m_axes.size() < 2 ? p.center().x() : p.left() + p.width() * axis / (m_axes.size() - 1);
}

QPointF ParallelCoordinates::pointOf(qint64 id, int axis) const {
    const auto run = std::find_if(m_runs.cbegin(), m_runs.cend(), [&](const Run& r) { return r.id == id; });
    if (run == m_runs.cend() || axis < 0 || axis >= m_axes.size()) return {};
    const bool score = axis == m_axes.size() - 1;
    const double f = score ? fractionOf(m_axes[axis], run->score) : fractionOf(m_axes[axis], run->settings.value(m_axes[axis].key));
    if (std::isnan(f)) return {};
    const QRectF p = plot();
    return {axisX(axis), p.bottom() - f * p.height()};
}

QColor ParallelCoordinates::colourOf(const Run& run) const {
    const Axis& score = m_axes.last();
    if (std::isnan(run.score) || !(score.max > score.min)) return QColor(0x90, 0x90, 0x90);
    double good = (run.score - score.min) / (score.max - score.min);
    if (m_lowerIsBetter) good = 1 - good;
    // From red (worst) through amber to blue (best): apart for most eyes, colour-blind ones too.
    const QColor worst(0xd6, 0x27, 0x28), middle(0xe0, 0xa0, 0x20), best(0x1f, 0x77, 0xb4);
    auto mix = [](const QColor& a, const QColor& b, double t) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                                float(a.blueF() + (b.blueF() - a.blueF()) * t));
    };
    return good < 0.5 ? mix(worst, middle, good * 2) : mix(middle, best, (good - 0.5) * 2);
}

void ParallelCoordinates::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    const QRectF area = plot();
    if (m_runs.isEmpty() || m_axes.size() < 2) {
        p.setPen(palette().placeholderText().color());
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   m_runs.size() < 2 ? tr("Runs side by side by their settings: with two or more runs in the list")
                                     : tr("The runs listed have the same settings"));
        return;
    }
    // The runs, the selected ones last (on top) and thick.
    QList<const Run*> order;
    for (const Run& r : std::as_const(m_runs)) order << &r;
    std::stable_sort(order.begin(), order.end(),
                     [&](const Run* a, const Run* b) { return !m_selected.contains(a->id) && m_selected.contains(b->id); });
    for (const Run* r : std::as_const(order)) {
        const bool selected = m_selected.contains(r->id);
        QColor c = colourOf(*r);
        if (!m_selected.isEmpty() && !selected) c.setAlpha(110);
        p.setPen(QPen(c, selected ? 3.2 : 1.4));
        QPainterPath path;
        bool drawing = false;
        for (int a = 0; a < m_axes.size(); ++a) {
            const QPointF at = pointOf(r->id, a);
            if (at.isNull()) {  // a missing value breaks the line
                drawing = false;
                continue;
            }
            drawing ? path.lineTo(at) : path.moveTo(at);
            drawing = true;
        }
        p.drawPath(path);
    }
    // The axes over the lines, with their names and ranges.
    const QFontMetricsF metrics(font());
    const qreal room = m_axes.size() > 1 ? area.width() / (m_axes.size() - 1) - 6 : area.width();
    for (int a = 0; a < m_axes.size(); ++a) {
        const Axis& axis = m_axes[a];
        const qreal x = axisX(a);
        p.setPen(QPen(palette().text().color(), 1));
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        QFont bold = font();
        bold.setBold(a == m_axes.size() - 1);
        p.setFont(bold);
        const QString name = QFontMetricsF(bold).elidedText(axis.key, Qt::ElideMiddle, std::max<qreal>(room, 40));
        p.drawText(QRectF(x - room / 2, 4, room, 18), Qt::AlignCenter, name);
        p.setFont(font());
        p.setPen(palette().placeholderText().color());
        auto label = [&](qreal y, const QString& text) {
            const QString shown = metrics.elidedText(text, Qt::ElideRight, 90);
            const qreal w = metrics.horizontalAdvance(shown);
            p.fillRect(QRectF(x + 3, y - metrics.height() / 2, w + 2, metrics.height()), palette().base());
            p.drawText(QPointF(x + 4, y + metrics.ascent() / 2 - 1), shown);
        };
        if (axis.numeric && std::isfinite(axis.min)) {
            label(area.top(), QString::number(axis.max, 'g', 4));
            label(area.bottom(), QString::number(axis.min, 'g', 4));
        } else if (!axis.numeric) {
            for (int i = 0; i < axis.values.size(); ++i)
                label(area.bottom() - fractionOf(axis, axis.values[i]) * area.height(), axis.values[i]);
        }
    }
}

qint64 ParallelCoordinates::runAt(QPointF at) const {
    qint64 best = 0;
    qreal nearest = kPick;
    for (const Run& r : m_runs)
        for (int a = 0; a + 1 < m_axes.size(); ++a) {
            const QPointF from = pointOf(r.id, a), to = pointOf(r.id, a + 1);
            if (from.isNull() || to.isNull()) continue;
            if (const qreal d = distanceToSegment(at, from, to); d <= nearest) nearest = d, best = r.id;
        }
    return best;
}

void ParallelCoordinates::mousePressEvent(QMouseEvent* e) {
    if (const qint64 id = e->button() == Qt::LeftButton ? runAt(e->position()) : 0) Q_EMIT runClicked(id);
}

bool ParallelCoordinates::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const qint64 id = runAt(help->pos());
    const auto run = std::find_if(m_runs.cbegin(), m_runs.cend(), [&](const Run& r) { return r.id == id; });
    if (run == m_runs.cend()) {
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    QStringList lines{QStringLiteral("#%1 %2").arg(run->id).arg(run->name)};
    for (int a = 0; a + 1 < m_axes.size(); ++a)
        lines << QStringLiteral("%1 = %2").arg(m_axes[a].key, settingText(run->settings.value(m_axes[a].key)));
    lines << QStringLiteral("%1 = %2").arg(m_scoreName, std::isnan(run->score) ? QStringLiteral("-") : QString::number(run->score, 'f', 4));
    QToolTip::showText(help->globalPos(), literalToolTip(lines.join(QLatin1Char('\n'))), this);
    return true;
}

}  // namespace hips
