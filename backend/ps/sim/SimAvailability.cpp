#include "SimAvailability.h"

#include "RoleError.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

namespace hips::sim {

namespace {

constexpr qint64 kMaxTraceBytes = 16 << 20;

bool isProbability(const QString& setting, double* p) {
    bool ok = false;
    *p = setting.toDouble(&ok);
    return ok;
}

// A uniform draw in [0, 1) from the run's seed, the worker and the round (splitmix64).
double draw(int seed, int worker, qint64 round) {
    uint64_t z = (uint64_t(seed) << 40) ^ (uint64_t(worker) << 20) ^ uint64_t(round) ^ 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) / double(uint64_t(1) << 53);
}

}  // namespace

std::vector<std::pair<double, double>> readAvailabilityTrace(const QString& path) {
    const auto fail = [&path](const QString& why) {
        throw RoleError(QStringLiteral("availability trace %1: %2").arg(path, why).toStdString());
    };
    QFile f(path);
    if (!QFileInfo(f).isFile()) fail(QStringLiteral("is not a file; availability takes \"always\", a probability, or a trace file"));
    if (!f.open(QIODevice::ReadOnly)) fail(f.errorString());
    const QByteArray bytes = f.read(kMaxTraceBytes + 1);
    if (bytes.size() > kMaxTraceBytes) fail(QStringLiteral("is larger than 16 MiB"));
    std::vector<std::pair<double, double>> out;
    int line = 0;
    for (const QByteArray& raw : bytes.split('\n')) {
        ++line;
        const qsizetype comment = raw.indexOf('#');
        QByteArray text = comment < 0 ? raw : raw.left(comment);
        text = text.replace(',', ' ').simplified();
        if (text.isEmpty()) continue;
        const QList<QByteArray> fields = text.split(' ');
        bool okOn = false, okOff = false;
        const double on = fields.value(0).toDouble(&okOn), off = fields.value(1).toDouble(&okOff);
        if (fields.size() != 2 || !okOn || !okOff || !std::isfinite(on) || !std::isfinite(off) || on < 0 || off <= on)
            fail(QStringLiteral("line %1 is not \"START END\" (virtual seconds, 0 <= START < END)").arg(line));
        out.emplace_back(on, off);
    }
    if (out.empty()) fail(QStringLiteral("holds no interval: its workers would never train"));
    std::sort(out.begin(), out.end());
    std::vector<std::pair<double, double>> merged;  // overlapping or touching intervals as one
    for (const auto& i : out) {
        if (!merged.empty() && i.first <= merged.back().second) merged.back().second = std::max(merged.back().second, i.second);
        else merged.push_back(i);
    }
    return merged;
}

Availability::Availability(const Topology& topology) : m_seed(topology.training.seed) {
    for (const Node& n : topology.nodes()) {
        double p = 1;
        if (n.kind != RoleKind::Worker || n.availability.isEmpty() || isProbability(n.availability, &p) ||
            m_traces.contains(n.availability))
            continue;
        std::vector<Interval> intervals;
        for (const auto& [on, off] : readAvailabilityTrace(n.availability)) intervals.push_back({on, off});
        m_traces.insert(n.availability, std::move(intervals));
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
    if (double p = 1; isProbability(worker.availability, &p)) return draw(m_seed, index, round) < p;
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
