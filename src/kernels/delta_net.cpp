#include "kernels/delta_net.h"

#include <cmath>

namespace trit::kernels {
namespace {

// a . b over n floats in 8 fixed lanes, folded in a fixed order: the
// compiler may vectorize the lanes but not reorder the sums.
float Dot(const float* a, const float* b, int64_t n) {
  constexpr int kLanes = 8;
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
  }
  for (int l = 0; i < n; ++i, ++l) acc[l] += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

}  // namespace

void CausalConvSiluStep(const float* w, int64_t width, float* window, int64_t c_begin, int64_t c_end,
                        const float* x, float* out) {
  const int64_t keep = width - 1;
  for (int64_t c = c_begin; c < c_end; ++c) {
    float* win = window + c * keep;
    const float* wc = w + c * width;
    float sum = 0.0f;
    for (int64_t t = 0; t < keep; ++t) sum += win[t] * wc[t];
    sum += x[c] * wc[keep];
    for (int64_t t = 0; t + 1 < keep; ++t) win[t] = win[t + 1];
    if (keep > 0) win[keep - 1] = x[c];
    out[c] = sum / (1.0f + std::exp(-sum));
  }
}

void DeltaNetStep(float* state, int64_t dim_k, int64_t dim_v, const float* q, const float* k, const float* v,
                  float g, float beta, float scale, float* out) {
  const float decay = std::exp(g);
  // Every output j reads and writes row j alone: one pass over the state.
  for (int64_t j = 0; j < dim_v; ++j) {
    float* s = state + j * dim_k;
    for (int64_t i = 0; i < dim_k; ++i) s[i] *= decay;
    const float d = (v[j] - Dot(s, k, dim_k)) * beta;
    for (int64_t i = 0; i < dim_k; ++i) s[i] += d * k[i];
    out[j] = Dot(s, q, dim_k) * scale;
  }
}

void L2NormEps(float* x, int64_t n, float eps) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(sum + static_cast<double>(eps)));
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace trit::kernels
