#pragma once
// Folds the metric stream of a run (train / aggregate / eval / traffic records from every
// role) into one row per round, emitted in round order once the round is complete:
// the global server applied it, every training worker reported it, and, on an
// evaluation round, the master worker evaluated it (or said it skipped it for a newer one:
// such a round has no accuracy).
#include <QJsonObject>
#include <QHash>
#include <QList>
#include <QMap>
#include <limits>

namespace hips {

struct RoundRow {
    int round = 0;
    double testAccuracy = std::numeric_limits<double>::quiet_NaN();  // NaN: not an eval round
    double testLoss = std::numeric_limits<double>::quiet_NaN();
    double testTop5 = std::numeric_limits<double>::quiet_NaN();  // NaN: not evaluated, or fewer than 5 classes
    double testRmse = std::numeric_limits<double>::quiet_NaN();  // a regression's score (its testAccuracy is NaN)
    // The round's test score, whichever the task has: accuracy, or a regression's RMSE.
    double testScore() const { return testAccuracy == testAccuracy ? testAccuracy : testRmse; }
    double trainLoss = 0;  // mean over the workers; NaN when one reported a loss that is not a number
    int trainReports = 0;  // the workers' train records behind it (none: nobody trained, e.g. every drawn worker was down)
    double samplesPerSecond = 0;
    quint64 bytesInside = 0;  // cumulative bytes sent inside parties
    quint64 bytesAcross = 0;  // cumulative bytes sent across parties
    double elapsed = 0;  // seconds since the run started
    double computeSeconds = 0;  // summed over workers, this round
    double commSeconds = 0;  // summed over workers: pushing, waiting for and pulling the model
    // ε spent by this round under privacy, as the run's controller counts it (with the rounds its
    // restarts trained again); NaN: set by no controller (a row the history's replay made).
    double epsilon = std::numeric_limits<double>::quiet_NaN();
    double computeRatio() const {  // ESync's computing-time ratio
        return computeSeconds + commSeconds > 0 ? computeSeconds / (computeSeconds + commSeconds) : 0;
    }
};

class RunProgress {
public:
    RunProgress(int trainingWorkers, int rounds, int evalEvery) : m_workers(trainingWorkers), m_rounds(rounds), m_evalEvery(evalEvery) {}

    // Ingests one metric record; returns the rows it completed (possibly none).
    QList<RoundRow> ingest(const QJsonObject& record, double elapsedSeconds);
    // The run is over (stopped, failed, or its last evaluation will not come): the rounds that
    // trained but wait for an evaluation are complete as they are, without accuracy, and so are
    // applied rounds some worker never reported (it was late for a quorum, or the run stopped).
    QList<RoundRow> finish();

    quint64 bytesInside() const;
    quint64 bytesAcross() const;
    qint64 totalSamples() const { return m_totalSamples; }
    double bestAccuracy() const { return m_best; }
    double bestRmse() const { return m_bestRmse; }  // a regression's lowest test RMSE; NaN: none yet
    // Of the rows emitted (none kept: a run may go on for weeks): how many; the newest test score
    // (NaN: none yet); and how many had a training loss that is not a number.
    int rowCount() const { return m_rowCount; }
    double finalScore() const { return m_finalScore; }
    int divergedRows() const { return m_divergedRows; }
    // Rounds the global server applied: the run's round count, as the history counts it (a
    // stopped run may have applied rounds whose rows never completed).
    int aggregatedRounds() const { return m_aggregatedRounds; }

private:
    struct Pending {
        int trainReports = 0;
        double lossSum = 0;
        double computeSum = 0;
        double commSum = 0;
        bool aggregated = false;
        bool evaluated = false;
        double accuracy = std::numeric_limits<double>::quiet_NaN();
        double testLoss = std::numeric_limits<double>::quiet_NaN();
        double top5 = std::numeric_limits<double>::quiet_NaN();
        double rmse = std::numeric_limits<double>::quiet_NaN();
        qint64 samples = 0;
        bool trained = false;  // aggregated and every worker reported: the round's own moment
        double elapsed = 0;
        double aggregatedAt = 0;  // when the global server applied it
        quint64 inside = 0, across = 0;
    };
    void markTrained(Pending& p, double elapsed);
    bool isEvalRound(int round) const { return round % m_evalEvery == 0 || round == m_rounds; }
    QList<RoundRow> drain(bool final = false);  // emits complete rounds in order (trained ones, when final)

    int m_workers, m_rounds, m_evalEvery;
    QMap<int, Pending> m_pending;
    int m_nextRound = 1;
    qint64 m_totalSamples = 0;
    qint64 m_samplesThrough = 0;  // samples of the rounds already emitted
    void noteBest(const QJsonObject& eval);
    double m_best = std::numeric_limits<double>::quiet_NaN();
    double m_bestRmse = std::numeric_limits<double>::quiet_NaN();
    struct Sent {
        quint64 inside = 0, across = 0;
    };
    QHash<QString, Sent> m_sent;  // latest cumulative counters per node
    int m_rowCount = 0;
    double m_finalScore = std::numeric_limits<double>::quiet_NaN();
    int m_divergedRows = 0;
    int m_aggregatedRounds = 0;
};

}  // namespace hips
