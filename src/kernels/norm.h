// RMS normalisation, as llama.cpp computes it, and LayerNorm (BERT).
#pragma once

#include <cstdint>

namespace trit::kernels {

// out (n) = x / sqrt(mean(x^2) + eps) * weight. The sum of squares is taken
// in double, element i into lane i % 8 and the lanes in dot.h's tree (the
// order the SIMD version keeps); weight may be nullptr (no scaling).
// `out` may alias `x`.
void RmsNorm(const float* x, const float* weight, int64_t n, float eps, float* out);

// out (n) = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias, the
// population variance as PyTorch's LayerNorm takes it. Mean and variance are
// summed in double in index order (one fixed order: a row's result depends
// on that row alone). weight and bias may be nullptr; `out` may alias `x`.
void LayerNorm(const float* x, const float* weight, const float* bias, int64_t n, float eps, float* out);

}  // namespace trit::kernels
