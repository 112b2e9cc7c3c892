#include "RunClock.h"

#include <algorithm>

namespace hips {

RunClock::RunClock(const RunRecord& run, const QList<MetricRecord>& metrics, const QList<TrafficRecord>& traffic,
                   const QList<EventRecord>& events)
    : RunClock(run, resumesOf(run, events), [&](double from, double before) {
          double lastRow = from;
          for (const MetricRecord& m : metrics)
              if (m.t < before && m.t > lastRow) lastRow = m.t;
          for (const TrafficRecord& t : traffic)
              if (t.t < before && t.t > lastRow) lastRow = t.t;
          return lastRow;
      }) {}

RunClock::RunClock(const RunRecord& run, QList<double> resumes, const std::function<double(double, double)>& lastRowBetween)
    : RunClock(run.started) {
    std::sort(resumes.begin(), resumes.end());
    for (double resumedAt : resumes) {
        // The run stood still from its last row before the resume (a resume drops the rows after
        // its checkpoint, so that row is the checkpoint round's, or one before it).
        m_segments.append({resumedAt, elapsed(lastRowBetween(m_segments.last().from, resumedAt))});
    }
}

QList<double> RunClock::resumesOf(const RunRecord& run, const QList<EventRecord>& events) {
    QList<double> resumes;
    for (const EventRecord& e : events)
        if (isResume(e.source, e.message) && e.t > run.started) resumes << e.t;
    return resumes;
}

bool RunClock::isResume(const QString& source, const QString& message) {
    return source == QLatin1String("controller") && message.startsWith(kResumedEventPrefix);
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
