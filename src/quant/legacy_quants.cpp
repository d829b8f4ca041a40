#include "quant/legacy_quants.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "base/check.h"
#include "quant/block_count.h"
#include "quant/block_formats.h"
#include "quant/scale_search.h"

namespace trit::quant {
namespace {

// Number of whole blocks in `n` elements; a partial block is a caller bug
// (sizes come from RowBytes, which refuses them).
// The element of largest magnitude, with its sign (the first one on ties).
// Q4_0/Q5_0 map it to the most negative level so the scale is signed.
float SignedAbsMax(const float* x, int n) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  return max;
}

// The smallest and largest of x[0..n): the range the asymmetric types (q4_1,
// q5_1) spread their levels over.
void MinMax(const float* x, int n, float* min, float* max) {
  *min = FLT_MAX;
  *max = -FLT_MAX;
  for (int j = 0; j < n; ++j) {
    if (x[j] < *min) *min = x[j];
    if (x[j] > *max) *max = x[j];
  }
}

}  // namespace

// --- Dequantization ---

void DequantizeRowQ4_0(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_0);
  const auto* blocks = static_cast<const BlockQ4_0*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ4_0& b = blocks[i];
    const float d = LoadF16(b.d);
    float* y = dst + i * kQK4_0;
    for (int j = 0; j < kQK4_0 / 2; ++j) {
      const int x0 = (b.qs[j] & 0x0F) - 8;
      const int x1 = (b.qs[j] >> 4) - 8;
      y[j] = x0 * d;
      y[j + kQK4_0 / 2] = x1 * d;
    }
  }
}

void DequantizeRowQ4_1(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_1);
  const auto* blocks = static_cast<const BlockQ4_1*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ4_1& b = blocks[i];
    const float d = LoadF16(b.d);
    const float m = LoadF16(b.m);
    float* y = dst + i * kQK4_1;
    for (int j = 0; j < kQK4_1 / 2; ++j) {
      const int x0 = b.qs[j] & 0x0F;
      const int x1 = b.qs[j] >> 4;
      y[j] = x0 * d + m;
      y[j + kQK4_1 / 2] = x1 * d + m;
    }
  }
}

void DequantizeRowQ5_0(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK5_0);
  const auto* blocks = static_cast<const BlockQ5_0*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ5_0& b = blocks[i];
    const float d = LoadF16(b.d);
    const uint32_t qh = LoadU32(b.qh);
    float* y = dst + i * kQK5_0;
    for (int j = 0; j < kQK5_0 / 2; ++j) {
      // Bit j of qh is bit 4 of element j; bit j + 16 that of element j + 16.
      const int h0 = static_cast<int>((qh >> j) & 1u) << 4;
      const int h1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
      const int x0 = ((b.qs[j] & 0x0F) | h0) - 16;
      const int x1 = ((b.qs[j] >> 4) | h1) - 16;
      y[j] = x0 * d;
      y[j + kQK5_0 / 2] = x1 * d;
    }
  }
}

void DequantizeRowQ5_1(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK5_1);
  const auto* blocks = static_cast<const BlockQ5_1*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ5_1& b = blocks[i];
    const float d = LoadF16(b.d);
    const float m = LoadF16(b.m);
    const uint32_t qh = LoadU32(b.qh);
    float* y = dst + i * kQK5_1;
    for (int j = 0; j < kQK5_1 / 2; ++j) {
      const int h0 = static_cast<int>((qh >> j) & 1u) << 4;
      const int h1 = static_cast<int>((qh >> (j + 16)) & 1u) << 4;
      const int x0 = (b.qs[j] & 0x0F) | h0;
      const int x1 = (b.qs[j] >> 4) | h1;
      y[j] = x0 * d + m;
      y[j + kQK5_1 / 2] = x1 * d + m;
    }
  }
}

void DequantizeRowQ8_0(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK8_0);
  const auto* blocks = static_cast<const BlockQ8_0*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockQ8_0& b = blocks[i];
    const float d = LoadF16(b.d);
    float* y = dst + i * kQK8_0;
    for (int j = 0; j < kQK8_0; ++j) y[j] = b.qs[j] * d;
  }
}

// --- Quantization ---
//
// The rounding below is ggml's, kept exactly for byte-identical output:
// Q4_0/Q5_0/Q4_1 truncate (v + 0.5) toward zero after the offset (v >= 0 there,
// so this is round-half-up), Q8_0 uses roundf (half away from zero). The
// scale is computed in float32 and only its fp16 copy is stored; the
// quants are derived from the float32 scale, as ggml does.

void QuantizeRowQ4_0(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_0);
  auto* blocks = static_cast<BlockQ4_0*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK4_0;
    BlockQ4_0& b = blocks[i];
    // d = max / -8 maps the extreme value to level 0 (q - 8 = -8), so the
    // other side gets the full 7 positive levels.
    const float d = SignedAbsMax(x, kQK4_0) / -8;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    for (int j = 0; j < kQK4_0 / 2; ++j) {
      const float x0 = x[j] * id;
      const float x1 = x[j + kQK4_0 / 2] * id;
      const int q0 = std::min(15, static_cast<int>(x0 + 8.5f));
      const int q1 = std::min(15, static_cast<int>(x1 + 8.5f));
      b.qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

void QuantizeRowQ4_1(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_1);
  auto* blocks = static_cast<BlockQ4_1*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK4_1;
    BlockQ4_1& b = blocks[i];
    float min = 0.0f;
    float max = 0.0f;
    MinMax(x, kQK4_1, &min, &max);
    // 16 levels spread over [min, max].
    const float d = (max - min) / 15;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    StoreF16(b.m, min);
    for (int j = 0; j < kQK4_1 / 2; ++j) {
      const float x0 = (x[j] - min) * id;
      const float x1 = (x[j + kQK4_1 / 2] - min) * id;
      const int q0 = std::min(15, static_cast<int>(x0 + 0.5f));
      const int q1 = std::min(15, static_cast<int>(x1 + 0.5f));
      b.qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

void QuantizeRowQ5_0(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK5_0);
  auto* blocks = static_cast<BlockQ5_0*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK5_0;
    BlockQ5_0& b = blocks[i];
    const float d = SignedAbsMax(x, kQK5_0) / -16;  // as Q4_0, with 32 levels
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    uint32_t qh = 0;
    for (int j = 0; j < kQK5_0 / 2; ++j) {
      const float x0 = x[j] * id;
      const float x1 = x[j + kQK5_0 / 2] * id;
      const int q0 = std::min(31, static_cast<int>(x0 + 16.5f));
      const int q1 = std::min(31, static_cast<int>(x1 + 16.5f));
      b.qs[j] = static_cast<uint8_t>((q0 & 0x0F) | ((q1 & 0x0F) << 4));
      qh |= static_cast<uint32_t>((q0 >> 4) & 1) << j;
      qh |= static_cast<uint32_t>((q1 >> 4) & 1) << (j + kQK5_0 / 2);
    }
    StoreU32(b.qh, qh);
  }
}

void QuantizeRowQ5_1(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK5_1);
  auto* blocks = static_cast<BlockQ5_1*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK5_1;
    BlockQ5_1& b = blocks[i];
    float min = 0.0f;
    float max = 0.0f;
    MinMax(x, kQK5_1, &min, &max);
    const float d = (max - min) / 31;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    StoreF16(b.m, min);
    uint32_t qh = 0;
    for (int j = 0; j < kQK5_1 / 2; ++j) {
      const float x0 = (x[j] - min) * id;
      const float x1 = (x[j + kQK5_1 / 2] - min) * id;
      // ggml's Q5_1 reference does not clamp to 31: (max - min) * id rounds to
      // at most 31.000004, so the truncation never exceeds 31 for finite input.
      const int q0 = static_cast<uint8_t>(x0 + 0.5f);
      const int q1 = static_cast<uint8_t>(x1 + 0.5f);
      b.qs[j] = static_cast<uint8_t>((q0 & 0x0F) | ((q1 & 0x0F) << 4));
      qh |= static_cast<uint32_t>((q0 >> 4) & 1) << j;
      qh |= static_cast<uint32_t>((q1 >> 4) & 1) << (j + kQK5_1 / 2);
    }
    StoreU32(b.qh, qh);
  }
}

void QuantizeRowQ8_0(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK8_0);
  auto* blocks = static_cast<BlockQ8_0*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK8_0;
    BlockQ8_0& b = blocks[i];
    float amax = 0.0f;
    for (int j = 0; j < kQK8_0; ++j) amax = std::max(amax, std::fabs(x[j]));
    // Symmetric: the largest magnitude maps to +-127.
    const float d = amax / 127;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    for (int j = 0; j < kQK8_0; ++j) b.qs[j] = static_cast<int8_t>(std::round(x[j] * id));
  }
}

// --- Quantization with importance weights (ggml's quantize_row_*_impl) ---
//
// Element j of a block weighs importance[j] * sqrt(sigma2 + x_j^2), sigma2
// the row's mean square: the columns the model's inputs drive hardest, and
// within them the large values, get the smallest error. Q4_0/Q5_0 then take
// the symmetric scale search of the K-quants, Q4_1/Q5_1 the asymmetric one,
// instead of the plain max-based scale.

namespace {

// The importance-weighted element weights of every block of one row are
// built from the row's mean square, computed once.
float RowMeanSquare(const float* x, int64_t n) {
  float sum_x2 = 0;
  for (int64_t j = 0; j < n; ++j) sum_x2 += x[j] * x[j];
  return sum_x2 / static_cast<float>(n);
}

// Calls fn(i, x, weights) for each 32-value block i of a row, with its
// values and its importance weights.
template <typename Fn>
void ForEachWeightedBlock(const float* src, int64_t n, const float* importance, Fn fn) {
  const int64_t nb = BlockCount(n, 32);
  const float sigma2 = RowMeanSquare(src, n);
  for (int64_t i = 0; i < nb; ++i) {
    float weights[32];
    ImportanceWeights(src + i * 32, importance + i * 32, 32, sigma2, weights);
    fn(i, src + i * 32, weights);
  }
}

// Levels 0..15 of a 4-bit block: element j and j + 16 share byte j.
template <typename Level>
void PackFourBitLevels(const Level* L, uint8_t* qs) {
  for (int j = 0; j < 16; ++j) qs[j] = static_cast<uint8_t>(L[j] | (L[j + 16] << 4));
}

// Levels 0..31 of a 5-bit block: low nibbles in qs (element j and j + 16
// share byte j), fifth bits in the 32-bit qh (bit j for element j).
template <typename Level>
void PackFiveBitLevels(const Level* L, uint8_t* qs, uint8_t* qh_field) {
  uint32_t qh = 0;
  for (int j = 0; j < 16; ++j) {
    qs[j] = static_cast<uint8_t>((L[j] & 0x0F) | ((L[j + 16] & 0x0F) << 4));
    qh |= static_cast<uint32_t>((L[j] >> 4) & 1) << j;
    qh |= static_cast<uint32_t>((L[j + 16] >> 4) & 1) << (j + 16);
  }
  StoreU32(qh_field, qh);
}

// The asymmetric search of Q4_1/Q5_1 with importance: returns d, sets the
// stored min (-the_min) and the levels.
float AsymmetricWeighted(const float* x, const float* weights, int nmax, uint8_t* L, float* m) {
  uint8_t Laux[32];
  float the_min = 0;
  const float d = MakeQkxQuants(32, nmax, x, weights, L, &the_min, Laux, -0.9f, 0.05f, 36);
  *m = -the_min;
  return d;
}

}  // namespace

void QuantizeRowWeightedQ4_0(const float* src, void* dst, int64_t n, const float* importance) {
  auto* blocks = static_cast<BlockQ4_0*>(dst);
  ForEachWeightedBlock(src, n, importance, [&](int64_t i, const float* x, const float* weights) {
    int8_t L[kQK4_0];
    StoreF16(blocks[i].d, MakeQxQuants(kQK4_0, 8, x, L, weights));
    PackFourBitLevels(L, blocks[i].qs);
  });
}

void QuantizeRowWeightedQ5_0(const float* src, void* dst, int64_t n, const float* importance) {
  auto* blocks = static_cast<BlockQ5_0*>(dst);
  ForEachWeightedBlock(src, n, importance, [&](int64_t i, const float* x, const float* weights) {
    int8_t L[kQK5_0];
    StoreF16(blocks[i].d, MakeQxQuants(kQK5_0, 16, x, L, weights));
    PackFiveBitLevels(L, blocks[i].qs, blocks[i].qh);
  });
}

void QuantizeRowWeightedQ4_1(const float* src, void* dst, int64_t n, const float* importance) {
  auto* blocks = static_cast<BlockQ4_1*>(dst);
  ForEachWeightedBlock(src, n, importance, [&](int64_t i, const float* x, const float* weights) {
    uint8_t L[kQK4_1];
    float m = 0;
    StoreF16(blocks[i].d, AsymmetricWeighted(x, weights, 15, L, &m));
    StoreF16(blocks[i].m, m);
    PackFourBitLevels(L, blocks[i].qs);
  });
}

void QuantizeRowWeightedQ5_1(const float* src, void* dst, int64_t n, const float* importance) {
  auto* blocks = static_cast<BlockQ5_1*>(dst);
  ForEachWeightedBlock(src, n, importance, [&](int64_t i, const float* x, const float* weights) {
    uint8_t L[kQK5_1];
    float m = 0;
    StoreF16(blocks[i].d, AsymmetricWeighted(x, weights, 31, L, &m));
    StoreF16(blocks[i].m, m);
    PackFiveBitLevels(L, blocks[i].qs, blocks[i].qh);
  });
}

}  // namespace trit::quant
