#include "SimRounds.h"

#include "ModelSlices.h"
#include "Vocabulary.h"

#include <algorithm>

namespace hips::sim {

double latestArrival(const std::vector<Arrival>& arrivals) {
    double at = 0;
    for (const Arrival& a : arrivals) at = std::max(at, a.at);
    return at;
}

Arrival sitOut(const QString& party, const std::vector<Arrival>& arrivals) {
    return {party, nullptr, 0, latestArrival(arrivals), true};
}

bool feed(RoundCollector& c, const Arrival& a, qint64 round, size_t size) {
    bool complete = false;
    for (size_t i = 0; i < sliceCount(size); ++i) {
        const size_t offset = i * kSliceFloats, count = std::min(kSliceFloats, size - offset);
        Envelope e{a.from,
                   Message(message::kPush, {{QStringLiteral("round"), round},
                                            {QStringLiteral("base"), round - 1},
                                            {QStringLiteral("offset"), qint64(offset)},
                                            {QStringLiteral("total"), qint64(size)},
                                            {QStringLiteral("weight"), a.weight}}),
                   {}};
        e.message.frames.push_back(sharedFrame(a.values, a.values->data() + offset, count * sizeof(float)));
        complete = c.add(e, round, size) || complete;
        while (c.takeFinalSlice()) {
        }
    }
    return complete;
}

Outcome collect(RoundCollector& c, std::vector<Arrival>& arrivals, qint64 round, size_t size, Deadline deadline, int drawn) {
    std::stable_sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    Outcome out;
    // round_timeout_s counts from the round's first push, as a deployed server's (a contributor
    // declared down before it opens nothing).
    const auto firstPush = std::find_if(arrivals.begin(), arrivals.end(), [](const Arrival& a) { return !a.absent; });
    if (firstPush == arrivals.end()) deadline.timeoutS = 0;
    const int atLeast = requiredContributors(deadline.least, drawn);
    const double openedAt = firstPush == arrivals.end() ? 0 : firstPush->at;
    for (size_t k = 0; k < arrivals.size(); ++k) {
        const Arrival& a = arrivals[k];
        if (out.complete) {
            out.late += a.absent ? 0 : 1;
            continue;
        }
        if (deadline.timeoutS > 0 && a.at > openedAt + deadline.timeoutS && c.closeWithWhatCame(atLeast)) {
            out = {true, openedAt + deadline.timeoutS, a.absent ? 0u : 1u};
            continue;
        }
        const bool closed = a.absent ? c.setAbsent(a.from, true) : feed(c, a, round, size);
        if (closed) out = {true, a.at, 0};
        // Past the deadline, the push that makes the minimum closes the round as it comes (a
        // deployed server's next tick), not at the deadline before it came.
        else if (deadline.timeoutS > 0 && a.at > openedAt + deadline.timeoutS && c.closeWithWhatCame(atLeast)) out = {true, a.at, 0};
    }
    if (!out.complete && deadline.timeoutS > 0 && c.closeWithWhatCame(atLeast)) out = {true, openedAt + deadline.timeoutS, 0};
    for (const Arrival& a : arrivals)
        if (a.absent) c.setAbsent(a.from, false);  // back for the next round's draw
    return out;
}

}  // namespace hips::sim
