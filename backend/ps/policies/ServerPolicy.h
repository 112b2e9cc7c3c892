#pragma once
// How a server turns pushes into models (ENGINE.md's ServerPolicy): when it aggregates, whom it
// answers, what goes upstream. The server role owns the sockets, the pulls and the model; its
// policy (chosen from the mode, ModeRegistry::policy) gets every push and the clock.
#include "Channel.h"

#include <chrono>

namespace hips {

class ServerPolicy {
public:
    virtual ~ServerPolicy() = default;
    // One push slice from a node this server serves.
    virtual void onPush(Envelope& push) = 0;
    // Called at least every 200 ms. The policies here keep no deadline: a round lasts as long as
    // its slowest contributor computes, and a dead one is found by the heartbeats.
    virtual void onTick(std::chrono::steady_clock::time_point) {}
    // A contributor declared down (false) or back (true) by the scheduler. The modes here stop the
    // run when one goes, before this is called.
    virtual void onMembership(const QString&, bool) {}
};

}  // namespace hips
