#include "WorkerTimeline.h"

#include "MetricRecords.h"
#include "NiceTicks.h"
#include "PrivateFiles.h"
#include "Theme.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QBuffer>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QTimer>
#include <QValueAxis>
#include <algorithm>

namespace hips {

namespace {

// a < b with runs of digits compared as numbers. (QCollator's numeric mode is not there without
// ICU, as under the C locale.)
bool naturalLess(const QString& a, const QString& b) {
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (!a[i].isDigit() || !b[j].isDigit()) {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
            continue;
        }
        while (i + 1 < a.size() && a[i] == u'0' && a[i + 1].isDigit()) ++i;  // leading zeros say nothing
        while (j + 1 < b.size() && b[j] == u'0' && b[j + 1].isDigit()) ++j;
        qsizetype ei = i, ej = j;
        while (ei < a.size() && a[ei].isDigit()) ++ei;
        while (ej < b.size() && b[ej].isDigit()) ++ej;
        if (ei - i != ej - j) return ei - i < ej - j;  // fewer digits: the smaller number
        if (const int c = QStringView(a).mid(i, ei - i).compare(QStringView(b).mid(j, ej - j)); c != 0) return c < 0;
        i = ei, j = ej;
    }
    return a.size() - i < b.size() - j;
}

}  // namespace

QStringList inNaturalOrder(QStringList names) {
    std::sort(names.begin(), names.end(), naturalLess);
    return names;
}

WorkerTimeline::WorkerTimeline(QWidget* parent)
    : QChartView(parent),
      m_series(new QHorizontalStackedBarSeries),
      m_compute(new QBarSet(tr("computing"))),
      m_communication(new QBarSet(tr("communicating"))),
      m_waiting(new QBarSet(tr("waiting"))),
      m_names(new QBarCategoryAxis),
      m_seconds(new QValueAxis) {
    m_compute->setColor(QColor(0x1f, 0x77, 0xb4));
    m_communication->setColor(QColor(0xff, 0x7f, 0x0e));
    m_waiting->setColor(QColor(0xc7, 0xc7, 0xc7));
    for (QBarSet* s : {m_compute, m_communication, m_waiting}) m_series->append(s);
    auto* chart = new QChart;
    if (isDarkPalette(palette())) chart->setTheme(QChart::ChartThemeDark);
    chart->addSeries(m_series);
    chart->addAxis(m_names, Qt::AlignLeft);
    chart->addAxis(m_seconds, Qt::AlignBottom);
    m_series->attachAxis(m_names);
    m_series->attachAxis(m_seconds);
    m_seconds->setTitleText(tr("seconds"));
    QFont small = m_names->labelsFont();  // a bar per worker: small names fit beside eight or more
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.75));
    m_names->setLabelsFont(small);
    m_names->setTruncateLabels(false);
    connect(m_seconds, &QValueAxis::rangeChanged, m_seconds, [this] { applyNiceTicks(m_seconds, false); });
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(120);
    clear();
}

void WorkerTimeline::clear() {
    m_rounds.clear();
    m_workers.clear();
    m_shown = m_complete = 0;
    for (QBarSet* s : {m_compute, m_communication, m_waiting}) s->remove(0, s->count());
    m_names->clear();
    m_seconds->setRange(0, 1);
    chart()->setTitle(tr("Time per worker in a round: no round yet"));
}

void WorkerTimeline::addRecord(const QJsonObject& r) {
    if (r.value(QStringLiteral("kind")).toString() == metric::kMembership) {
        const QString state = r.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("down") || state == QLatin1String("left")) forget(r.value(QStringLiteral("member")).toString());
        return;
    }
    const std::optional<metric::TrainRecord> train = metric::TrainRecord::from(r);
    if (!train || train->node.isEmpty() || train->round <= 0) return;
    const QString& worker = train->node;
    const int round = train->round;
    m_rounds[round][worker] = Split{train->computeSeconds, train->commSeconds - train->waitSeconds, train->waitSeconds};
    m_workers.insert(worker, 0);
    if (complete(round) && round >= m_complete) m_complete = round;
    trimAndRedraw();
}

bool WorkerTimeline::complete(int round) const {
    const QMap<QString, Split> splits = m_rounds.value(round);
    for (auto it = m_workers.cbegin(); it != m_workers.cend(); ++it)
        if (!splits.contains(it.key())) return false;
    return !splits.isEmpty();
}

void WorkerTimeline::forget(const QString& worker) {
    if (!m_workers.remove(worker)) return;
    for (auto it = m_rounds.cbegin(); it != m_rounds.cend(); ++it)
        if (it.key() > m_complete && complete(it.key())) m_complete = it.key();
    trimAndRedraw();
}

void WorkerTimeline::trimAndRedraw() {
    while (m_rounds.size() > 3 && m_rounds.firstKey() != m_complete) m_rounds.erase(m_rounds.begin());  // the newest can still complete
    if (m_complete > m_shown && !std::exchange(m_redrawQueued, true)) QTimer::singleShot(0, this, &WorkerTimeline::redrawNow);
}

void WorkerTimeline::redrawNow() {
    m_redrawQueued = false;
    if (m_complete > m_shown) show(m_complete);
}

void WorkerTimeline::setPerParty(bool perParty) {
    if (std::exchange(m_perParty, perParty) != perParty && m_shown > 0) show(m_shown);
}

void WorkerTimeline::show(int round) {
    m_shown = round;
    const QMap<QString, Split>& splits = m_rounds[round];
    // The bars: a worker's seconds, or a party's mean over its workers (in the workers' order).
    QStringList names;
    QList<Split> bars;
    QList<int> counts;
    for (const QString& worker : inNaturalOrder(m_workers.keys())) {
        const Split s = splits.value(worker);
        const QString name =
            m_perParty ? worker.section(QLatin1Char('/'), 0, 0) : QString(worker).replace(QStringLiteral("/worker"), QStringLiteral("/"));
        if (!m_perParty || names.isEmpty() || names.last() != name) {
            names << name;
            bars << Split{};
            counts << 0;
        }
        Split& bar = bars.last();
        const int n = ++counts.last();  // a running mean
        bar.compute += (s.compute - bar.compute) / n;
        bar.communication += (s.communication - bar.communication) / n;
        bar.waiting += (s.waiting - bar.waiting) / n;
    }
    for (QBarSet* s : {m_compute, m_communication, m_waiting}) s->remove(0, s->count());
    double longest = 0;
    for (const Split& bar : bars) {
        *m_compute << bar.compute;
        *m_communication << bar.communication;
        *m_waiting << bar.waiting;
        longest = std::max(longest, bar.compute + bar.communication + bar.waiting);
    }
    m_names->clear();
    m_names->append(names);
    m_seconds->setRange(0, longest > 0 ? longest * 1.05 : 1);
    chart()->setTitle(m_perParty ? tr("Time per party in round %1 (the mean of its workers)").arg(round)
                                 : tr("Time per worker in round %1").arg(round));
}

QList<double> WorkerTimeline::shownSeconds(const QString& worker) const {
    const Split s = m_rounds.value(m_shown).value(worker);
    return {s.compute, s.communication, s.waiting};
}

QString WorkerTimeline::savePng(const QString& path) {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!grab().save(&buffer, "PNG")) return tr("cannot draw the chart to write %1").arg(path);
    return writeUserFile(path, png);
}

QString WorkerTimeline::saveCsv(const QString& path) const {
    QByteArray text = "round,worker,compute_s,comm_s,wait_s\n";
    const QMap<QString, Split> splits = m_rounds.value(m_shown);
    for (const QString& worker : inNaturalOrder(m_workers.keys())) {
        const Split s = splits.value(worker);
        QString name = worker;
        name.replace('"', QStringLiteral("\"\""));
        text += QStringLiteral("%1,\"%2\",%3,%4,%5\n")
                    .arg(m_shown)
                    .arg(name)
                    .arg(s.compute, 0, 'g', 10)
                    .arg(s.communication + s.waiting, 0, 'g', 10)
                    .arg(s.waiting, 0, 'g', 10)
                    .toUtf8();
    }
    return writeUserFile(path, text);
}

}  // namespace hips
