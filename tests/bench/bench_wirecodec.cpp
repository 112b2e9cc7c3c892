// The data plane's cost per message: a push slice's header (round, base, offset, total, pull)
// encoded and decoded by WireCodec, in microseconds, each step alone (the payload is a frame of
// its own, never copied). bench_dataplane's rounds pay this twice (a push and a model).
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

}  // namespace

int main() {
    std::vector<char> payload(256 * 1024, 1);
    const auto push = [&](int i) {
        Message m(QStringLiteral("push"), {{QStringLiteral("round"), qint64(i)},
                                           {QStringLiteral("base"), qint64(i - 1)},
                                           {QStringLiteral("offset"), qint64(0)},
                                           {QStringLiteral("total"), qint64(payload.size() / 4)},
                                           {QStringLiteral("pull"), true}});
        m.frames.emplace_back(payload.data(), payload.size(), nullptr, nullptr);
        return m;
    };
    size_t taken = 0;  // (what each step made is used, so none is optimised away)
    const double made = microsecondsEach([&](int i) { taken += size_t(push(i).fields.size()); });
    const double encoded = microsecondsEach([&](int i) {
        std::vector<zmq::message_t> parts;
        WireCodec::encode(push(i), parts);
        taken += parts.size();
    });
    std::vector<zmq::message_t> sample;
    WireCodec::encode(push(7), sample);
    const std::string header(static_cast<const char*>(sample[0].data()), sample[0].size());
    const double decoded = microsecondsEach([&](int) {
        std::vector<zmq::message_t> parts;
        parts.emplace_back(header.data(), header.size());
        parts.emplace_back(payload.data(), payload.size(), nullptr, nullptr);
        const Decoded d = WireCodec::decode(parts, 0, WireLimits{});
        taken += d.message ? size_t(d.message->integer(QStringLiteral("round"))) : 0;
    });
    std::printf("a push slice's header, %zu bytes: made %.2f us, encoded %.2f us, decoded %.2f us (%zu)\n", header.size(), made,
                encoded - made, decoded, taken % 10);
    return 0;
}
