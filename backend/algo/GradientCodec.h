#pragma once
// How floats travel on a link (ENGINE.md's GradientCodec; ALGORITHMS.md): `none`, `fp16`, `2bit`
// (HiPS: ±t or 0 per value, 16 values per 32-bit word) and `topk` (GeoMX's BSC: the largest
// `ratio` of the entries by magnitude, their indices delta-encoded as varints). A codec is
// stateless: the error feedback (the residual a lossy codec leaves, carried to the next message)
// is kept by the link that uses it (LinkCodecs, backend/ps). Every decoder checks the frame
// against the size it expects and refuses anything malformed with a reason, never reading past it.
#include "StrategyInfo.h"

#include <QByteArray>
#include <QString>
#include <functional>
#include <memory>

namespace hips {

namespace codecs {
inline constexpr char kNone[] = "none";  // no codec: floats as they are (the default)
}  // namespace codecs

class CodecRegistry {
public:
    static const StrategyList& all();  // none, fp16, 2bit, topk with their parameters
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
    // Whether the codec named loses more than rounding does (its own lossy(), at its defaults).
    static bool lossy(const QString& name);
    // Whether it sends each value as one of a few steps (±t or 0): a change smaller than a step
    // waits in the residual, so per-step gradients (ssgd) and adaptive optimizers suffer.
    static bool quantizesToSteps(const QString& name);
};

class GradientCodec {
public:
    virtual ~GradientCodec() = default;
    // What both ends must agree on, as it travels in each message's header: "2bit t=0.001".
    virtual QString spec() const = 0;
    virtual bool lossy() const { return true; }
    virtual bool quantizesToSteps() const { return false; }
    virtual bool errorFeedback() const { return false; }
    // Pushes' momentum correction (GeoMX's BSC, after DGC): 0 for plain error feedback.
    virtual float momentum() const { return 0.0f; }
    // Encodes n floats; `decoded` (n floats) receives what the other end will decode. `contributions`:
    // how many senders' messages the values sum (an aggregate's change; topk keeps that many times
    // its share, so the sum of sparse pushes goes back whole, as in GeoMX's pull).
    // (Called through this class, where the default is.)
    virtual QByteArray encode(const float* values, size_t n, float* decoded, size_t contributions = 1) const = 0;
    // Decodes a frame meant to hold n floats into `out`; an empty string, or what is wrong.
    virtual QString decode(const char* frame, size_t bytes, size_t n, float* out) const = 0;
    // The size of an encoded frame of n floats at most, so that limits can bound what is accepted.
    virtual size_t maxEncodedBytes(size_t n) const = 0;

    // A message of the warm-up, `progress` in (0, 1) of the way through it: a codec that sends a
    // share of the entries sends a larger one (DGC's ramp, ratio^progress); the default, an empty
    // frame, has the link send the values whole.
    virtual QByteArray encodeWarmingUp(const float* values, size_t n, float* decoded, size_t contributions, double progress) const {
        (void)values, (void)n, (void)decoded, (void)contributions, (void)progress;
        return {};
    }

    // DGC's warm-up: how many messages of each kind a link sends whole before this codec starts
    // (`codec_warmup` rounds, times the messages a round holds on the tier: see makeLinkCodecs).
    size_t warmupMessages() const { return m_warmupMessages; }
    void setWarmupMessages(size_t messages) { m_warmupMessages = messages; }

    // nullptr for `none` (links without a codec send floats as they are, zero-copy).
    // `param` looks the codec's parameters up (the tier's settings). Throws std::invalid_argument
    // for an unknown name.
    static std::unique_ptr<GradientCodec> create(const QString& name, const std::function<double(const QString&)>& param);

private:
    size_t m_warmupMessages = 0;
};

// IEEE half precision, round to nearest even (what the fp16 codec sends).
quint16 floatToHalf(float value);
float halfToFloat(quint16 half);
// The same over arrays, with the CPU's F16C instructions where it has them (8 a step; the same
// bits as the scalar forms for every value but NaN's payload). `halves` may sit at any address.
void floatsToHalves(const float* in, void* halves, size_t n);
void halvesToFloats(const void* halves, float* out, size_t n);
void addHalves(const void* halves, float* out, size_t n);  // out[i] += the i-th half, widened

}  // namespace hips
