#include "quant/k_quants.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_formats.h"

namespace trit::quant {
namespace {

// Below this a group is treated as all zero (ggml's GROUP_MAX_EPS).
constexpr float kGroupMaxEps = 1e-15f;

int64_t SuperBlockCount(int64_t n) {
  TRIT_CHECK(n >= 0 && n % kQK_K == 0);
  return n / kQK_K;
}

// Round to nearest, ties to even, by ggml's trick: adding 1.5 * 2^23 leaves
// the integer part in the low mantissa bits. Exact for |v| <= 2^22 - 1, which
// every caller guarantees for finite input; for other input it returns some
// int without undefined behaviour (unlike a float -> int cast).
int NearestInt(float v) {
  const float shifted = v + 12582912.0f;
  return static_cast<int>(FloatBits(shifted) & 0x007fffffu) - 0x00400000;
}

// Symmetric scale search for one group (ggml's make_qx_quants with
// rmse_type 1 and no importance weights): L[i] = l_i + nmax with
// l_i in [-nmax, nmax - 1], returns the scale d minimising
// sum w_i (x_i - d l_i)^2 with w_i = x_i^2, over 19 candidate inverse scales
// -(nmax + 0.1 k) / max, k in -9..9 (the least-squares d for each).
float MakeQxQuants(int n, int nmax, const float* x, int8_t* L) {
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.0f;
  }
  const auto quantize = [&](float iscale, float* sumlx, float* suml2, bool store) {
    *sumlx = 0;
    *suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::max(-nmax, std::min(nmax - 1, NearestInt(iscale * x[i])));
      if (store) L[i] = static_cast<int8_t>(l + nmax);
      const float w = x[i] * x[i];
      *sumlx += w * x[i] * static_cast<float>(l);
      *suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
  };
  float sumlx;
  float suml2;
  quantize(static_cast<float>(-nmax) / max, &sumlx, &suml2, /*store=*/true);
  float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
    quantize(iscale, &sumlx, &suml2, /*store=*/false);
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      quantize(iscale, &sumlx, &suml2, /*store=*/true);
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// Asymmetric scale + min search for one group (ggml's make_qkx2_quants,
// squared error): x_i ~ scale * L_i - the_min with L_i in [0, nmax] and
// the_min >= 0. Starts from the [min(0, min x), max x] range, then tries
// nstep + 1 inverse scales (rmin + rdelta * k + nmax) / (max - min), solving
// the weighted least-squares (scale, min) for each, and keeps the best.
float MakeQkx2Quants(int n, int nmax, const float* x, const float* weights, uint8_t* L,
                     float* the_min, uint8_t* Laux, float rmin, float rdelta, int nstep) {
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    std::memset(L, 0, static_cast<size_t>(n));
    *the_min = -min;
    return 0.0f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = NearestInt(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    const float diff = scale * static_cast<float>(L[i]) + min - x[i];
    best_error += weights[i] * (diff * diff);
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0;
    float sum_l2 = 0;
    float sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::max(0, std::min(nmax, NearestInt(iscale * (x[i] - min))));
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      const float lf = static_cast<float>(l);
      sum_l += w * lf;
      sum_l2 += w * lf * lf;
      sum_xl += w * lf * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        const float diff = this_scale * static_cast<float>(Laux[i]) + this_min - x[i];
        cur_error += weights[i] * (diff * diff);
      }
      if (cur_error < best_error) {
        std::memcpy(L, Laux, static_cast<size_t>(n));
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

// Inverse of GetScaleMinK4 for all 8 sub-blocks (ls, lm <= 63).
void PackScaleMinK4(const uint8_t* ls, const uint8_t* lm, uint8_t* packed) {
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      packed[j] = ls[j];
      packed[j + 4] = lm[j];
    } else {
      packed[j + 4] = static_cast<uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      packed[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
      packed[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
    }
  }
}

// The shared first half of Q4_K and Q5_K quantization: per 32-element
// sub-block an asymmetric (scale, min) fit, then both sets quantized to 6 bits
// against the super-block maxima (d = max_scale / 63, dmin = max_min / 63),
// then every element requantized against the stored (rounded) scales so the
// quants match what a reader will decode. Writes d, dmin, the packed scales
// and L (levels 0..nmax) for one super-block.
void QuantizeScalesAndLevelsK(const float* x, int nmax, float rmin, float rdelta, int nstep,
                              uint8_t* d_field, uint8_t* dmin_field, uint8_t* packed_scales,
                              uint8_t* L) {
  constexpr int kSub = kQK_K / 32;
  float scales[kSub];
  float mins[kSub];
  float weights[32];
  uint8_t Laux[32];
  float max_scale = 0;  // the min is subtracted, so scales are >= 0
  float max_min = 0;
  for (int j = 0; j < kSub; ++j) {
    const float* xs = x + 32 * j;
    // Weights favour large values: w_i = rms(x) + |x_i|.
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(xs[l]);
    scales[j] = MakeQkx2Quants(32, nmax, xs, weights, L + 32 * j, &mins[j], Laux, rmin, rdelta, nstep);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  uint8_t ls[kSub];
  uint8_t lm[kSub];
  for (int j = 0; j < kSub; ++j) {
    // ggml stores the int in a uint8_t before clamping; kept for identical bytes.
    ls[j] = std::min<uint8_t>(63, static_cast<uint8_t>(NearestInt(inv_scale * scales[j])));
    lm[j] = std::min<uint8_t>(63, static_cast<uint8_t>(NearestInt(inv_min * mins[j])));
  }
  PackScaleMinK4(ls, lm, packed_scales);
  StoreF16(d_field, max_scale / 63.f);
  StoreF16(dmin_field, max_min / 63.f);
  const float d_all = LoadF16(d_field);
  const float dmin_all = LoadF16(dmin_field);
  for (int j = 0; j < kSub; ++j) {
    uint8_t sc;
    uint8_t m;
    GetScaleMinK4(j, packed_scales, &sc, &m);
    const float d = d_all * sc;
    if (d == 0.0f) continue;  // keep the levels of the search
    const float dm = dmin_all * m;
    for (int ii = 0; ii < 32; ++ii) {
      const int l = NearestInt((x[32 * j + ii] + dm) / d);
      L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    }
  }
}

}  // namespace

void GetScaleMinK4(int j, const uint8_t* q, uint8_t* scale, uint8_t* min) {
  if (j < 4) {
    *scale = q[j] & 63;
    *min = q[j + 4] & 63;
  } else {
    *scale = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *min = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// --- Dequantization ---

void DequantizeRowQ2_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ2_K*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ2_K& b = blocks[i];
    const float d = LoadF16(b.d);
    const float min = LoadF16(b.dmin);
    // Each 32 bytes of qs hold 128 elements: bit pair `shift` of byte l is
    // element 32 * (shift / 2) + l of that half.
    const uint8_t* q = b.qs;
    int is = 0;
    for (int half = 0; half < 2; ++half) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int part = 0; part < 2; ++part) {
          const uint8_t sc = b.scales[is++];
          const float dl = d * (sc & 0xF);
          const float ml = min * (sc >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l + 16 * part] >> shift) & 3) - ml;
        }
      }
      q += 32;
    }
  }
}

void DequantizeRowQ3_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ3_K*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ3_K& b = blocks[i];
    const float d_all = LoadF16(b.d);
    // Scale j: low 4 bits in the low (j < 8) or high (j >= 8) nibble of byte
    // j % 8, top 2 bits at bit 2 * (j / 4) of byte 8 + j % 4; stored + 32.
    int scales[16];
    for (int j = 0; j < 16; ++j) {
      const int low = j < 8 ? (b.scales[j] & 0xF) : (b.scales[j - 8] >> 4);
      const int high = (b.scales[8 + j % 4] >> (2 * (j / 4))) & 3;
      scales[j] = (low | (high << 4)) - 32;
    }
    // Element bits: 2 low bits as Q2_K; the high bit of element (16 * part + l)
    // of each 32-group g is bit g of hmask[16 * part + l], set meaning "+4".
    const uint8_t* q = b.qs;
    int is = 0;
    uint8_t m = 1;
    for (int half = 0; half < 2; ++half) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int part = 0; part < 2; ++part) {
          const float dl = d_all * static_cast<float>(scales[is++]);
          for (int l = 0; l < 16; ++l) {
            const int k = 16 * part + l;
            const int v = ((q[k] >> shift) & 3) - ((b.hmask[k] & m) ? 0 : 4);
            *y++ = dl * static_cast<float>(v);
          }
        }
        m = static_cast<uint8_t>(m << 1);
      }
      q += 32;
    }
  }
}

void DequantizeRowQ4_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ4_K*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ4_K& b = blocks[i];
    const float d = LoadF16(b.d);
    const float min = LoadF16(b.dmin);
    // Each 32 bytes of qs hold two sub-blocks: low nibbles the first, high the second.
    const uint8_t* q = b.qs;
    for (int is = 0; is < 8; is += 2) {
      uint8_t sc;
      uint8_t m;
      GetScaleMinK4(is, b.scales, &sc, &m);
      const float d1 = d * sc;
      const float m1 = min * m;
      GetScaleMinK4(is + 1, b.scales, &sc, &m);
      const float d2 = d * sc;
      const float m2 = min * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * (q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * (q[l] >> 4) - m2;
      q += 32;
    }
  }
}

void DequantizeRowQ5_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ5_K*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ5_K& b = blocks[i];
    const float d = LoadF16(b.d);
    const float min = LoadF16(b.dmin);
    // As Q4_K; bit `is` of qh[l] is the fifth bit of element l of sub-block is.
    const uint8_t* ql = b.qs;
    for (int is = 0; is < 8; is += 2) {
      uint8_t sc;
      uint8_t m;
      GetScaleMinK4(is, b.scales, &sc, &m);
      const float d1 = d * sc;
      const float m1 = min * m;
      GetScaleMinK4(is + 1, b.scales, &sc, &m);
      const float d2 = d * sc;
      const float m2 = min * m;
      const uint8_t u1 = static_cast<uint8_t>(1u << is);
      const uint8_t u2 = static_cast<uint8_t>(2u << is);
      for (int l = 0; l < 32; ++l) *y++ = d1 * ((ql[l] & 0xF) + ((b.qh[l] & u1) ? 16 : 0)) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * ((ql[l] >> 4) + ((b.qh[l] & u2) ? 16 : 0)) - m2;
      ql += 32;
    }
  }
}

void DequantizeRowQ6_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ6_K*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ6_K& b = blocks[i];
    const float d = LoadF16(b.d);
    // Per 128 elements: 64 bytes of ql (element l and l + 64 share a byte,
    // l + 32 and l + 96 the next 32 bytes), 32 bytes of qh (2 bits each of
    // elements l, l + 32, l + 64, l + 96), 8 scales (one per 16 elements).
    const uint8_t* ql = b.ql;
    const uint8_t* qh = b.qh;
    const int8_t* sc = b.scales;
    for (int half = 0; half < 2; ++half) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * sc[is + 0] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
      y += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

void DequantizeRowQ8_K(const void* src, float* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  const auto* blocks = static_cast<const BlockQ8_K*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ8_K& b = blocks[i];
    const float d = LoadF32(b.d);
    for (int j = 0; j < kQK_K; ++j) dst[i * kQK_K + j] = d * b.qs[j];
  }
}

// --- Quantization ---

void QuantizeRowQ4_K(const float* src, void* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  auto* blocks = static_cast<BlockQ4_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    BlockQ4_K& b = blocks[i];
    uint8_t L[kQK_K];
    QuantizeScalesAndLevelsK(src + i * kQK_K, 15, -1.0f, 0.1f, 20, b.d, b.dmin, b.scales, L);
    uint8_t* q = b.qs;
    for (int j = 0; j < kQK_K; j += 64) {
      for (int l = 0; l < 32; ++l) q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
      q += 32;
    }
  }
}

void QuantizeRowQ5_K(const float* src, void* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  auto* blocks = static_cast<BlockQ5_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    BlockQ5_K& b = blocks[i];
    uint8_t L[kQK_K];
    QuantizeScalesAndLevelsK(src + i * kQK_K, 31, -0.5f, 0.1f, 15, b.d, b.dmin, b.scales, L);
    std::memset(b.qh, 0, sizeof b.qh);
    uint8_t* ql = b.qs;
    for (int j = 0; j < kQK_K; j += 64) {
      const int is = j / 32;  // sub-block of the low nibbles; is + 1 the high
      for (int l = 0; l < 32; ++l) {
        int l1 = L[j + l];
        int l2 = L[j + l + 32];
        if (l1 > 15) {
          l1 -= 16;
          b.qh[l] |= static_cast<uint8_t>(1u << is);
        }
        if (l2 > 15) {
          l2 -= 16;
          b.qh[l] |= static_cast<uint8_t>(2u << is);
        }
        ql[l] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
      ql += 32;
    }
  }
}

void QuantizeRowQ6_K(const float* src, void* dst, int64_t n) {
  const int64_t nb = SuperBlockCount(n);
  auto* blocks = static_cast<BlockQ6_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK_K;
    BlockQ6_K& b = blocks[i];
    int8_t L[kQK_K];
    float scales[kQK_K / 16];
    float max_scale = 0;
    float max_abs_scale = 0;
    for (int ib = 0; ib < kQK_K / 16; ++ib) {
      scales[ib] = MakeQxQuants(16, 32, x + 16 * ib, L + 16 * ib);
      if (std::fabs(scales[ib]) > max_abs_scale) {
        max_abs_scale = std::fabs(scales[ib]);
        max_scale = scales[ib];
      }
    }
    if (max_abs_scale < kGroupMaxEps) {
      std::memset(&b, 0, sizeof b);  // all zero: d = 0
      continue;
    }
    // 8-bit signed sub-block scales: the largest maps to -128 (so that
    // d = -max_scale / 128 has the sign that makes it fit).
    const float iscale = -128.f / max_scale;
    StoreF16(b.d, 1 / iscale);
    for (int ib = 0; ib < kQK_K / 16; ++ib) {
      b.scales[ib] = static_cast<int8_t>(std::min(127, NearestInt(iscale * scales[ib])));
    }
    const float d_all = LoadF16(b.d);
    for (int j = 0; j < kQK_K / 16; ++j) {
      const float d = d_all * b.scales[j];
      if (d == 0.0f) continue;  // keep the levels of the search
      for (int ii = 0; ii < 16; ++ii) {
        const int l = std::max(-32, std::min(31, NearestInt(x[16 * j + ii] / d)));
        L[16 * j + ii] = static_cast<int8_t>(l + 32);
      }
    }
    uint8_t* ql = b.ql;
    uint8_t* qh = b.qh;
    for (int j = 0; j < kQK_K; j += 128) {
      for (int l = 0; l < 32; ++l) {
        const int q1 = L[j + l];
        const int q2 = L[j + l + 32];
        const int q3 = L[j + l + 64];
        const int q4 = L[j + l + 96];
        ql[l] = static_cast<uint8_t>((q1 & 0xF) | ((q3 & 0xF) << 4));
        ql[l + 32] = static_cast<uint8_t>((q2 & 0xF) | ((q4 & 0xF) << 4));
        qh[l] = static_cast<uint8_t>((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
      }
      ql += 64;
      qh += 32;
    }
  }
}

}  // namespace trit::quant
