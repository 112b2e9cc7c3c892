// The data plane's cost per message: a push slice's header (round, base, offset, total, pull)
// encoded and decoded by WireCodec, in microseconds, each step alone (the payload is a frame of
// its own, never copied), in the fixed binary layout (FixedHeader.h) and, in the same run, in
// CBOR. bench_dataplane's rounds pay this twice (a push and a model).
#include "WireCodec.h"

#include <QCborValue>
#include <chrono>
#include <cstdio>

using namespace hips;

namespace {

template <typename Step>
double microsecondsEach(Step step) {
    constexpr int kTimes = 200000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kTimes; ++i) step(i);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kTimes;
}

// One header's cost: made, encoded (beyond making) and decoded, in microseconds.
struct Cost {
    size_t bytes;
    double made, encoded, decoded;
};

// `make(i)` makes the i-th message; the header WireCodec gives it is what is timed.
template <typename Make>
Cost costOf(Make make, std::vector<char>& payload) {
    size_t taken = 0;  // (what each step made is used, so none is optimised away)
    const double made = microsecondsEach([&](int i) { taken += size_t(make(i).fields.size()); });
    const double encoded = microsecondsEach([&](int i) {
        std::vector<zmq::message_t> parts;
        WireCodec::encode(make(i), parts);
        taken += parts.size();
    });
    std::vector<zmq::message_t> sample;
    WireCodec::encode(make(7), sample);
    const std::string header(static_cast<const char*>(sample[0].data()), sample[0].size());
    const double decoded = microsecondsEach([&](int) {
        std::vector<zmq::message_t> parts;
        parts.emplace_back(header.data(), header.size());
        parts.emplace_back(payload.data(), payload.size(), nullptr, nullptr);
        const Decoded d = WireCodec::decode(parts, 0, WireLimits{});
        taken += d.message ? size_t(d.message->integer(QStringLiteral("round"))) : 0;
    });
    if (taken == 0) std::printf("(nothing decoded)\n");
    return {header.size(), made, encoded - made, decoded};
}

}  // namespace

int main() {
    std::vector<char> payload(256 * 1024, 1);
    // A push slice as workers send it: five fields in the order the fixed layout takes.
    const auto push = [&](int i) {
        Message m(QStringLiteral("push"), {{QStringLiteral("round"), qint64(i)},
                                           {QStringLiteral("base"), qint64(i - 1)},
                                           {QStringLiteral("offset"), qint64(0)},
                                           {QStringLiteral("total"), qint64(payload.size() / 4)},
                                           {QStringLiteral("pull"), true}});
        m.frames.emplace_back(payload.data(), payload.size(), nullptr, nullptr);
        return m;
    };
    // The baseline: the same five fields in another order, which the fixed layout does not take
    // (WireCodec writes them in CBOR, as it wrote every header before).
    const auto cborPush = [&](int i) {
        Message m(QStringLiteral("push"), {{QStringLiteral("pull"), true},
                                           {QStringLiteral("round"), qint64(i)},
                                           {QStringLiteral("base"), qint64(i - 1)},
                                           {QStringLiteral("offset"), qint64(0)},
                                           {QStringLiteral("total"), qint64(payload.size() / 4)}});
        m.frames.emplace_back(payload.data(), payload.size(), nullptr, nullptr);
        return m;
    };
    const Cost cbor = costOf(cborPush, payload), fixed = costOf(push, payload);
    for (const auto& [name, c] : {std::pair{"CBOR", cbor}, std::pair{"fixed binary", fixed}})
        std::printf("a push slice's header in %s, %zu bytes: made %.2f us, encoded %.2f us, decoded %.2f us\n", name, c.bytes, c.made,
                    c.encoded, c.decoded);
    std::printf("encoded and decoded: fixed binary %.2f us, CBOR %.2f us (%.2fx)\n", fixed.encoded + fixed.decoded,
                cbor.encoded + cbor.decoded, (cbor.encoded + cbor.decoded) / (fixed.encoded + fixed.decoded));
    return 0;
}
