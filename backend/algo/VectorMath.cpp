#include "VectorMath.h"

namespace hips {

void addInto(float* __restrict dst, const float* __restrict src, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

void sumInto(float* __restrict out, const float* __restrict a, const float* __restrict b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

}  // namespace hips
