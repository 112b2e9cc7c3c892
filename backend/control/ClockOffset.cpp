#include "ClockOffset.h"

#include <cmath>

namespace hips {

void ClockOffset::sample(double sent, double agentTime, double received) {
    const double roundTrip = received - sent;
    if (!std::isfinite(roundTrip) || !std::isfinite(agentTime) || roundTrip < 0 || roundTrip > kLongestExchange ||
        std::abs(agentTime - sent) > kFurthest)
        return;
    m_samples.push_back({(sent + received) / 2 - agentTime, roundTrip});
    if (m_samples.size() > kKept) m_samples.pop_front();
}

const ClockOffset::Sample* ClockOffset::best() const {
    const Sample* best = nullptr;
    for (const Sample& s : m_samples)
        if (!best || s.roundTrip <= best->roundTrip) best = &s;  // (the newest of equals: a clock set anew)
    return best;
}

double ClockOffset::estimate() const {
    const Sample* s = best();
    return s ? s->offset : 0;
}

double ClockOffset::uncertainty() const {
    const Sample* s = best();
    return s ? s->roundTrip / 2 : 0;
}

double ClockOffset::correction() const {
    const Sample* s = best();
    return s && std::abs(s->offset) > s->roundTrip / 2 + kInStep ? s->offset : 0;
}

}  // namespace hips
