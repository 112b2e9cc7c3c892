#pragma once
// A stored run's rows per round, made by the one builder of rows (RunProgress) from its stored
// metric and traffic rows, replayed in time order as they came in: the history view, the report
// and the live panel show the same rows with the same definitions (throughput = samples trained
// so far / seconds since the start).
#include "HistoryRecords.h"
#include "RunClock.h"
#include "RunProgress.h"

namespace hips {

struct StoredRounds {
    QList<RoundRow> rows;
    QList<double> wallMs;  // when each round finished training (unix ms)
};

// `trainReportsPerRound`: what RunProgress waits for (the run's topology says; 0: every node
// that ever reported a round). Rows' times are on the run's own clock (pauses left out).
StoredRounds replayRounds(const RunClock& clock, const QList<MetricRecord>& metrics, const QList<TrafficRecord>& traffic,
                          int trainReportsPerRound, int rounds, int evalEvery);

}  // namespace hips
