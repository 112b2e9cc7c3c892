#pragma once
// The phases of a training role's start-up, timed from the moment the process was created (the
// kernel's start time, so library loading counts), reported as one "startup" metric when the
// role holds its first model: a slow phase names itself (issue 10).
#include <QCborMap>
#include <QString>
#include <chrono>

namespace hips {

class StartupClock {
public:
    StartupClock();
    // Ends the current phase under `name` (seconds since the previous mark, or since the
    // process started for the first one).
    void mark(const QString& name);
    QCborMap fields() const { return m_fields; }  // {phase: seconds, ..., "total_s": since process start}

private:
    std::chrono::steady_clock::time_point m_last;
    double m_sinceProcessStart = 0;  // at construction
    std::chrono::steady_clock::time_point m_constructed;
    QCborMap m_fields;
};

// Seconds since this process was created (from /proc/self/stat), 0 where unknown.
double secondsSinceProcessStart();
// The same for the calling role: a role that is a thread of a shared trainer (RoleScope.h)
// counts from when it was asked for.
double secondsSinceRoleStart();

}  // namespace hips
