#pragma once
// A server's round on the virtual clock (hips simulate): the pushes fed to the same RoundCollector
// a deployed server runs, in the order the clock says they arrive.
#include "ModelFrame.h"
#include "RoundCollector.h"

#include <QString>
#include <vector>

namespace hips::sim {

// A push on its way into a server's round, or a contributor declared down (`absent`).
struct Arrival {
    QString from;
    FloatBuffer values;
    double weight = 1;
    double at = 0;
    bool absent = false;
};

struct Outcome {
    bool complete = false;
    double at = 0;  // when the round closed (virtual)
    quint64 late = 0;  // pushes that came after it closed
};

// A round's settings at one tier: fault_policy continue's deadline and minimum (min_workers, a
// count or a fraction of the contributors drawn for the round; or min_parties).
struct Deadline {
    double timeoutS = 0;
    double least = 1;
};

// When the last of `arrivals` came (or was declared down); 0 for none.
double latestArrival(const std::vector<Arrival>& arrivals);

// Every worker of party `party` that trained in the round dropped out (fault_policy continue;
// under fail the first drop-out ended the run): the party sends nothing up, and the round above
// leaves it out from when the last of them was declared down.
Arrival sitOut(const QString& party, const std::vector<Arrival>& arrivals);

// Feeds `a` into the round as the wire would: slice by slice, each checked by the collector.
bool feed(RoundCollector& c, const Arrival& a, qint64 round, size_t size);

// One round of a collector, its arrivals in the order of the virtual clock: the clock decides
// who makes a quorum, who is past round_timeout_s (from the first push), and when a drop-out is
// declared. `drawn`: the contributors drawn for the round, up or not (drawnAmong), whom the
// deadline's minimum counts.
Outcome collect(RoundCollector& c, std::vector<Arrival>& arrivals, qint64 round, size_t size, Deadline deadline, int drawn);

}  // namespace hips::sim
