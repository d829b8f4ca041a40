// RMS normalisation, as llama.cpp computes it.
#pragma once

#include <cstdint>

namespace trit::kernels {

// out (n) = x / sqrt(mean(x^2) + eps) * weight. The sum of squares is taken
// in double, element i into lane i % 8 and the lanes in dot.h's tree (the
// order the SIMD version keeps); weight may be nullptr (no scaling).
// `out` may alias `x`.
void RmsNorm(const float* x, const float* weight, int64_t n, float eps, float* out);

}  // namespace trit::kernels
