#include "VectorMath.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

// The hot loops get AVX-512 (x86-64-v4) and AVX2 copies beside the baseline x86-64 one, chosen
// once at load time by the CPU (GCC's ifunc): more lanes where the servers fold pushes still in
// cache (AVX-512 halves allFinite's time on a 1 MiB slice here: 14.7 to 7.8 µs; the adds are bound
// by the cache, not the lanes). CMakeLists turns FMA contraction off so every copy rounds alike.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HIPS_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define HIPS_VECTOR_CLONES
#endif

namespace hips {

HIPS_VECTOR_CLONES void addInto(float* __restrict dst, const float* __restrict src, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

HIPS_VECTOR_CLONES void sumInto(float* __restrict out, const float* __restrict a, const float* __restrict b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

static inline uint32_t notFinite(float value) {
    constexpr uint32_t kExponent = 0x7f800000u;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return uint32_t((bits & kExponent) == kExponent);
}

HIPS_VECTOR_CLONES bool allFinite(const float* __restrict values, size_t n) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad |= notFinite(values[i]);
    return bad == 0;
}

HIPS_VECTOR_CLONES bool seedIfFinite(float* __restrict out, const float* __restrict base, const float* __restrict in, size_t n) {
    uint32_t bad = 0;
    if (base)
        for (size_t i = 0; i < n; ++i) {
            bad |= notFinite(in[i]);
            out[i] = base[i] + in[i];
        }
    else
        for (size_t i = 0; i < n; ++i) {
            bad |= notFinite(in[i]);
            out[i] = in[i];
        }
    return bad == 0;
}

static constexpr size_t kChunk = 4096;  // 16 KiB: the chunk of out stays in L1 across the inputs

void sumMany(float* out, const float* base, const float* const* inputs, size_t count, size_t n) {
    for (size_t begin = 0; begin < n; begin += kChunk) {
        const size_t len = std::min(kChunk, n - begin);
        float* o = out + begin;
        if (base && count > 0) sumInto(o, base + begin, inputs[0] + begin, len);
        else if (base) std::copy(base + begin, base + begin + len, o);
        else if (count > 0) std::copy(inputs[0] + begin, inputs[0] + begin + len, o);
        else std::fill(o, o + len, 0.0f);
        for (size_t k = 1; k < count; ++k) addInto(o, inputs[k] + begin, len);
    }
}

void addMany(float* out, const float* const* inputs, size_t count, size_t n) {
    for (size_t begin = 0; begin < n; begin += kChunk) {
        const size_t len = std::min(kChunk, n - begin);
        for (size_t k = 0; k < count; ++k) addInto(out + begin, inputs[k] + begin, len);
    }
}

void compensateDelay(float* delta, const float* now, const float* backup, size_t n, float lambda, float learningRate, float pushShare,
                     float localSteps, float momentum) {
    const float k = lambda * (1.0f - momentum) / (learningRate * pushShare * localSteps);
    for (size_t i = 0; i < n; ++i) delta[i] -= k * delta[i] * delta[i] * (now[i] - backup[i]);
}

HIPS_VECTOR_CLONES void rescaleAround(float* out, const float* base, size_t n, float s) {
    if (!base) {
        for (size_t i = 0; i < n; ++i) out[i] *= s;
        return;
    }
    for (size_t i = 0; i < n; ++i) out[i] = base[i] + s * (out[i] - base[i]);
}

}  // namespace hips
