#include "quant/k_quants.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_count.h"
#include "quant/block_formats.h"
#include "quant/scale_search.h"

namespace trit::quant {
namespace {

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

// Every element of a Q4_K/Q5_K super-block quantized again against the
// scales and mins as stored (fp16 d and dmin times the 6-bit levels), so the
// levels match what a reader decodes. A sub-block whose stored scale is 0
// keeps the levels of its search.
void RequantizeLevelsK(const float* x, int nmax, const uint8_t* d_field, const uint8_t* dmin_field,
                       const uint8_t* packed_scales, uint8_t* L) {
  const float d_all = LoadF16(d_field);
  const float dmin_all = LoadF16(dmin_field);
  for (int j = 0; j < kQK_K / 32; ++j) {
    uint8_t sc;
    uint8_t m;
    GetScaleMinK4(j, packed_scales, &sc, &m);
    const float d = d_all * sc;
    if (d == 0.0f) continue;
    const float dm = dmin_all * m;
    for (int ii = 0; ii < 32; ++ii) {
      const int l = NearestInt((x[32 * j + ii] + dm) / d);
      L[32 * j + ii] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
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
    scales[j] = MakeQkxQuants(32, nmax, xs, weights, L + 32 * j, &mins[j], Laux, rmin, rdelta, nstep);
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
  RequantizeLevelsK(x, nmax, d_field, dmin_field, packed_scales, L);
}

// QuantizeScalesAndLevelsK with an importance matrix (ggml's
// quantize_row_q4_K_impl / q5_K_impl): element l of a sub-block weighs
// importance[l] * sqrt(sigma2 + x_l^2), sigma2 twice the super-block's mean
// square, in a finer (scale, min) search; then the 8 scales and the 8 mins
// are each quantized to 6 bits by a weighted search over their own super-block
// scale (MakeQpQuants, a sub-block weighing the sum of its weights), instead
// of the plain max / 63.
void QuantizeScalesAndLevelsKWeighted(const float* x, const float* importance, int nmax, uint8_t* d_field,
                                      uint8_t* dmin_field, uint8_t* packed_scales, uint8_t* L) {
  constexpr int kSub = kQK_K / 32;
  float scales[kSub];
  float mins[kSub];
  float sub_weights[kSub];
  float weights[32];
  uint8_t Laux[32];
  float sum_x2 = 0;
  for (int l = 0; l < kQK_K; ++l) sum_x2 += x[l] * x[l];
  const float sigma2 = 2 * sum_x2 / kQK_K;
  for (int j = 0; j < kSub; ++j) {
    const float* xs = x + 32 * j;
    ImportanceWeights(xs, importance + 32 * j, 32, sigma2, weights);
    float sum_w = 0;
    for (int l = 0; l < 32; ++l) sum_w += weights[l];
    sub_weights[j] = sum_w;
    scales[j] = MakeQkxQuants(32, nmax, xs, weights, L + 32 * j, &mins[j], Laux, -0.9f, 0.05f, 36);
  }
  uint8_t ls[kSub];
  uint8_t lm[kSub];
  const float d_block = MakeQpQuants(kSub, 63, scales, ls, sub_weights);
  const float m_block = MakeQpQuants(kSub, 63, mins, lm, sub_weights);
  PackScaleMinK4(ls, lm, packed_scales);
  StoreF16(d_field, d_block);
  StoreF16(dmin_field, m_block);
  RequantizeLevelsK(x, nmax, d_field, dmin_field, packed_scales, L);
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
  const int64_t nb = BlockCount(n, kQK_K);
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
  const int64_t nb = BlockCount(n, kQK_K);
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
  const int64_t nb = BlockCount(n, kQK_K);
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
  const int64_t nb = BlockCount(n, kQK_K);
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
  const int64_t nb = BlockCount(n, kQK_K);
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
  const int64_t nb = BlockCount(n, kQK_K);
  const auto* blocks = static_cast<const BlockQ8_K*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ8_K& b = blocks[i];
    const float d = LoadF32(b.d);
    for (int j = 0; j < kQK_K; ++j) dst[i * kQK_K + j] = d * b.qs[j];
  }
}

// --- Quantization ---

namespace {

// Q4_K of a row, with importance weights per column or (nullptr) without.
void QuantizeQ4_K(const float* src, void* dst, int64_t n, const float* importance) {
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockQ4_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    BlockQ4_K& b = blocks[i];
    uint8_t L[kQK_K];
    if (importance != nullptr) {
      QuantizeScalesAndLevelsKWeighted(src + i * kQK_K, importance + i * kQK_K, 15, b.d, b.dmin, b.scales, L);
    } else {
      QuantizeScalesAndLevelsK(src + i * kQK_K, 15, -1.0f, 0.1f, 20, b.d, b.dmin, b.scales, L);
    }
    uint8_t* q = b.qs;
    for (int j = 0; j < kQK_K; j += 64) {
      for (int l = 0; l < 32; ++l) q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
      q += 32;
    }
  }
}

void QuantizeQ5_K(const float* src, void* dst, int64_t n, const float* importance) {
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockQ5_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    BlockQ5_K& b = blocks[i];
    uint8_t L[kQK_K];
    if (importance != nullptr) {
      QuantizeScalesAndLevelsKWeighted(src + i * kQK_K, importance + i * kQK_K, 31, b.d, b.dmin, b.scales, L);
    } else {
      QuantizeScalesAndLevelsK(src + i * kQK_K, 31, -0.5f, 0.1f, 15, b.d, b.dmin, b.scales, L);
    }
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

// With importance, a 16-element group's scale search weighs element l by
// importance[l] alone (ggml's quantize_row_q6_K_impl), not by x_l^2.
void QuantizeQ6_K(const float* src, void* dst, int64_t n, const float* importance) {
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockQ6_K*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK_K;
    BlockQ6_K& b = blocks[i];
    int8_t L[kQK_K];
    float scales[kQK_K / 16];
    float max_scale = 0;
    float max_abs_scale = 0;
    for (int ib = 0; ib < kQK_K / 16; ++ib) {
      const float* weights = importance != nullptr ? importance + i * kQK_K + 16 * ib : nullptr;
      scales[ib] = MakeQxQuants(16, 32, x + 16 * ib, L + 16 * ib, weights);
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

}  // namespace

void QuantizeRowQ4_K(const float* src, void* dst, int64_t n) { QuantizeQ4_K(src, dst, n, nullptr); }
void QuantizeRowQ5_K(const float* src, void* dst, int64_t n) { QuantizeQ5_K(src, dst, n, nullptr); }
void QuantizeRowQ6_K(const float* src, void* dst, int64_t n) { QuantizeQ6_K(src, dst, n, nullptr); }

void QuantizeRowWeightedQ4_K(const float* src, void* dst, int64_t n, const float* importance) {
  QuantizeQ4_K(src, dst, n, importance);
}
void QuantizeRowWeightedQ5_K(const float* src, void* dst, int64_t n, const float* importance) {
  QuantizeQ5_K(src, dst, n, importance);
}
void QuantizeRowWeightedQ6_K(const float* src, void* dst, int64_t n, const float* importance) {
  QuantizeQ6_K(src, dst, n, importance);
}

}  // namespace trit::quant
