#pragma once
// A stored run of the default topology's shape, for the benchmarks: per round, four workers'
// four train metrics plus the global server's two and the master's two (20 points a round).
#include "RunStore.h"

namespace hips::bench {

inline qint64 writeSyntheticRun(RunStore& store, const QString& name, const QByteArray& topology, int rounds, double secondsPerRound) {
    const qint64 run = store.beginRun(name, topology, {{"rounds", rounds}});
    const double t0 = store.run(run)->started;
    for (int round = 1; round <= rounds; ++round) {
        const double t = t0 + round * secondsPerRound;
        for (int w = 0; w < 4; ++w)
            for (const char* metric : {"train.loss", "train.samples", "train.compute_s", "train.comm_s"})
                store.appendMetric(run, t, QStringLiteral("party%1/worker%2").arg(1 + w / 2).arg(w % 2), round, metric, 1.0 / round);
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.apply_s", 0.01);
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.round_s", secondsPerRound);
        store.appendMetric(run, t, "central/master_worker", round, "eval.test_acc", 0.9 - 0.4 / round);
        store.appendMetric(run, t, "central/master_worker", round, "eval.test_loss", 1.0 / round);
    }
    store.finishRun(run, "finished", {});
    store.flush();
    return run;
}

}  // namespace hips::bench
