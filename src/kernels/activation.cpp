#include "kernels/activation.h"

#include <algorithm>
#include <cmath>

#include "kernels/exp_fixed.h"

namespace trit::kernels {

// exp by ExpFixed (not libm): the SIMD versions (elementwise_optimized.h)
// repeat these steps lane by lane and so return the same bits.
float Silu(float x) { return x / (1.0f + ExpFixed(-x)); }

// tanh(u) as 1 - 2 / (1 + e^2u), for the same reason.
float Gelu(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  const float u = kSqrt2OverPi * x * (1.0f + 0.044715f * x * x);
  const float tanh_u = 1.0f - 2.0f / (1.0f + ExpFixed(u + u));
  return 0.5f * x * (1.0f + tanh_u);
}

float GeluErf(float x) {
  constexpr float kInvSqrt2 = 0.70710678118654752440f;
  const float z = std::fabs(x) * kInvSqrt2;
  const float t = 1.0f / (1.0f + 0.3275911f * z);
  // Horner from the highest coefficient, one rounding a step (the SIMD version's order).
  float poly = t * 1.061405429f;
  poly = t * (-1.453152027f + poly);
  poly = t * (1.421413741f + poly);
  poly = t * (-0.284496736f + poly);
  poly = t * (0.254829592f + poly);
  const float erf_abs = 1.0f - poly * ExpFixed(-(z * z));
  const float erf = x < 0.0f ? -erf_abs : erf_abs;
  return 0.5f * x * (1.0f + erf);
}

// x * (1 / cap) rather than x / cap: the two roundings llama.cpp's graph does
// (ggml_scale by 1/cap, tanh, ggml_scale by cap).
float SoftCap(float x, float cap) { return cap * std::tanh(x * (1.0f / cap)); }

void SwiGlu(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = Silu(gate[i]) * up[i];
}

void SwiGluOai(const float* gate, const float* up, int64_t n, float* out) {
  constexpr float kAlpha = 1.702f, kLimit = 7.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float x = std::min(gate[i], kLimit);
    const float y = std::min(std::max(up[i], -kLimit), kLimit);
    out[i] = x / (1.0f + ExpFixed(-(kAlpha * x))) * (y + 1.0f);
  }
}

void GeGlu(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = Gelu(gate[i]) * up[i];
}

void ReluSqGlu(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float r = gate[i] > 0.0f ? gate[i] : 0.0f;
    out[i] = r * r * up[i];
  }
}

void GeluErfRow(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = GeluErf(x[i]);
}

void Add(const float* a, const float* b, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

void Mul(const float* a, const float* b, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

void Scale(float* x, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

void SoftCapRow(float* x, int64_t n, float cap) {
  for (int64_t i = 0; i < n; ++i) x[i] = SoftCap(x[i], cap);
}

}  // namespace trit::kernels
