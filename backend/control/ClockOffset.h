#pragma once
// How far an agent's host clock is from this controller's. A role stamps its records with its
// host's clock ("t", MetricsReporter); the history places them against the run's start, which is
// this controller's. A host whose clock runs 30 s ahead would move every one of its records 30 s
// later in the history, the report and their times to accuracy.
//
// Each ping carries the controller's time; the agent's pong echoes it with its own. The offset
// is the midpoint of the exchange minus the agent's time, known to within half its round trip:
// of the last exchanges, the one with the shortest round trip says it best (as NTP's filter).
#include <cstddef>
#include <deque>

namespace hips {

class ClockOffset {
public:
    // An exchange: the controller sent at `sent`, the agent read its clock at `agentTime`, the
    // answer came at `received` (unix seconds). One that took too long, or ran backwards, is
    // no measure and is left out.
    void sample(double sent, double agentTime, double received);
    // Seconds to add to the agent host's stamps to place them on this controller's clock: 0 while
    // nothing was measured, and while the host is within kInStep of this one, beyond the measure's
    // own error (clocks kept by NTP: their records stay as they came).
    double correction() const;
    // The best measure: the offset and half its round trip (its error bound).
    double estimate() const;
    double uncertainty() const;
    bool measured() const { return !m_samples.empty(); }

    static constexpr double kInStep = 0.02;  // seconds
    static constexpr double kLongestExchange = 10;  // seconds; a slower answer measures nothing
    static constexpr double kFurthest = 4e9;  // seconds (127 years: a host without a clock reads 1970); further is no clock
    static constexpr std::size_t kKept = 32;  // exchanges (a ping a second): a clock set anew shows in half a minute

private:
    struct Sample {
        double offset = 0, roundTrip = 0;
    };
    const Sample* best() const;
    std::deque<Sample> m_samples;
};

}  // namespace hips
