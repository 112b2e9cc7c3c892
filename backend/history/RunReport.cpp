#include "RunReport.h"

#include "TopologyReader.h"
#include "Vocabulary.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <algorithm>
#include <cmath>

namespace hips {

std::optional<RunReport> RunReport::load(const RunStore& store, qint64 id, double targetAccuracy, QString* error) {
    const auto run = store.run(id);
    if (!run) {
        *error = QStringLiteral("no run %1 in this history; see `hips history list`").arg(id);
        return std::nullopt;
    }
    RunReport r;
    r.run = *run;
    r.facts = store.facts(id);
    r.topologyJson = store.topologyJson(id);
    r.settings = store.settings(id);
    r.metrics = store.metrics(id);
    r.traffic = store.traffic(id);
    r.events = store.events(id);
    r.processes = store.processes(id);
    r.targetAccuracy = targetAccuracy;
    r.derive();
    return r;
}

namespace {

// The rows per round, replayed through RunProgress with what the run's topology expects.
StoredRounds roundsOf(const RunReport& r) {
    int reports = 0, rounds = r.facts.rounds, evalEvery = 1;
    const TopologyLoad load = TopologyReader::readJson(r.topologyJson);
    if (load.ok()) {
        reports = load.topology->trainReportsPerRound();
        rounds = load.topology->training.rounds;
        evalEvery = load.topology->training.evalEvery;
    }
    return replayRounds(r.clock, r.metrics, r.traffic, reports, rounds, evalEvery);
}

QList<QPointF> cumulativeByTier(const QList<TrafficRecord>& rows, const QString& tier, const RunClock& clock) {
    QHash<QString, qint64> latest;  // counters are cumulative per link
    double total = 0;
    QList<QPointF> out;
    for (const TrafficRecord& r : rows) {
        if (r.tier != tier) continue;
        qint64& last = latest[r.link];
        total += double(std::max<qint64>(0, r.bytes - last));
        last = std::max(last, r.bytes);
        out << QPointF(clock.elapsed(r.t), total / 1e6);
    }
    return out;
}

// Cumulative bytes once every sender had reported round r: per link, the largest counter of
// rows up to that round.
QList<QPointF> cumulativeByRound(const QList<TrafficRecord>& rows, const QString& tier) {
    QMap<int, QList<const TrafficRecord*>> byRound;
    for (const TrafficRecord& r : rows)
        if (r.tier == tier && r.round >= 0) byRound[r.round] << &r;
    QHash<QString, qint64> latest;
    QList<QPointF> out;
    for (auto it = byRound.begin(); it != byRound.end(); ++it) {
        for (const TrafficRecord* r : *it) latest[r->link] = std::max(latest.value(r->link), r->bytes);
        double total = 0;
        for (qint64 b : latest) total += double(b);
        out << QPointF(it.key(), total / 1e6);
    }
    return out;
}

}  // namespace

void RunReport::derive() {
    if (run.started <= 0)  // not known (RunStoreReads' storedTime): the run began by its first row
        for (const MetricRecord& m : metrics) run.started = run.started > 0 ? std::min(run.started, m.t) : m.t;
    clock = RunClock(run, metrics, traffic, events);
    double lastT = run.started;
    for (const MetricRecord& m : metrics) {
        lastT = std::max(lastT, m.t);
        const bool rmse = m.name == metric::kStoredTestRmse;
        regression = regression || rmse;
        if (m.name == metric::kStoredTestAccuracy || rmse) {
            scoreByRound << QPointF(m.round, m.value);
            scoreByTime << QPointF(clock.elapsed(m.t), m.value);
            if (!rmse && timeToTarget < 0 && m.value >= targetAccuracy) {
                timeToTarget = clock.elapsed(m.t);
                roundToTarget = m.round;
            }
        } else if (m.name == metric::kStoredTestLoss) {
            testLossByRound << QPointF(m.round, m.value);
        } else if (m.name == metric::kStoredTestTop5 && m.value >= 0) {
            top5ByRound << QPointF(m.round, m.value);
        } else if (m.name == metric::kStoredPartyAccuracy || m.name == metric::kStoredPartyRmse) {
            heldOutScoreByRound[m.source] << QPointF(m.round, m.value);
        }
    }
    for (QList<QPointF>& series : heldOutScoreByRound)
        std::sort(series.begin(), series.end(), [](QPointF a, QPointF b) { return a.x() < b.x(); });
    std::sort(top5ByRound.begin(), top5ByRound.end(), [](QPointF a, QPointF b) { return a.x() < b.x(); });
    std::sort(scoreByRound.begin(), scoreByRound.end(), [](QPointF a, QPointF b) { return a.x() < b.x(); });
    std::sort(testLossByRound.begin(), testLossByRound.end(), [](QPointF a, QPointF b) { return a.x() < b.x(); });

    rounds = roundsOf(*this);
    double compute = 0, busy = 0;
    for (const RoundRow& row : rounds.rows) {
        compute += row.computeSeconds;
        busy += row.computeSeconds + row.commSeconds;
        if (row.trainReports > 0 && std::isfinite(row.trainLoss)) trainLossByRound << QPointF(row.round, row.trainLoss);
        throughputByRound << QPointF(row.round, row.samplesPerSecond);
        if (row.computeSeconds + row.commSeconds > 0) computeRatioByRound << QPointF(row.round, row.computeRatio());
    }
    if (busy > 0) computeRatio = compute / busy;
    if (!rounds.rows.isEmpty()) samplesPerSecond = rounds.rows.last().samplesPerSecond;

    for (const TrafficRecord& t : traffic) lastT = std::max(lastT, t.t);
    // A simulated run's rows are on its virtual clock, and its end (run.ended) on the real one:
    // it ends at its last row.
    const bool simulated =
        std::any_of(events.begin(), events.end(), [](const EventRecord& e) { return e.level == QLatin1String("simulated"); });
    const double end = run.ended > 0 && !simulated ? run.ended : lastT;
    seconds = clock.elapsed(end);
    pausedSeconds = std::max(0.0, end - run.started - seconds);
    insideMBByTime = cumulativeByTier(traffic, metric::kTierInside, clock);
    acrossMBByTime = cumulativeByTier(traffic, metric::kTierAcross, clock);
    insideMBByRound = cumulativeByRound(traffic, metric::kTierInside);
    acrossMBByRound = cumulativeByRound(traffic, metric::kTierAcross);
    bytesInside = insideMBByTime.isEmpty() ? 0 : insideMBByTime.last().y() * 1e6;
    bytesAcross = acrossMBByTime.isEmpty() ? 0 : acrossMBByTime.last().y() * 1e6;
}

QByteArray csvField(const QString& s) {
    QString text = s;
    if (!text.isEmpty() && QStringLiteral("=+-@\t\r").contains(text.front())) text.prepend(QLatin1Char('\''));
    if (!text.contains(',') && !text.contains('"') && !text.contains('\n') && !text.contains('\r')) return text.toUtf8();
    return '"' + text.replace('"', QStringLiteral("\"\"")).toUtf8() + '"';
}

QByteArray RunReport::toCsv() const {
    QByteArray out = "run_id,t,source,round,name,value\n";
    const QByteArray id = QByteArray::number(run.id);
    auto row = [&](double t, const QString& source, int round, const QString& name, double value) {
        out += id + ',' + QByteArray::number(t, 'f', 3) + ',' + csvField(source) + ',' +
               (round >= 0 ? QByteArray::number(round) : QByteArray()) + ',' + csvField(name) + ',' + QByteArray::number(value, 'g', 10) +
               '\n';
    };
    for (const MetricRecord& m : metrics) row(m.t, m.source, m.round, m.name, m.value);
    for (const TrafficRecord& t : traffic) row(t.t, t.link, t.round, QStringLiteral("traffic.") + t.tier, double(t.bytes));
    return out;
}

static QJsonArray points(const QList<QPointF>& series) {
    QJsonArray out;
    for (const QPointF& p : series) out.append(QJsonArray{p.x(), p.y()});
    return out;
}

// {"party1/worker0": [[round, accuracy], ...], ...}
static QJsonObject heldOutJson(const QMap<QString, QList<QPointF>>& byNode) {
    QJsonObject out;
    for (auto it = byNode.begin(); it != byNode.end(); ++it) out.insert(it.key(), points(*it));
    return out;
}

QByteArray RunReport::toJson() const {
    QJsonArray metricRows, trafficRows, eventRows, processRows;
    for (const MetricRecord& m : metrics)
        metricRows.append(QJsonObject{{"t", m.t}, {"source", m.source}, {"round", m.round}, {"name", m.name}, {"value", m.value}});
    for (const TrafficRecord& t : traffic)
        trafficRows.append(QJsonObject{{"t", t.t}, {"link", t.link}, {"tier", t.tier}, {"bytes", double(t.bytes)}, {"round", t.round}});
    for (const EventRecord& e : events)
        eventRows.append(QJsonObject{{"t", e.t}, {"level", e.level}, {"source", e.source}, {"message", e.message}});
    for (const ProcessRecord& p : processes)
        processRows.append(QJsonObject{{"node", p.node},
                                       {"role", p.role},
                                       {"party", p.party},
                                       {"host", p.host},
                                       {"rank", p.rank},
                                       {"pid", double(p.pid)},
                                       {"started", p.started},
                                       {"ended", p.ended},
                                       {"exit_code", p.exitCode},
                                       {"crashed", p.crashed},
                                       {"error", p.error},
                                       {"state", p.state}});
    // A regression's score is its RMSE: the same figures under names that say so.
    const QString score = regression ? QStringLiteral("rmse") : QStringLiteral("acc");
    const QJsonObject summary{{"rounds", facts.rounds},
                              {"best_test_" + score, regression ? facts.bestRmse : facts.bestAccuracy},
                              {"final_test_" + score, regression ? facts.finalRmse : facts.finalAccuracy},
                              {"final_test_top5", top5ByRound.isEmpty() ? -1.0 : top5ByRound.last().y()},
                              {"seconds", seconds},
                              {"paused_s", pausedSeconds},
                              {"target_acc", targetAccuracy},
                              {"time_to_target_s", timeToTarget},
                              {"round_to_target", roundToTarget},
                              {"bytes_inside", bytesInside},
                              {"bytes_across", bytesAcross},
                              {"samples_per_s", samplesPerSecond},
                              {"compute_ratio", computeRatio}};
    const QJsonObject root{{"run", QJsonObject{{"id", double(run.id)},
                                               {"name", run.name},
                                               {"status", run.status},
                                               {"started", run.started},
                                               {"ended", run.ended},
                                               {"controller_summary", run.summary}}},
                           {"topology", QJsonDocument::fromJson(topologyJson).object()},
                           {"settings", settings},
                           {"summary", summary},
                           {"series", QJsonObject{{"test_" + score + "_by_round", points(scoreByRound)},
                                                  {"test_" + score + "_by_time", points(scoreByTime)},
                                                  {"test_top5_by_round", points(top5ByRound)},
                                                  {"held_out_" + score + "_by_round", heldOutJson(heldOutScoreByRound)},
                                                  {"test_loss_by_round", points(testLossByRound)},
                                                  {"train_loss_by_round", points(trainLossByRound)},
                                                  {"samples_per_s_by_round", points(throughputByRound)},
                                                  {"compute_ratio_by_round", points(computeRatioByRound)},
                                                  {"inside_mb_by_time", points(insideMBByTime)},
                                                  {"across_mb_by_time", points(acrossMBByTime)},
                                                  {"inside_mb_by_round", points(insideMBByRound)},
                                                  {"across_mb_by_round", points(acrossMBByRound)}}},
                           {"processes", processRows},
                           {"events", eventRows},
                           {"metrics", metricRows},
                           {"traffic", trafficRows}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString formatBytes(double bytes) {
    if (bytes >= 1e9) return QString::number(bytes / 1e9, 'f', 2) + QStringLiteral(" GB");
    if (bytes >= 1e6) return QString::number(bytes / 1e6, 'f', 1) + QStringLiteral(" MB");
    if (bytes >= 1e3) return QString::number(bytes / 1e3, 'f', 1) + QStringLiteral(" kB");
    return QString::number(qint64(bytes)) + QStringLiteral(" B");
}

QString formatSeconds(double seconds) {
    if (!(seconds >= 0) || !std::isfinite(seconds)) return QStringLiteral("-");  // (NaN too: times from a history file)
    if (seconds < 120) return QString::number(seconds, 'f', 1) + QStringLiteral(" s");
    const qint64 whole = seconds < 9e15 ? qint64(seconds) : qint64(9e15);  // (an int overflowed past 68 years)
    return QStringLiteral("%1 min %2 s").arg(whole / 60).arg(whole % 60);
}

}  // namespace hips
