#pragma once
// What tst_codecs and tst_linkcodecs share: codecs made from their parameters, links whose peers
// all use one, and messages as the roles make them.
#include "GradientCodec.h"
#include "Message.h"
#include "Vocabulary.h"

#include <QString>
#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace hips::codectest {

inline std::unique_ptr<GradientCodec> codec(const QString& name, double threshold = 0.01, double ratio = 0.01, double feedback = 1,
                                            double momentum = 0, double bucket = 1024, double warmup = 0, double halves = 1) {
    return GradientCodec::create(name, [&](const QString& p) {
        if (p == QLatin1String("codec_half_values")) return halves;
        if (p == QLatin1String("codec_warmup")) return warmup;
        if (p == QLatin1String("codec_threshold")) return threshold;
        if (p == QLatin1String("codec_ratio")) return ratio;
        if (p == QLatin1String("codec_momentum")) return momentum;
        if (p == QLatin1String("codec_bucket")) return bucket;
        return feedback;
    });
}

// The codec of every link: a LinkCodecs whose peers all use c.
inline std::function<const GradientCodec*(const QString&)> every(std::shared_ptr<GradientCodec> c) {
    return [c](const QString&) { return c.get(); };
}

inline std::vector<float> gaussian(size_t n, int seed, float sigma = 0.01f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0, sigma);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

inline QString decodeError(const GradientCodec& c, const QByteArray& frame, size_t n) {
    std::vector<float> out(n);
    return c.decode(frame.constData(), size_t(frame.size()), n, out.data());
}

// A message as sendPushSlice / ModelSlice make it: one slice of `values` at offset 0. Each push
// is a round's of its own (0: the next), as a worker's are: the same round again is the same push.
inline Message floatsMessage(const QString& type, const std::vector<float>& values, qint64 version = 0) {
    static qint64 rounds = 0;
    if (version == 0) version = type == message::kPush ? ++rounds : 1;
    Message m(type, {{QStringLiteral("offset"), 0},
                     {QStringLiteral("total"), qint64(values.size())},
                     {QStringLiteral("version"), version},
                     {QStringLiteral("round"), version},
                     {QStringLiteral("base"), version - 1}});
    m.frames.emplace_back(values.data(), values.size() * sizeof(float));
    return m;
}

inline std::vector<float> floatsOf(const Message& m) {
    const auto* f = static_cast<const float*>(m.frames[0].data());
    return std::vector<float>(f, f + m.frames[0].size() / sizeof(float));
}

}  // namespace hips::codectest
