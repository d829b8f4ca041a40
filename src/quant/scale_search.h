// The scale searches GGML's quantizers share, for the K-quants and for the
// legacy types when an importance matrix weights them (ggml's make_qx_quants,
// make_qkx2/3_quants and make_qp_quants). Each keeps ggml's float operation
// order and rounding, so the bytes built on them equal llama-quantize's.
// Internal to quant/: the public entry points are the QuantizeRow* functions.
#pragma once

#include <cmath>
#include <cstdint>

#include "base/half.h"

namespace trit::quant {

// Below this a group is treated as all zero (ggml's GROUP_MAX_EPS).
inline constexpr float kGroupMaxEps = 1e-15f;

// Round to nearest, ties to even, by ggml's trick: adding 1.5 * 2^23 leaves
// the integer part in the low mantissa bits. Exact for |v| <= 2^22 - 1, which
// every caller guarantees for finite input; for other input it returns some
// int without undefined behaviour (unlike a float -> int cast).
inline int NearestInt(float v) {
  const float shifted = v + 12582912.0f;
  return static_cast<int>(FloatBits(shifted) & 0x007fffffu) - 0x00400000;
}

// ggml's element weights with an importance matrix: w_j = importance[j] *
// sqrt(sigma2 + x_j^2), the importance of x_j's column scaled up for the
// large values. sigma2 is the caller's (each type takes its own: the row's
// mean square for the 32-value legacy blocks, twice the block's or
// super-block's for the K-quants and iq4).
inline void ImportanceWeights(const float* x, const float* importance, int n, float sigma2, float* w) {
  for (int j = 0; j < n; ++j) w[j] = importance[j] * std::sqrt(sigma2 + x[j] * x[j]);
}

// Symmetric scale search for one group of n (make_qx_quants, rmse_type 1):
// L[i] = l_i + nmax with l_i in [-nmax, nmax - 1]; returns the scale d
// minimising sum w_i (x_i - d l_i)^2 over 19 candidate inverse scales
// -(nmax + 0.1 k) / max, k in -9..9 (the least-squares d for each).
// w_i = weights[i], or x_i^2 when `weights` is null.
float MakeQxQuants(int n, int nmax, const float* x, int8_t* L, const float* weights);

// Asymmetric scale + min search for one group (make_qkx2_quants, squared
// error): x_i ~ scale * L_i - the_min with L_i in [0, nmax] and the_min >= 0.
// Starts from the [min(0, min x), max x] range, then tries nstep + 1 inverse
// scales (rmin + rdelta * k + nmax) / (max - min), solving the weighted
// least-squares (scale, min) for each, and keeps the best. With nstep >= 1
// this is also make_qkx3_quants with weights and squared error.
float MakeQkxQuants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                    uint8_t* Laux, float rmin, float rdelta, int nstep);

// Quantizes n non-negative values (sub-block scales or mins) to levels
// 0..nmax under one scale (make_qp_quants): the best of 9 inverse scales
// (nmax + 0.1 k) / max by the weighted error, then up to 5 passes moving
// single levels while that improves the weighted least-squares fit. Returns
// the fitted scale; L gets the levels.
float MakeQpQuants(int n, int nmax, const float* x, uint8_t* L, const float* weights);

}  // namespace trit::quant
