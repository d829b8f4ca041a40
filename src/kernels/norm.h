// RMS normalisation, as llama.cpp computes it.
#pragma once

#include <cstdint>

namespace trit::kernels {

// out (n) = x / sqrt(mean(x^2) + eps) * weight. The sum of squares is taken
// in double, in index order; weight may be nullptr (no scaling).
// `out` may alias `x`.
void RmsNorm(const float* x, const float* weight, int64_t n, float eps, float* out);

}  // namespace trit::kernels
