#include "kernels/norm.h"

#include <cmath>

namespace trit::kernels {

void RmsNorm(const float* x, const float* weight, int64_t n, float eps, float* out) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i] * x[i]);
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float scale = 1.0f / std::sqrt(mean + eps);
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] * scale;
    out[i] = weight != nullptr ? v * weight[i] : v;
  }
}

}  // namespace trit::kernels
