#include "RunClock.h"

#include <algorithm>

namespace hips {

RunClock::RunClock(const RunRecord& run, const QList<MetricRecord>& metrics, const QList<TrafficRecord>& traffic,
                   const QList<EventRecord>& events)
    : RunClock(run.started) {
    QList<double> resumes;
    for (const EventRecord& e : events)
        if (e.source == QLatin1String("controller") && e.message.startsWith(kResumedEventPrefix) && e.t > run.started) resumes << e.t;
    std::sort(resumes.begin(), resumes.end());
    for (double resumedAt : resumes) {
        // The run stood still from its last row before the resume (a resume drops the rows after
        // its checkpoint, so that row is the checkpoint round's, or one before it).
        const double from = m_segments.last().from;
        double lastRow = from;
        for (const MetricRecord& m : metrics)
            if (m.t < resumedAt && m.t > lastRow) lastRow = m.t;
        for (const TrafficRecord& t : traffic)
            if (t.t < resumedAt && t.t > lastRow) lastRow = t.t;
        m_segments.append({resumedAt, elapsed(lastRow)});
    }
}

double RunClock::elapsed(double unixTime) const {
    auto it = std::upper_bound(m_segments.begin(), m_segments.end(), unixTime, [](double t, const Segment& s) { return t < s.from; });
    const Segment& s = it == m_segments.begin() ? m_segments.first() : *(it - 1);
    return s.carry + (unixTime - s.from);
}

double RunClock::unixTime(double elapsed) const {
    auto it = std::upper_bound(m_segments.begin(), m_segments.end(), elapsed, [](double e, const Segment& s) { return e < s.carry; });
    const Segment& s = it == m_segments.begin() ? m_segments.first() : *(it - 1);
    return s.from + (elapsed - s.carry);
}

}  // namespace hips
