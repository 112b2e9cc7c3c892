#include "GradientCodec.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace hips {

// --- half precision ---------------------------------------------------------------------------

quint16 floatToHalf(float value) {
    quint32 bits;
    std::memcpy(&bits, &value, 4);
    const quint32 sign = (bits >> 16) & 0x8000u;
    const quint32 exponent = (bits >> 23) & 0xffu;
    quint32 mantissa = bits & 0x7fffffu;
    if (exponent == 0xff) return quint16(sign | 0x7c00u | (mantissa ? 0x200u : 0));  // Inf, NaN
    int e = int(exponent) - 127 + 15;
    if (e >= 0x1f) return quint16(sign | 0x7c00u);  // too large: Inf
    if (e <= 0) {  // subnormal or zero
        if (e < -10) return quint16(sign);
        mantissa |= 0x800000u;
        const int shift = 14 - e;
        quint32 half = mantissa >> shift;
        const quint32 rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
        return quint16(sign | half);
    }
    quint32 half = (quint32(e) << 10) | (mantissa >> 13);
    const quint32 rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: right
    return quint16(sign | half);
}

float halfToFloat(quint16 half) {
    const quint32 sign = quint32(half & 0x8000u) << 16;
    const quint32 exponent = (half >> 10) & 0x1fu;
    quint32 mantissa = half & 0x3ffu;
    quint32 bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while (!(mantissa & 0x400u));
            bits = sign | (quint32(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

namespace {

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void floatsToHalvesF16c(const float* in, unsigned char* out, size_t n, size_t* done) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    *done = i;
}

__attribute__((target("avx,f16c"))) void halvesToFloatsF16c(const unsigned char* in, float* out, size_t n, bool add, size_t* done) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 wide = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i)));
        _mm256_storeu_ps(out + i, add ? _mm256_add_ps(_mm256_loadu_ps(out + i), wide) : wide);
    }
    *done = i;
}

// (F16C is CPUID leaf 1's ECX bit 29; clang's __builtin_cpu_supports does not name it.)
bool hasF16c() {
    static const bool yes = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
    }();
    return yes;
}
#endif

void widen(const void* halves, float* out, size_t n, bool add) {
    const auto* in = static_cast<const unsigned char*>(halves);
    size_t i = 0;
#if defined(__x86_64__)
    if (hasF16c()) halvesToFloatsF16c(in, out, n, add, &i);
#endif
    for (; i < n; ++i) {
        quint16 h;
        std::memcpy(&h, in + 2 * i, 2);
        out[i] = add ? out[i] + halfToFloat(h) : halfToFloat(h);
    }
}

}  // namespace

void floatsToHalves(const float* in, void* halves, size_t n) {
    auto* out = static_cast<unsigned char*>(halves);
    size_t i = 0;
#if defined(__x86_64__)
    if (hasF16c()) floatsToHalvesF16c(in, out, n, &i);
#endif
    for (; i < n; ++i) {
        const quint16 h = floatToHalf(in[i]);
        std::memcpy(out + 2 * i, &h, 2);
    }
}

void halvesToFloats(const void* halves, float* out, size_t n) {
    widen(halves, out, n, false);
}

void addHalves(const void* halves, float* out, size_t n) {
    widen(halves, out, n, true);
}

namespace {

class Fp16Codec final : public GradientCodec {
public:
    QString spec() const override { return QStringLiteral("fp16"); }
    bool lossy() const override { return false; }  // (rounding to half precision only)
    QByteArray encode(const float* v, size_t n, float* decoded, size_t) const override {
        QByteArray frame(qsizetype(n * 2), Qt::Uninitialized);
        for (size_t i = 0; i < n; ++i)  // saturated, never Inf: what does not fit is lost (fp16 keeps no residual)
            decoded[i] = std::isfinite(v[i]) ? std::clamp(v[i], -65504.0f, 65504.0f) : 0.0f;
        floatsToHalves(decoded, frame.data(), n);
        halvesToFloats(frame.constData(), decoded, n);
        return frame;
    }
    QString decode(const char* frame, size_t bytes, size_t n, float* out) const override {
        if (bytes != n * 2) return QStringLiteral("an fp16 frame of %1 bytes for %2 values (%3 expected)").arg(bytes).arg(n).arg(n * 2);
        halvesToFloats(frame, out, n);
        for (size_t i = 0; i < n; ++i)
            if (!std::isfinite(out[i])) return QStringLiteral("an fp16 frame holding a value that is not finite");
        return {};
    }
    size_t maxEncodedBytes(size_t n) const override { return n * 2; }
};

// [float t per bucket][ceil(n/16) words], two bits per value: 11 = +t, 10 = −t, 00 = 0 (01 is
// malformed). An automatic t (autoStep) is chosen per bucket of values, so a tensor of small updates is not
// sent as zeros beside one of large ones (one t per message lost 0.015–0.037 of accuracy on four
// of five seeds; docs/algorithms.md, "Compression"); a fixed t is one for the message.
class TwoBitCodec final : public GradientCodec {
public:
    TwoBitCodec(float t, bool feedback, size_t bucket) : m_t(t), m_feedback(feedback), m_bucket(t > 0 ? 0 : bucket) {}
    bool quantizesToSteps() const override { return true; }
    QString spec() const override {
        return QStringLiteral("2bit t=%1 ef=%2%3")
            .arg(m_t > 0 ? QString::number(double(m_t)) : QStringLiteral("auto"))
            .arg(m_feedback ? 1 : 0)
            .arg(m_bucket ? QStringLiteral(" bucket=%1").arg(m_bucket) : QString());
    }
    bool errorFeedback() const override { return m_feedback; }
    QByteArray encode(const float* v, size_t n, float* decoded, size_t) const override {
        const size_t buckets = bucketsOf(n), per = valuesPerBucket(n);
        QByteArray frame(qsizetype(buckets * 4 + words(n) * 4), '\0');
        auto* w = reinterpret_cast<quint32*>(frame.data() + buckets * 4);
        for (size_t b = 0; b < buckets; ++b) {
            const size_t from = b * per, to = std::min(n, from + per);
            const Step step = m_t > 0 ? Step{m_t, m_t} : autoStep(v + from, to - from);
            const float t = step.said;
            std::memcpy(frame.data() + 4 * b, &t, 4);
            for (size_t i = from; i < to; ++i) {
                quint32 code = 0;
                decoded[i] = 0;
                const float x = std::isfinite(v[i]) ? v[i] : 0.0f;  // never ±t for a value that is not a number
                if (x >= step.from) code = 3, decoded[i] = t;
                else if (x <= -step.from) code = 2, decoded[i] = -t;
                w[i / 16] |= code << (2 * (i % 16));
            }
        }
        return frame;
    }
    QString decode(const char* frame, size_t bytes, size_t n, float* out) const override {
        const size_t buckets = bucketsOf(n), per = valuesPerBucket(n);
        if (bytes != maxEncodedBytes(n))
            return QStringLiteral("a 2bit frame of %1 bytes for %2 values (%3 expected)").arg(bytes).arg(n).arg(maxEncodedBytes(n));
        for (size_t b = 0; b < buckets; ++b) {
            float t;
            std::memcpy(&t, frame + 4 * b, 4);
            if (m_t > 0 ? t != m_t : !(t > 0 && std::isfinite(t)))
                return QStringLiteral("a 2bit frame with threshold %1; this link's is %2")
                    .arg(double(t))
                    .arg(m_t > 0 ? QString::number(double(m_t)) : QStringLiteral("a positive one of each message's choosing"));
            for (size_t i = b * per; i < std::min(n, (b + 1) * per); ++i) {
                quint32 word;
                std::memcpy(&word, frame + buckets * 4 + 4 * (i / 16), 4);
                const quint32 code = (word >> (2 * (i % 16))) & 3u;
                if (code == 1) return QStringLiteral("a 2bit frame with the unused code 01 at value %1").arg(i);
                out[i] = code == 3 ? t : code == 2 ? -t : 0.0f;
            }
        }
        return {};
    }
    size_t maxEncodedBytes(size_t n) const override { return bucketsOf(n) * 4 + words(n) * 4; }

private:
    static size_t words(size_t n) { return (n + 15) / 16; }
    size_t bucketsOf(size_t n) const { return m_bucket && n ? (n + m_bucket - 1) / m_bucket : 1; }
    size_t valuesPerBucket(size_t n) const { return m_bucket ? m_bucket : std::max<size_t>(n, 1); }
    // An automatic step: values from twice the bucket's mean magnitude are sent (1, 1.5, 2, 2.5, 3
    // and 4 times measured: 2 trained best), as the mean magnitude of those sent, which leaves the
    // residual the least (sending them as the threshold itself, as before, reached 0.85 4–9 rounds
    // after no codec; now 0–2; docs/algorithms.md, "Compression").
    struct Step {
        float from;  // the magnitude from which a value is sent
        float said;  // what it is sent as
    };
    static Step autoStep(const float* v, size_t n) {
        constexpr Step nothing{std::numeric_limits<float>::infinity(), std::numeric_limits<float>::min()};
        double sum = 0;
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(v[i])) sum += std::abs(v[i]);
        const float from = n ? float(2 * sum / double(n)) : 0.0f;
        if (!(from > 0 && std::isfinite(from))) return nothing;
        double sent = 0;
        size_t count = 0;
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(v[i]) && std::abs(v[i]) >= from) sent += std::abs(v[i]), ++count;
        const float said = count ? float(sent / double(count)) : 0.0f;
        return said > 0 && std::isfinite(said) ? Step{from, said} : nothing;
    }
    float m_t;
    bool m_feedback;
    size_t m_bucket;  // values per automatic t; 0 with a fixed t
};

void putVarint(QByteArray& out, quint32 v) {
    while (v >= 0x80) {
        out.append(char(v | 0x80));
        v >>= 7;
    }
    out.append(char(v));
}

float magnitude(float x) {
    return std::isnan(x) ? -1.0f : std::abs(x);
}  // NaN last: a strict weak order

// [u32 k][k varint gaps: the first index, then each index − the previous − 1][k values: halves
// (saturated at ±65504, as fp16's) or floats].
class TopKCodec final : public GradientCodec {
public:
    TopKCodec(double ratio, bool feedback, double momentum, bool halves)
        : m_ratio(ratio), m_feedback(feedback), m_momentum(momentum), m_valueBytes(halves ? 2 : 4) {}
    QString spec() const override {
        return QStringLiteral("topk ratio=%1 ef=%2 m=%3 v=%4")
            .arg(m_ratio)
            .arg(m_feedback ? 1 : 0)
            .arg(m_feedback ? m_momentum : 0.0)
            .arg(m_valueBytes * 8);
    }
    bool errorFeedback() const override { return m_feedback; }
    float momentum() const override { return m_feedback ? float(m_momentum) : 0.0f; }
    // An aggregate of c sparse messages has up to c times their entries: it keeps that many
    // (GeoMX's pull), at most the share beyond which fp16 would be smaller.
    size_t keep(size_t n, size_t contributions = 1, double ratio = 0) const {
        const double share = std::min(0.4, (ratio > 0 ? ratio : m_ratio) * double(std::max<size_t>(1, contributions)));
        return std::min(n, std::max<size_t>(1, size_t(std::ceil(share * double(n)))));
    }
    QByteArray encode(const float* v, size_t n, float* decoded, size_t contributions) const override {
        return encodeLargest(v, n, decoded, keep(n, contributions));
    }
    // DGC's exponential ramp: the share sent rises from ratio^progress to the ratio.
    QByteArray encodeWarmingUp(const float* v, size_t n, float* decoded, size_t contributions, double progress) const override {
        return encodeLargest(v, n, decoded, keep(n, contributions, std::pow(m_ratio, progress)));
    }
    QByteArray encodeLargest(const float* v, size_t n, float* decoded, size_t k) const {
        std::vector<quint32> index(n);
        std::iota(index.begin(), index.end(), 0u);
        std::nth_element(index.begin(), index.begin() + qsizetype(k) - 1, index.end(),
                         [v](quint32 a, quint32 b) { return magnitude(v[a]) > magnitude(v[b]); });
        index.resize(k);
        std::sort(index.begin(), index.end());
        QByteArray frame;
        frame.reserve(qsizetype(4 + k * (5 + m_valueBytes)));
        const quint32 count = quint32(k);
        frame.append(reinterpret_cast<const char*>(&count), 4);
        quint32 previous = 0;
        for (size_t j = 0; j < k; ++j) {
            putVarint(frame, j == 0 ? index[0] : index[j] - previous - 1);
            previous = index[j];
        }
        std::fill(decoded, decoded + n, 0.0f);
        for (quint32 i : index) {
            float x = std::isfinite(v[i]) ? v[i] : 0.0f;
            if (m_valueBytes == 2) {  // what the half does not say is the residual's
                const quint16 half = floatToHalf(std::clamp(x, -65504.0f, 65504.0f));
                frame.append(reinterpret_cast<const char*>(&half), 2);
                x = halfToFloat(half);
            } else {
                frame.append(reinterpret_cast<const char*>(&x), 4);
            }
            decoded[i] = x;
        }
        return frame;
    }
    QString decode(const char* frame, size_t bytes, size_t n, float* out) const override {
        if (bytes < 4) return QStringLiteral("a topk frame of %1 bytes, shorter than its count").arg(bytes);
        quint32 k;
        std::memcpy(&k, frame, 4);
        if (k == 0 || k > n) return QStringLiteral("a topk frame of %1 entries for %2 values").arg(k).arg(n);
        if (bytes < 4 + size_t(k) * (1 + m_valueBytes))
            return QStringLiteral("a topk frame of %1 bytes cannot hold %2 entries").arg(bytes).arg(k);
        std::vector<quint32> index(k);
        size_t at = 4;
        quint64 next = 0;
        for (quint32 j = 0; j < k; ++j) {
            quint64 gap = 0;
            for (int shift = 0;; shift += 7) {
                if (at >= bytes || shift > 28) return QStringLiteral("a topk frame with a cut or overlong index");
                const quint8 byte = quint8(frame[at++]);
                gap |= quint64(byte & 0x7f) << shift;
                if (!(byte & 0x80)) break;
            }
            next += gap;
            if (next >= n) return QStringLiteral("a topk frame with index %1 beyond %2 values").arg(next).arg(n);
            index[j] = quint32(next);
            ++next;
        }
        const size_t end = at + size_t(k) * m_valueBytes;
        if (bytes != end) return QStringLiteral("a topk frame of %1 bytes; its %2 entries take %3").arg(bytes).arg(k).arg(end);
        std::fill(out, out + n, 0.0f);
        for (quint32 j = 0; j < k; ++j) {
            float value;
            if (m_valueBytes == 2) {
                quint16 half;
                std::memcpy(&half, frame + at + 2 * size_t(j), 2);
                value = halfToFloat(half);
            } else {
                std::memcpy(&value, frame + at + 4 * size_t(j), 4);
            }
            if (!std::isfinite(value)) return QStringLiteral("a topk frame holding a value that is not finite");
            out[index[j]] = value;
        }
        return {};
    }
    size_t maxEncodedBytes(size_t n) const override { return 4 + keep(n) * (5 + m_valueBytes); }

private:
    double m_ratio;
    bool m_feedback;
    double m_momentum;
    size_t m_valueBytes;  // 2: halves, 4: floats
};

using Param = std::function<double(const QString&)>;

struct CodecEntry {
    StrategyInfo info;
    std::function<std::unique_ptr<GradientCodec>(const Param&)> make;  // nullptr: `none`
};

const QList<CodecEntry>& entries() {
    using T = ParamSpec::Type;
    static const ParamSpec errorFeedback{
        QStringLiteral("codec_error_feedback"),
        T::Integer,
        0,
        1,
        1,
        QStringLiteral("1: carry what a message could not say into the next one (error feedback); 0: drop it")};
    // Chosen by time to accuracy (docs/algorithms.md, "Compression"): topk's ramps its share up and reaches 0.85
    // as soon as no codec does; 2bit's sends everything and reached 0.85 3 rounds sooner with 2,
    // but then stalled at 0.86 on the default seed (0.877 without), so it is off by default.
    const auto warmup = [](int rounds, const char* how) {
        return ParamSpec{QStringLiteral("codec_warmup"),
                         T::Integer,
                         0,
                         1000,
                         double(rounds),
                         QStringLiteral("rounds at the start whose pushes and models %1 (DGC's warm-up): the first rounds' "
                                        "large changes are what a lossy codec slows most")
                             .arg(QLatin1String(how))};
    };
    static const QList<CodecEntry> codecs{
        {{QLatin1String(codecs::kNone), QStringLiteral("32-bit floats as they are"), {}, {}}, [](const Param&) { return nullptr; }},
        {{QStringLiteral("fp16"), QStringLiteral("half-precision floats: half the bytes (GeoMX's FP16 transfer)"), {}, {}},
         [](const Param&) { return std::make_unique<Fp16Codec>(); }},
        {{QStringLiteral("2bit"),
          QStringLiteral("HiPS's 2-bit quantization: each value sent as +t, −t or 0, 16 per 32-bit word (1/16 of the bytes)"),
          {{QStringLiteral("codec_threshold"), T::Number, 0, 10, 0,
            QStringLiteral("t, the step each value is sent as; 0: one per bucket of values, sent in the frame: the values from twice the "
                           "bucket's mean magnitude go as their own mean magnitude")},
           errorFeedback,
           warmup(0, "travel whole"),
           {QStringLiteral("codec_bucket"), T::Integer, 16, 1 << 20, 1024,
            QStringLiteral("values that share an automatic t (4 bytes each); 262144 or more: one t for each message (a 1 MiB "
                           "slice), as HiPS")}},
          {}},
         [](const Param& param) {
             return std::make_unique<TwoBitCodec>(float(param(QStringLiteral("codec_threshold"))),
                                                  param(QStringLiteral("codec_error_feedback")) != 0,
                                                  size_t(std::max(16.0, param(QStringLiteral("codec_bucket")))));
         }},
        {{QStringLiteral("topk"),
          QStringLiteral("GeoMX's bilateral sparse compression: the largest `codec_ratio` of the entries by magnitude, "
                         "indices delta-encoded"),
          {{QStringLiteral("codec_ratio"), T::Number, 1e-6, 0.4, 0.05,
            QStringLiteral("the share of the entries sent (above 0.4, fp16 is smaller)")},
           errorFeedback,
           warmup(4, "send a share rising from ratio^(1/(w+1)) to the ratio"),
           {QStringLiteral("codec_momentum"), T::Number, 0, 0.99, 0.3,
            QStringLiteral("GeoMX's momentum correction of pushes: u <- m*u + update, the residual gathers u, and an "
                           "entry sent starts its u again (0: plain error feedback)")},
           {QStringLiteral("codec_half_values"), T::Integer, 0, 1, 1,
            QStringLiteral("1: each value sent as a half-precision float, 2 bytes (what it does not say is the residual's); "
                           "0: as a float")}},
          {}},
         [](const Param& param) {
             return std::make_unique<TopKCodec>(param(QStringLiteral("codec_ratio")), param(QStringLiteral("codec_error_feedback")) != 0,
                                                param(QStringLiteral("codec_momentum")), param(QStringLiteral("codec_half_values")) != 0);
         }},
    };
    return codecs;
}

}  // namespace

namespace {
// The codec named, at its defaults; nullptr for `none` or an unknown name.
std::unique_ptr<GradientCodec> codecAtDefaults(const QString& name) {
    const StrategyInfo* info = CodecRegistry::find(name);
    if (!info) return nullptr;
    return GradientCodec::create(info->name, [info](const QString& key) {
        const ParamSpec* p = info->param(key);
        return p ? p->defaultValue : 0.0;
    });
}
}  // namespace

bool CodecRegistry::lossy(const QString& name) {
    const auto codec = codecAtDefaults(name);
    return codec && codec->lossy();
}

bool CodecRegistry::quantizesToSteps(const QString& name) {
    const auto codec = codecAtDefaults(name);
    return codec && codec->quantizesToSteps();
}

const StrategyList& CodecRegistry::all() {
    static const StrategyList infos = strategiesOf(entries());
    return infos;
}

std::unique_ptr<GradientCodec> GradientCodec::create(const QString& name, const std::function<double(const QString&)>& param) {
    for (const CodecEntry& e : entries()) {
        if (e.info.name != name) continue;
        std::unique_ptr<GradientCodec> codec = e.make(param);
        // In rounds here; makeLinkCodecs (backend/ps) scales it to the messages a round holds on a tier.
        if (codec && e.info.param(QStringLiteral("codec_warmup")))
            codec->setWarmupMessages(size_t(std::max(0.0, param(QStringLiteral("codec_warmup")))));
        return codec;
    }
    throw std::invalid_argument(QStringLiteral("unknown codec '%1'; use %2")
                                    .arg(name, strategyNames(CodecRegistry::all()).join(QStringLiteral(", ")))
                                    .toStdString());
}

}  // namespace hips
