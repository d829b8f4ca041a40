#include "kernels/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace trit::kernels {

void RopeAngles(const RopeParams& p, int64_t pos, float* cos_out, float* sin_out) {
  const int64_t half = p.n_rot / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double inv_freq = std::pow(static_cast<double>(p.freq_base),
                                     -2.0 * static_cast<double>(i) / static_cast<double>(p.n_rot));
    double theta_extrap = static_cast<double>(pos) * inv_freq;
    if (p.freq_factors != nullptr) theta_extrap /= static_cast<double>(p.freq_factors[i]);
    double theta = static_cast<double>(p.freq_scale) * theta_extrap;
    if (p.yarn_ext_factor != 0.0f) {
      const double y = (static_cast<double>(i) - p.yarn_low) / std::max(0.001, static_cast<double>(p.yarn_high) - p.yarn_low);
      const double ramp = (1.0 - std::clamp(y, 0.0, 1.0)) * p.yarn_ext_factor;
      theta = theta * (1.0 - ramp) + theta_extrap * ramp;
    }
    cos_out[i] = static_cast<float>(std::cos(theta) * p.mscale);
    sin_out[i] = static_cast<float>(std::sin(theta) * p.mscale);
  }
}

void YarnCorrDims(int64_t n_rot, int64_t n_ctx_orig, float freq_base, float beta_fast, float beta_slow, float* low,
                  float* high) {
  const auto dim = [&](float beta) {
    return static_cast<double>(n_rot) * std::log(static_cast<double>(n_ctx_orig) / (beta * 2.0 * std::numbers::pi)) /
           (2.0 * std::log(static_cast<double>(freq_base)));
  };
  *low = static_cast<float>(std::max(0.0, std::floor(dim(beta_fast))));
  *high = static_cast<float>(std::min(static_cast<double>(n_rot - 1), std::ceil(dim(beta_slow))));
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
