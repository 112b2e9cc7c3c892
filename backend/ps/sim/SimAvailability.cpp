#include "SimAvailability.h"

#include "AvailabilityTrace.h"
#include "RoleError.h"

#include <algorithm>
#include <cmath>

namespace hips::sim {

namespace {

uint64_t splitmix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// A uniform draw in [0, 1) from the run's seed, the worker and the round: the seed hashed on its
// own first, so that no two seeds give the same draws (shifted in beside the others, its high
// bits fell off).
double draw(int seed, int worker, qint64 round) {
    const uint64_t z = splitmix(splitmix(uint64_t(uint32_t(seed))) ^ (uint64_t(worker) << 32) ^ uint64_t(round));
    return double(z >> 11) / double(uint64_t(1) << 53);
}

}  // namespace

std::vector<std::pair<double, double>> readAvailabilityTrace(const QString& path) {
    OnIntervals intervals;
    if (const QString why = hips::readAvailabilityTrace(path, &intervals); !why.isEmpty()) throw RoleError(why.toStdString());
    return intervals;
}

Availability::Availability(const Topology& topology) : m_seed(topology.training.seed) {
    QHash<QString, OnIntervals> traces;
    if (const QString why = readAvailabilityTraces(topology, &traces); !why.isEmpty()) throw RoleError(why.toStdString());
    for (auto it = traces.begin(); it != traces.end(); ++it) {
        std::vector<Interval>& intervals = m_traces[it.key()];
        intervals.reserve(it->size());
        for (const auto& [on, off] : *it) intervals.push_back({on, off});
    }
}

const std::vector<Availability::Interval>* Availability::traceOf(const Node& worker) const {
    const auto it = m_traces.constFind(worker.availability);
    return it == m_traces.constEnd() ? nullptr : &*it;
}

// The interval of `trace` (sorted, disjoint) that holds `at`, if any: a binary search, since a
// trace may hold a million intervals and every worker is asked every round.
static const Availability::Interval* intervalAt(const std::vector<Availability::Interval>& trace, double at) {
    auto after = std::upper_bound(trace.begin(), trace.end(), at, [](double t, const Availability::Interval& i) { return t < i.on; });
    if (after == trace.begin()) return nullptr;
    const Availability::Interval& i = *(after - 1);
    return at < i.off ? &i : nullptr;
}

bool Availability::available(const Node& worker, int index, qint64 round, double at) const {
    if (worker.availability.isEmpty()) return true;
    if (double p = 1; availabilityIsProbability(worker.availability, &p)) return draw(m_seed, index, round) < p;
    const std::vector<Interval>* trace = traceOf(worker);
    return trace && intervalAt(*trace, at);
}

double Availability::offAfter(const Node& worker, double at) const {
    const std::vector<Interval>* trace = traceOf(worker);
    if (!trace) return std::numeric_limits<double>::infinity();
    const Interval* on = intervalAt(*trace, at);
    return on ? on->off : at;
}

double Availability::nextOn(const Node& worker, double at) const {
    const std::vector<Interval>* trace = traceOf(worker);
    if (!trace) return std::numeric_limits<double>::infinity();
    const auto after = std::upper_bound(trace->begin(), trace->end(), at, [](double t, const Interval& i) { return t < i.on; });
    return after == trace->end() ? std::numeric_limits<double>::infinity() : after->on;
}

}  // namespace hips::sim
