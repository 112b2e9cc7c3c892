#include "AsyncPushes.h"

#include "VectorMath.h"

#include <algorithm>

namespace hips {

constexpr qsizetype kMaxOrigin = 256;  // a node id; what a party server claims is only reported

std::optional<WholePush> AsyncPushes::add(Envelope& push, size_t expectedSize, qint64 newestVersion) {
    const Message& m = push.message;
    const qint64 round = m.integer(QStringLiteral("round")), base = m.integer(QStringLiteral("base")),
                 offset = m.integer(QStringLiteral("offset")), total = m.integer(QStringLiteral("total"));
    if (!m_contributors.contains(push.peer)) {
        reject(push, QStringLiteral("not a contributor of this server"));
        return {};
    }
    if (round <= m_lastRound.value(push.peer, 0)) {
        reject(push, QStringLiteral("round %1 is not after its last push (%2)").arg(round).arg(m_lastRound.value(push.peer)));
        return {};
    }
    if (base < 0 || base > newestVersion) {
        reject(push, QStringLiteral("base version %1 is not a version this server has sent (newest %2)").arg(base).arg(newestVersion));
        return {};
    }
    const size_t count = m.frames.size() == 1 && m.frames[0].size() % sizeof(float) == 0 ? m.frames[0].size() / sizeof(float) : 0;
    if (size_t(total) != expectedSize || !isCanonicalSlice(offset, total, count)) {
        reject(push, QStringLiteral("payload is not a slice of a %1-float update").arg(expectedSize));
        return {};
    }
    Partial& p = m_open[push.peer];
    if (p.round != round) {  // a new push: what was left of an older one is dropped
        p = Partial{round,
                    base,
                    m.string(QStringLiteral("origin")).left(kMaxOrigin),
                    std::make_shared<std::vector<float>>(expectedSize),
                    std::vector<bool>(sliceCount(expectedSize)),
                    0,
                    false};
    }
    const size_t index = size_t(offset) / kSliceFloats;
    if (p.slices[index] || base != p.base) {
        reject(push, QStringLiteral("second push of floats %1.. or another base in round %2").arg(offset).arg(round));
        return {};
    }
    p.slices[index] = true;
    ++p.count;
    const FloatView values(m.frames[0]);
    if (!allFinite(values.data(), values.size())) {
        ++m_nonFinite;
        p.spoiled = true;
        reject(push, QStringLiteral("floats %1..%2 hold NaN or infinite values; not applied").arg(offset).arg(offset + qint64(count)));
    } else {
        std::copy(values.data(), values.data() + values.size(), p.values->data() + offset);
    }
    if (p.count < p.slices.size()) return {};
    WholePush whole{push.peer, round, base, p.spoiled ? nullptr : std::move(p.values), p.origin};
    m_lastRound[push.peer] = round;
    m_open.remove(push.peer);
    return whole;
}

bool AsyncPushes::reject(const Envelope& push, const QString& why) {
    return m_log.reject(push.peer, QStringLiteral("push: ") + why);
}

}  // namespace hips
