#include "kernels/norm.h"

#include <cmath>

namespace trit::kernels {

void RmsNorm(const float* x, const float* weight, int64_t n, float eps, float* out) {
  // Element i into double lane i % 8, the lanes in dot.h's tree: the order
  // the SIMD version (elementwise_optimized.h) keeps, so both give these bits.
  double lanes[8] = {};
  for (int64_t i = 0; i < n; ++i) lanes[i % 8] += static_cast<double>(x[i] * x[i]);
  const double sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float scale = 1.0f / std::sqrt(mean + eps);
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] * scale;
    out[i] = weight != nullptr ? v * weight[i] : v;
  }
}

void LayerNorm(const float* x, const float* weight, const float* bias, int64_t n, float eps, float* out) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]);
  const double mean = sum / static_cast<double>(n);
  double sq = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    sq += d * d;
  }
  const double inv = 1.0 / std::sqrt(sq / static_cast<double>(n) + static_cast<double>(eps));
  for (int64_t i = 0; i < n; ++i) {
    float v = static_cast<float>((static_cast<double>(x[i]) - mean) * inv);
    if (weight != nullptr) v *= weight[i];
    if (bias != nullptr) v += bias[i];
    out[i] = v;
  }
}

}  // namespace trit::kernels
