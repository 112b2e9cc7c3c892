#pragma once
// A run's own clock: seconds of running since it started, its pauses left out. A run resumed
// from a checkpoint (hips run --resume) stood still from its last row stored before the resume
// to the resume itself, minutes or days later. The live panel's clock goes on from the last kept
// round; so do the charts, reports and times to accuracy made from the history, with this clock.
#include "HistoryRecords.h"

#include <functional>

namespace hips {

// The event RunStore::resumeRun() records: "resumed from the checkpoint of round N".
inline const QString kResumedEventPrefix = QStringLiteral("resumed from the checkpoint of round ");

class RunClock {
public:
    explicit RunClock(double started = 0) : m_segments{{started, 0}} {}
    // From the stored run: its start, its resumes (events) and the rows before each.
    RunClock(const RunRecord& run, const QList<MetricRecord>& metrics, const QList<TrafficRecord>& traffic,
             const QList<EventRecord>& events);
    // The same from the resumes' times and `lastRowBetween(from, before)`: the time of the run's
    // last row in (from, before), or `from` (RunStore::clock asks its tables, not a list of rows).
    RunClock(const RunRecord& run, QList<double> resumes, const std::function<double(double, double)>& lastRowBetween);
    double elapsed(double unixTime) const;  // seconds of running up to then
    double unixTime(double elapsed) const;  // when the run had run that long (the inverse)
    bool paused() const { return m_segments.size() > 1; }
    // The times of the run's resumes among its events.
    static QList<double> resumesOf(const RunRecord& run, const QList<EventRecord>& events);
    static bool isResume(const QString& source, const QString& message);

private:
    struct Segment {
        double from = 0, carry = 0;  // from unix time `from` on, elapsed = carry + (t − from)
    };
    QList<Segment> m_segments;  // in time order; carry grows
};

}  // namespace hips
