#pragma once
// Push messages as a worker's sendPush makes them, for the tests of a server's rounds.
#include "Channel.h"
#include "ModelSlices.h"

#include <functional>
#include <vector>

namespace hips::test {

// What a rule or a collector writes for floats [0, n) of a round, with no base.
template <typename Rounds>
std::vector<float> sumOf(const Rounds& rounds, size_t n) {
    std::vector<float> out(n);
    rounds.write(out.data(), nullptr, 0, n);
    return out;
}

// A push slice as sendPush makes it: `values` at `offset` of an update of `total` floats
// (the whole update when total is 0).
inline Envelope push(const QString& peer, qint64 round, std::vector<float> values, size_t offset = 0, size_t total = 0, qint64 base = -1) {
    Message m(QStringLiteral("push"), {{QStringLiteral("round"), round},
                                       {QStringLiteral("offset"), qint64(offset)},
                                       {QStringLiteral("total"), qint64(total ? total : values.size())},
                                       {QStringLiteral("base"), base < 0 ? round - 1 : base}});
    m.frames.emplace_back(values.data(), values.size() * sizeof(float));
    return {peer, std::move(m), {}};
}

// The slices of an update of `total` floats whose value at i is fill(i).
inline std::vector<Envelope> pushSlices(const QString& peer, qint64 round, size_t total, const std::function<float(size_t)>& fill) {
    std::vector<Envelope> slices;
    for (size_t offset = 0; offset < total; offset += kSliceFloats) {
        std::vector<float> values(std::min(kSliceFloats, total - offset));
        for (size_t i = 0; i < values.size(); ++i) values[i] = fill(offset + i);
        slices.push_back(push(peer, round, std::move(values), offset, total));
    }
    return slices;
}

}  // namespace hips::test
