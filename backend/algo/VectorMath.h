#pragma once
#include <cstddef>

namespace hips {

// dst[i] += src[i]. Kept in its own translation unit, compiled with -O3, so it vectorizes.
void addInto(float* dst, const float* src, size_t n);
// out[i] = a[i] + b[i]: one pass where copy-then-add would take two.
void sumInto(float* out, const float* a, const float* b, size_t n);

}  // namespace hips
