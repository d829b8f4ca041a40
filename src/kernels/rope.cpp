#include "kernels/rope.h"

#include <cmath>

namespace trit::kernels {

void RopeAngles(const RopeParams& p, int64_t pos, float* cos_out, float* sin_out) {
  const int64_t half = p.n_rot / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double inv_freq = std::pow(static_cast<double>(p.freq_base),
                                     -2.0 * static_cast<double>(i) / static_cast<double>(p.n_rot));
    double theta = static_cast<double>(pos) * static_cast<double>(p.freq_scale) * inv_freq;
    if (p.freq_factors != nullptr) theta /= static_cast<double>(p.freq_factors[i]);
    cos_out[i] = static_cast<float>(std::cos(theta));
    sin_out[i] = static_cast<float>(std::sin(theta));
  }
}

void RopeApply(const RopeParams& p, const float* cos_in, const float* sin_in, float* head) {
  const int64_t half = p.n_rot / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t ia = p.mode == RopeMode::kNormal ? 2 * i : i;
    const int64_t ib = p.mode == RopeMode::kNormal ? 2 * i + 1 : i + half;
    const float a = head[ia];
    const float b = head[ib];
    head[ia] = a * cos_in[i] - b * sin_in[i];
    head[ib] = a * sin_in[i] + b * cos_in[i];
  }
}

}  // namespace trit::kernels
