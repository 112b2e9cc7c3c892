#include "SimMembership.h"

#include "RoleError.h"

#include <algorithm>

namespace hips::sim {

double SimMembership::wentOff(const QString& id, double off, qint64 round) {
    const TrainingSettings& s = m_topology.training;
    if (!s.continuesThroughFailures())
        throw RoleError(QStringLiteral("%1 went off at %2 s (its availability trace) before its push of round %3 was in; under "
                                       "fault_policy %4 the run stops there, as it would deployed: set fault_policy continue to go on "
                                       "without it")
                            .arg(id)
                            .arg(off, 0, 'f', 1)
                            .arg(round)
                            .arg(s.faultPolicy)
                            .toStdString());
    const double declared = off + s.heartbeatTimeoutS;
    if (!m_down.contains(id)) {
        m_say(declared, id, "down", "went off (its availability trace)");
        m_down.insert(id, declared);
    }
    return declared;
}

bool SimMembership::mayTrain(const QString& id, double at) {
    if (m_left.contains(id)) return false;
    const auto down = m_down.constFind(id);
    if (down == m_down.cend()) return true;
    at = std::max(at, *down);  // (said after its scheduler's word that it was down, even when on again before)
    m_down.erase(down);
    const std::optional<Node> node = m_topology.node(id);
    const Party* party = node ? m_topology.party(node->party) : nullptr;
    if (!party || !party->collective()) {
        m_say(at, id, "up", "on again (its availability trace)");
        return true;
    }
    m_left.insert(id);
    m_say(at, id, "left",
          "on again, but its party's collective went on without it, and a collective party takes no member back mid-run: it "
          "leaves the run");
    return false;
}

}  // namespace hips::sim
