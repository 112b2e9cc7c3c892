#pragma once
// What a run does when one of its processes dies or falls silent (`training.fault_policy`): the
// only list of the policies and their parameters.
//   fail      the run stops at the first death, naming the process (the default).
//   continue  the schedulers declare a silent node down instead of aborting; servers close their
//             rounds with the contributors that are up (at least min_workers of a party's workers
//             and min_parties parties, else the run stops naming the cause), or with those that
//             pushed within round_timeout_s; the agents restart a crashed worker or master worker
//             up to max_restarts times with backoff, and a node that comes back rejoins with the
//             newest model.
#include "StrategyInfo.h"

namespace hips {

namespace fault {
inline constexpr char kFail[] = "fail";
inline constexpr char kContinue[] = "continue";
}  // namespace fault

class FaultPolicyRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

// The agent's wait before restart `attempt` (1, 2, ...): 1 s doubling, at most 30 s.
int restartDelayMs(int attempt);

// A process that ran this long before it died was not crash-looping: its restarts are counted (and
// backed off) from the first again. So max_restarts bounds restarts in a row, and a run that goes
// on for days meets each occasional fault with a 1 s restart, not a 30 s one or none.
constexpr qint64 kSteadyRunMs = 60000;
inline int restartsInARow(int restartsSoFar, qint64 ranMs) {
    return ranMs >= kSteadyRunMs ? 0 : restartsSoFar;
}

}  // namespace hips
