#pragma once
#include <cstddef>

namespace hips {

// dst[i] += src[i]. Kept in its own translation unit, compiled with -O3, so it vectorizes.
void addInto(float* dst, const float* src, size_t n);
// out[i] = a[i] + b[i]: one pass where copy-then-add would take two.
void sumInto(float* out, const float* a, const float* b, size_t n);
// True when no value is NaN or ±Inf: a float is not finite exactly when its exponent bits are
// all ones, an integer test whose OR over the vector is one vectorized pass, no branch per value.
bool allFinite(const float* values, size_t n);
// out[i] = base[i] + in[i] (out[i] = in[i] when base is null) and, in the same pass, whether
// every in[i] is finite: false means `in` holds a NaN or ±Inf, and out is then garbage.
bool seedIfFinite(float* out, const float* base, const float* in, size_t n);
// out[i] = base[i] + Σ_k inputs[k][i] (base may be null), in cache-sized chunks so that every
// input is read once and out written once, whatever the number of inputs.
void sumMany(float* out, const float* base, const float* const* inputs, size_t count, size_t n);
// out[i] += Σ_k inputs[k][i], added in the order of k as one addInto after another would, but in
// cache-sized chunks: every input read once and out read and written once.
void addMany(float* out, const float* const* inputs, size_t count, size_t n);

// out = base + s·(out − base) (out = s·out when base is null): an aggregate of k of n
// contributions standing for all n (s = n/k).
void rescaleAround(float* out, const float* base, size_t n, float s);

// DC-ASGD's delay compensation of one push, in place: g' = g + λ·g⊙g⊙(now − backup) with the
// push's own gradient g = −(delta/s)/η, s the share the sender scaled its update by (1/N in asgd's
// damped form), so that delta' = s·(−η·g') = delta − (λ/(η·s))·delta⊙delta⊙(now − backup), where
// `backup` is the model the sender computed its delta from and `now` the model it is applied to.
// (λ on the pushed delta itself, as before s, would act as λ·s: λ/N.) A push of K local steps
// is K steps of that gradient: g = −(delta/s)/(η·K), each step compensated, so k = λ/(η·s·K)
// (taken as one step's, λ would act as λ·K). Its steps went through the worker's momentum μ, whose
// buffer it keeps from push to push: settled, a step moves by η·g/(1−μ), so g = −(1−μ)·delta/(η·s·K),
// and g' through the same momentum gives k = λ·(1−μ)/(η·s·K) (without (1−μ), λ acted as λ/(1−μ):
// 10λ at the default 0.9).
void compensateDelay(float* delta, const float* now, const float* backup, size_t n, float lambda, float learningRate,
                     float pushShare = 1.0f, float localSteps = 1.0f, float momentum = 0.0f);

}  // namespace hips
