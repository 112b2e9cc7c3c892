#pragma once
// Everything a run report shows, built from the run history alone, so that any past run
// can be exported: the stored rows plus the figures and series derived from them.
// The CSV and JSON forms are written here; the charts and the HTML/PDF forms live in ui/report.
#include "RoundReplay.h"
#include "RunStore.h"

#include <QPointF>
#include <optional>

namespace hips {

// A field as RFC 4180 has it (quoted when it holds a comma, a quote or a line break, a lone CR
// too); text that a spreadsheet would take for a formula (=, +, -, @ first: a name from a history
// file may be "=HYPERLINK(...)") gets a leading apostrophe, as spreadsheets themselves write it.
QByteArray csvField(const QString& s);

struct RunReport {
    RunRecord run;
    RunFacts facts;
    QByteArray topologyJson;
    QJsonObject settings;
    QList<MetricRecord> metrics;
    QList<TrafficRecord> traffic;
    QList<EventRecord> events;
    QList<ProcessRecord> processes;

    // Derived figures. Times are seconds of running since the run started (its own clock: the
    // pause before a resume left out); -1 means "not available".
    RunClock clock;
    double seconds = 0;  // duration (to the last row for a run that never ended)
    double pausedSeconds = 0;  // stopped between a stop and a resume (hips run --resume), left out
    double targetAccuracy = 0.85;
    double timeToTarget = -1;  // first evaluation at or above the target accuracy (a classifier's)
    int roundToTarget = -1;
    double bytesInside = 0, bytesAcross = 0;
    double samplesPerSecond = 0;  // samples trained by all workers / seconds to the last round (as its row)
    double computeRatio = -1;  // compute / (compute + communication and waiting), over all workers

    // One row per round, as the live panel and `hips run` show them (RunProgress).
    StoredRounds rounds;

    // Derived series (x, y). The test score is accuracy, or a regression's RMSE (lower is better).
    bool regression = false;  // the run's evaluations are RMSE
    QList<QPointF> scoreByRound, scoreByTime;
    QList<QPointF> top5ByRound;  // top-5 accuracy (classification with 5 classes or more)
    QMap<QString, QList<QPointF>> heldOutScoreByRound;  // each party's score on its own held-out rows, by node
    QList<QPointF> testLossByRound, trainLossByRound;  // train loss: mean over workers
    QList<QPointF> throughputByRound;  // samples/s: trained so far / seconds since the start
    QList<QPointF> computeRatioByRound;
    QList<QPointF> insideMBByTime, acrossMBByTime;  // cumulative megabytes sent
    QList<QPointF> insideMBByRound, acrossMBByRound;  // the same, once every sender had finished the round

    // Reads run `id` from the store; nullopt (and *error) when there is no such run.
    static std::optional<RunReport> load(const RunStore& store, qint64 id, double targetAccuracy, QString* error);

    QByteArray toCsv() const;  // metrics in long format, traffic rows as "traffic.<tier>" per link
    QByteArray toJson() const;  // every row and figure
    int metricPointCount() const { return int(metrics.size() + traffic.size()); }

private:
    void derive();
};

// "12.3 MB", "1.0 GB": what a person reads in a table.
QString formatBytes(double bytes);
QString formatSeconds(double seconds);  // "-" when negative

}  // namespace hips
