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

}  // namespace trit::kernels
