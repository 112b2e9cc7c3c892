#include "RunProgress.h"

#include "MetricRecords.h"
#include "TopologyLimits.h"

#include <QJsonArray>
#include <QtNumeric>
#include <algorithm>
#include <cmath>

namespace hips {

QList<RoundRow> RunProgress::ingest(const QJsonObject& r, double elapsed) {
    const QString kind = r.value(metric::kKind).toString();
    const int round = r.value(metric::kRound).toInt(-1);
    // A round past the run's (a stranger's record, a damaged history) is no round of it: an
    // aggregate of round 2·10⁹ closed every round before it, one map entry each, until memory ran out.
    if (round > (m_rounds > 0 ? m_rounds : kMaxRounds)) return {};
    if (const auto traffic = metric::TrafficRecord::from(r)) {
        m_sent[traffic->node] = Sent{traffic->sent(false), traffic->sent(true)};
    } else if (const auto train = metric::TrainRecord::from(r); train && round >= m_nextRound) {
        Pending& p = m_pending[round];
        ++p.trainReports;
        p.lossSum += train->loss;  // (a NaN for a diverged worker, never a 0)
        p.computeSum += train->computeSeconds;
        p.commSum += train->commSeconds;
        p.samples += train->samples;
        m_totalSamples += train->samples;
        markTrained(p, elapsed);
    } else if (kind == metric::kAggregate && round >= m_nextRound) {
        m_aggregatedRounds = std::max(m_aggregatedRounds, round);
        Pending& p = m_pending[round];
        p.aggregated = true;
        p.aggregatedAt = elapsed;
        markTrained(p, elapsed);
        // Rounds close in order, so the rounds before this one are done, even one whose own
        // aggregate record never came (its agent died with it unsent: fault_policy continue).
        for (int before = m_nextRound; before < round; ++before)
            if (Pending& q = m_pending[before]; !q.aggregated) q.aggregated = true, q.aggregatedAt = elapsed;
        // Every worker's report of a round comes before the next round can close; one still
        // missing belongs to a worker that died or was left out (fault_policy continue).
        for (auto it = m_pending.begin(); it != m_pending.end() && it.key() < round; ++it)
            if (it->aggregated && !it->trained) {
                it->trained = true;
                it->elapsed = it->aggregatedAt;
                it->inside = bytesInside();
                it->across = bytesAcross();
            }
    } else if (kind == metric::kEval && round >= m_nextRound) {
        // The evaluator only goes forward (it evaluates the newest snapshot; a restarted one starts
        // from the newest round): the rounds before this one that it has not evaluated it never will.
        for (auto it = m_pending.begin(); it != m_pending.end() && it.key() < round; ++it) it->evaluated = true;
        for (const QJsonValue& v : r.value(metric::kSkipped).toArray())  // (and those it says it skipped, seen or not)
            if (const int skipped = v.toInt(-1); skipped >= m_nextRound && skipped < round) m_pending[skipped].evaluated = true;
        Pending& p = m_pending[round];
        p.evaluated = true;
        p.testLoss = r.value(metric::kTestLoss).toDouble(qQNaN());  // (null: not a number, the model diverged)
        if (const double top5 = r.value(metric::kTestTop5).toDouble(-1); top5 >= 0) p.top5 = top5;
        if (r.contains(metric::kTestRmse)) p.rmse = r.value(metric::kTestRmse).toDouble(qQNaN());  // a regression
        // (none: a regression's RMSE that was no number, which the history does not keep: not 0,
        // which read as a perfect score)
        else p.accuracy = r.value(metric::kTestAccuracy).toDouble(qQNaN());
        noteBest(r);
    } else if (kind == metric::kEval && round >= 1) {
        // A round shown already without its score: a resume's checkpoint round, which the resumed
        // master evaluates again. Its row stays as shown; its score counts for the best, as the
        // history's and the report's do (summary.json's best was another's).
        noteBest(r);
    }
    return drain();
}

void RunProgress::noteBest(const QJsonObject& eval) {
    if (eval.contains(metric::kTestRmse)) {  // a regression: lower is better
        const double rmse = eval.value(metric::kTestRmse).toDouble(qQNaN());
        if (std::isnan(m_bestRmse) || rmse < m_bestRmse) m_bestRmse = rmse;
    } else if (const double accuracy = eval.value(metric::kTestAccuracy).toDouble(qQNaN()); std::isnan(m_best) || accuracy > m_best) {
        m_best = accuracy;
    }
}

QList<RoundRow> RunProgress::finish() {
    for (Pending& p : m_pending)
        if (p.aggregated && !p.trained) {
            p.trained = true;
            p.elapsed = p.aggregatedAt;
            p.inside = bytesInside();
            p.across = bytesAcross();
        }
    return drain(true);
}

// Time, throughput and traffic of a round are taken when it finished training, not when
// its (possibly lagging) evaluation arrived.
void RunProgress::markTrained(Pending& p, double elapsed) {
    if (p.trained || !p.aggregated || p.trainReports < m_workers) return;
    p.trained = true;
    p.elapsed = elapsed;
    p.inside = bytesInside();
    p.across = bytesAcross();
}

QList<RoundRow> RunProgress::drain(bool final) {
    QList<RoundRow> done;
    while (m_pending.contains(m_nextRound)) {
        const Pending& p = m_pending[m_nextRound];
        if (!p.trained || (isEvalRound(m_nextRound) && !p.evaluated && !final)) break;
        RoundRow row;
        row.round = m_nextRound;
        row.testAccuracy = p.accuracy;
        row.testLoss = p.testLoss;
        row.testTop5 = p.top5;
        row.testRmse = p.rmse;
        row.trainLoss = p.trainReports ? p.lossSum / p.trainReports : 0;
        row.trainReports = p.trainReports;
        row.computeSeconds = p.computeSum;
        row.commSeconds = p.commSum;
        m_samplesThrough += p.samples;
        row.elapsed = p.elapsed;
        row.samplesPerSecond = p.elapsed > 0 ? double(m_samplesThrough) / p.elapsed : 0;
        row.bytesInside = p.inside;
        row.bytesAcross = p.across;
        m_pending.remove(m_nextRound++);
        ++m_rowCount;
        if (!std::isnan(row.testScore())) m_finalScore = row.testScore();
        if (std::isnan(row.trainLoss)) ++m_divergedRows;
        done.append(row);
    }
    return done;
}

quint64 RunProgress::bytesInside() const {
    quint64 n = 0;
    for (const Sent& s : m_sent) n += s.inside;
    return n;
}

quint64 RunProgress::bytesAcross() const {
    quint64 n = 0;
    for (const Sent& s : m_sent) n += s.across;
    return n;
}

}  // namespace hips
