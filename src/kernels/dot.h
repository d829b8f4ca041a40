// The one dot-product order every kernel uses (docs/DESIGN.md contract 2).
//
// Element k of a row is accumulated into lane k % kDotLanes, each lane in
// increasing k with one fused multiply-add per element (acc = fma(x, w, acc):
// one rounding, as the SIMD kernels' hardware FMA; std::fma is exact where a
// target has none); the lanes are then summed in a fixed pairwise tree. The
// result depends only on the two vectors, never on how a caller tiles the
// row (tiles must start at multiples of kDotLanes), on M or on threads.
// Why fused: a multiply then an add per element was twice the FP
// instructions of an FMA loop (docs/KERNELS.md, "One reduction order").
#pragma once

#include <cmath>
#include <cstdint>

namespace trit::kernels {

inline constexpr int64_t kDotLanes = 8;

// acc[k % 8] = fma(x[k], w[k], acc[k % 8]) for k in [0, n). The caller passes pointers at a
// row offset that is a multiple of kDotLanes.
inline void DotAccumulate(float* __restrict acc, const float* __restrict x, const float* __restrict w,
                          int64_t n) {
  int64_t k = 0;
  for (; k + kDotLanes <= n; k += kDotLanes) {
    for (int64_t j = 0; j < kDotLanes; ++j) acc[j] = std::fma(x[k + j], w[k + j], acc[j]);
  }
  for (int64_t j = 0; k + j < n; ++j) acc[j] = std::fma(x[k + j], w[k + j], acc[j]);
}

// ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)).
inline float DotReduce(const float* acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// sum x[k] * w[k] in the fixed order above (fused steps).
inline float Dot(const float* x, const float* w, int64_t n) {
  float acc[kDotLanes] = {};
  DotAccumulate(acc, x, w, n);
  return DotReduce(acc);
}

}  // namespace trit::kernels
