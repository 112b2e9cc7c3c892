// RunCharts' charts of each process and each party: CPU and memory of every role process over
// the run (its usage records), each worker's local steps and staleness, the traffic each party
// sent across parties, and a per-party summary of its data (workers, shard, samples trained, its
// own held-out score). Above kWorkerLinesMax workers, a line per party instead of per worker.
#include "ChartColors.h"
#include "MetricRecords.h"
#include "RunCharts.h"

#include <QLocale>
#include <cmath>

namespace hips {

namespace {
QString partyOf(const QString& node) {
    return node.section(QLatin1Char('/'), 0, 0);
}
}  // namespace

void RunCharts::clearPerNode() {
    m_nodePoints.clear();
    m_nodeLines.clear();
    m_partyPoints.clear();
    m_pushes.clear();
    m_partyAcrossLines.clear();
    m_acrossByNode.clear();
    m_parties.clear();
}

void RunCharts::addPerNodeRecord(const QJsonObject& r, double wallMs, double elapsed) {
    if (const auto usage = metric::UsageRecord::from(r)) {
        const double round = std::max(0, usage->round);
        plotNodePoint({m_cpu, usage->node, round, wallMs, elapsed, usage->cpuPercent});
        if (usage->rssBytes) plotNodePoint({m_memory, usage->node, round, wallMs, elapsed, double(*usage->rssBytes) / 1e6});
    }
    if (const auto traffic = metric::TrafficRecord::from(r); traffic && traffic->sent(true) > 0) {
        // A party's bytes across: what each of its nodes has sent there so far (counts only grow).
        const QString party = partyOf(traffic->node);
        m_acrossByNode[traffic->node] = traffic->sent(true);
        quint64 total = 0;
        for (auto it = m_acrossByNode.cbegin(); it != m_acrossByNode.cend(); ++it) total += partyOf(it.key()) == party ? *it : 0;
        m_parties[party].across = total;
        auto line = m_partyAcrossLines.find(party);
        if (line == m_partyAcrossLines.end())
            line = m_partyAcrossLines.insert(
                party, m_partyAcross->addLine(party, chartcolors::kParty[m_partyAcrossLines.size() % chartcolors::kParty.size()]));
        m_partyAcross->append(*line, std::max(0, traffic->round), wallMs, elapsed, double(total) / 1e6);
    }
    if (const auto train = metric::TrainRecord::from(r)) {
        PartyFacts& p = m_parties[partyOf(train->node)];
        p.workers.insert(train->node);
        p.trained += train->samples;
    }
    if (const auto score = metric::ScoreRecord::from(r); score && score->kind == metric::kPartyEval)
        m_parties[partyOf(score->node)].heldOut = score->score;
    if (r.value(metric::kKind).toString() == metric::kStartup && r.value(metric::kSamples).isDouble()) {
        const QString node = r.value(metric::kNode).toString();
        PartyFacts& p = m_parties[partyOf(node)];
        // Each part once, however many workers hold it (Draco's repetition code) or say so again (a
        // restart); a record that names no parts (an older run's) holds the worker's own.
        const QJsonObject parts = r.value(metric::kDataParts).toObject();
        if (parts.isEmpty() && !p.shards.contains(node)) p.shards.insert(node, qint64(r.value(metric::kSamples).toDouble()));
        for (auto it = parts.begin(); it != parts.end(); ++it)
            if (!p.shards.contains(it.key())) p.shards.insert(it.key(), qint64(it.value().toDouble()));
        p.workers.insert(node);
    }
}

void RunCharts::plotNodePoint(const NodePoint& point) {
    m_nodePoints.append(point);
    LiveChart* chart = point.chart;
    const bool countsPushes = chart == m_staleness;
    if (m_everyWorker) {
        const double x = countsPushes ? ++m_pushes[point.node] : point.x;
        chart->append(lineOf(chart, m_nodeLines[chart], point.node), x, point.wallMs, point.elapsed, point.value);
        return;
    }
    const QString party = partyOf(point.node);
    PartyPoint& p = m_partyPoints[chart][party];
    if (p.line < 0)
        p.line = chart->addLine(
            party, chartcolors::kParty[m_partyColourOf.value(party, int(m_partyPoints[chart].size())) % chartcolors::kParty.size()]);
    const double x = countsPushes ? ++m_pushes[party] : point.x;
    // CPU and memory: what all its processes take, each at its newest report (a process reports
    // its usage at most once a second, so in a short round only some do). Local steps and
    // staleness: the mean of its workers' reports of the round.
    const bool usage = chart == m_cpu || chart == m_memory;
    const bool drawn = !p.latest.isEmpty();
    if (drawn && x < p.x) {  // a late report of a round whose point is drawn (it is in the points kept)
        if (usage) p.latest.insert(point.node, point.value);  // (still the newest of its process)
        return;
    }
    const bool again = drawn && x == p.x;  // one more report of the party's in this round
    if (!again && !usage) p.latest.clear();
    p.x = x;
    p.latest.insert(point.node, point.value);  // a process's second report replaces its first
    double sum = 0;
    for (double v : std::as_const(p.latest)) sum += v;
    const double value = usage ? sum : sum / double(p.latest.size());
    if (again) chart->replaceLast(p.line, x, point.wallMs, point.elapsed, value);
    else chart->append(p.line, x, point.wallMs, point.elapsed, value);
}

void RunCharts::setEveryWorker(bool every) {
    m_everyWorker = every;
    applyEveryWorker();
}

// The charts of each worker and process drawn again from their points, a line each or a line per party.
void RunCharts::applyEveryWorker() {
    const bool every = m_everyWorker;
    m_steps->setTitle(every ? tr("Local steps per worker and round") : tr("Local steps per round (mean of each party's workers)"));
    m_cpu->setTitle(every ? tr("CPU per process (100 % = one core)") : tr("CPU per party (its processes together; 100 % = one core)"));
    m_memory->setTitle(every ? tr("Memory per process") : tr("Memory per party (its processes together)"));
    m_timeline->setPerParty(!every);
    const QVector<NodePoint> points = std::exchange(m_nodePoints, {});
    m_nodeLines.clear();
    m_partyPoints.clear();
    m_pushes.clear();
    for (LiveChart* chart : {m_steps, m_staleness, m_cpu, m_memory}) chart->clear();
    m_nodePoints.reserve(points.size());
    for (const NodePoint& point : points) plotNodePoint(point);
}

// A row per party: the data it holds and trained on, what it sent across, and its own test.
QString RunCharts::partyFactsHtml() const {
    if (m_parties.isEmpty()) return {};
    QString rows;
    for (const QString& party : inNaturalOrder(m_parties.keys())) {
        const PartyFacts& p = m_parties.find(party).value();
        if (p.workers.isEmpty() && p.across == 0) continue;  // the central party: it trains nothing
        qint64 shard = 0;
        for (qint64 s : p.shards) shard += s;
        rows += QStringLiteral(
                    "<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td><td align='right'>%4</td>"
                    "<td align='right'>%5</td><td align='right'>%6</td></tr>")
                    .arg(party.toHtmlEscaped())
                    .arg(p.workers.size())
                    .arg(shard > 0 ? QLocale().toString(shard) : QStringLiteral("-"))
                    .arg(QLocale().toString(p.trained))
                    .arg(double(p.across) / 1e6, 0, 'f', 1)
                    .arg(std::isnan(p.heldOut) ? QStringLiteral("-") : QString::number(p.heldOut, 'f', 4));
    }
    if (rows.isEmpty()) return {};
    return tr("<h4>Per party</h4><table cellpadding='2'><tr><th align='left'>party</th><th>workers</th><th>data</th>"
              "<th>trained</th><th>MB across</th><th>own test</th></tr>%1</table>")
        .arg(rows);
}

}  // namespace hips
