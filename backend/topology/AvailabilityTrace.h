#pragma once
// Availability traces (WorkerGroup::availability, hips simulate): files of the virtual seconds a
// worker group's workers are on, as FedScale's device traces give them:
//
//   # start end        (seconds on the virtual clock, one on-interval per line)
//   0 120
//   300 900.5
//
// Read before a simulated run starts (so a wrong file is refused, naming it, before anything is
// written) and again by the simulator.
#include "Topology.h"

#include <QHash>
#include <utility>
#include <vector>

namespace hips {

using OnIntervals = std::vector<std::pair<double, double>>;  // sorted, disjoint [on, off)

inline constexpr qint64 kMaxTraceBytes = 16 << 20;  // one file
inline constexpr qint64 kMaxTracesBytes = 256 << 20;  // every file a topology names together

// Whether a worker group's availability setting is a probability per round (else a trace's path).
bool availabilityIsProbability(const QString& setting, double* p = nullptr);

// One trace file's on-intervals, sorted, overlapping and touching ones merged, into `intervals`;
// returns why the file is no trace (naming it and the line), or nothing.
QString readAvailabilityTrace(const QString& path, OnIntervals* intervals);

// Every trace the topology's worker groups name, read once each, by path (`traces` may be null:
// a check); returns why one is no trace, naming the worker group's place in the file, or nothing.
QString readAvailabilityTraces(const Topology& topology, QHash<QString, OnIntervals>* traces);

}  // namespace hips
