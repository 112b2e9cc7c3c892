#include "SchedulerIncarnations.h"

namespace hips {

SchedulerIncarnations::Verdict SchedulerIncarnations::registration(const QString& node, qint64 incarnation, qint64 placement) {
    const auto it = m_current.find(node);
    if (it != m_current.end() && it->incarnation == incarnation) return Verdict::Current;
    // (Placed at the same time: the agent restarted it where it was. Its predecessor is gone.)
    if (it != m_current.end() && placement < it->placement) return Verdict::Superseded;
    m_current[node] = Process{incarnation, placement, {}};
    return Verdict::Replaces;
}

SchedulerIncarnations::Verdict SchedulerIncarnations::message(const QString& node, qint64 incarnation) const {
    const auto it = m_current.constFind(node);
    return it == m_current.cend() || it->incarnation == incarnation ? Verdict::Current : Verdict::Superseded;
}

}  // namespace hips
