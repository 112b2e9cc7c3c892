#pragma once
// When hips simulate's virtual workers can train (WorkerGroup::availability): always; with a
// probability each round (a seeded draw per worker and round, as reproducible as the run); or as
// a trace file of the virtual seconds they are on (AvailabilityTrace.h).
// A worker trains in a round whose model leaves the global server while it is on; one that goes
// off before its push is in drops out mid-round, and the run's fault_policy takes it from there.
#include "Topology.h"

#include <QHash>
#include <limits>
#include <vector>

namespace hips::sim {

class Availability {
public:
    // Reads every trace file the topology names, once each; throws RoleError naming the file, the
    // line and what is wrong with it.
    explicit Availability(const Topology& topology);
    // Whether `worker` (its index among the training workers) trains in `round`, begun at `at`.
    bool available(const Node& worker, int index, qint64 round, double at) const;
    // When a worker goes off, from `at`: the end of its trace's interval that holds `at`, or `at`
    // itself when it is off then (infinity without a trace: it stays on).
    double offAfter(const Node& worker, double at) const;
    // When a worker's trace next turns it on after `at` (infinity: never again, or no trace).
    double nextOn(const Node& worker, double at) const;

    struct Interval {
        double on = 0, off = 0;
    };

private:
    const std::vector<Interval>* traceOf(const Node& worker) const;

    int m_seed = 1;
    QHash<QString, std::vector<Interval>> m_traces;  // by file
};

// One trace file's on-intervals, sorted, overlapping ones merged; throws RoleError naming the file.
std::vector<std::pair<double, double>> readAvailabilityTrace(const QString& path);

}  // namespace hips::sim
