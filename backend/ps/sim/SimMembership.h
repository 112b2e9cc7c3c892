#pragma once
// hips simulate's membership, as the deployed schedulers keep it under fault_policy continue: a
// worker that went off before its push was in is declared down heartbeat_timeout_s later, and
// taken back once it is on again, as its scheduler and server take it back deployed. Not in a
// collective party: its members went on without it and take no member back mid-run
// (PartyCollective), so the deployed worker leaves the run; here it trains no more either.
#include "Topology.h"

#include <QHash>
#include <QSet>
#include <functional>

namespace hips::sim {

class SimMembership {
public:
    // What the global scheduler would say (a membership record), and when on the virtual clock.
    using Say = std::function<void(double at, const QString& member, const char* state, const char* reason)>;
    SimMembership(const Topology& t, Say say) : m_topology(t), m_say(std::move(say)) {}

    // `id` went off at `off`, before its push of `round` was in: under fault_policy continue it is
    // declared down heartbeat_timeout_s later (said once), which this returns; under fail the
    // run stops (RoleError), as it would deployed.
    double wentOff(const QString& id, double off, qint64 round);
    bool isDown(const QString& id) const { return m_down.contains(id); }
    bool hasLeft(const QString& id) const { return m_left.contains(id); }  // a collective party's member, for good
    // `id` is on at `at`: whether it may train (never down, or taken back now).
    bool mayTrain(const QString& id, double at);

private:
    const Topology& m_topology;
    Say m_say;
    QHash<QString, double> m_down;  // declared down (when) and not on again since
    QSet<QString> m_left;  // a collective party's, gone for good
};

}  // namespace hips::sim
