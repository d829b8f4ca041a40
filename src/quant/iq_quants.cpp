#include "quant/iq_quants.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "quant/block_count.h"
#include "quant/block_formats.h"
#include "quant/scale_search.h"

namespace trit::quant {
namespace {

// Elements per IQ4_XS sub-block (each with its own 6-bit scale).
constexpr int kSubBlock = 32;
// The index whose value (1) is nearest zero: what an all-zero group stores.
constexpr uint8_t kZeroIndex = 8;

// The index of the codebook value nearest v (the lower one on a tie): the
// last value <= v by a branchless binary search (the branches of a plain one
// mispredict on every element), then the nearer of it and the next.
uint8_t NearestIndex(float v) {
  if (!(v > kIQ4NLValues[0])) return 0;  // also NaN: any valid index
  if (v >= kIQ4NLValues[15]) return 15;
  int lo = 0;  // kIQ4NLValues[lo] <= v < kIQ4NLValues[lo + 1]
  for (int step = 8; step > 0; step /= 2) lo += kIQ4NLValues[lo + step] <= v ? step : 0;
  const int hi = lo + 1;
  return v - kIQ4NLValues[lo] <= kIQ4NLValues[hi] - v ? static_cast<uint8_t>(lo) : static_cast<uint8_t>(hi);
}

// The index of x against scale s (kZeroIndex for s == 0).
uint8_t IndexOf(float x, float s) { return s == 0.0f ? kZeroIndex : NearestIndex(x / s); }

// Indices of x[0..n) against scale s.
void AssignIndices(const float* x, int n, float s, uint8_t* q) {
  for (int j = 0; j < n; ++j) q[j] = IndexOf(x[j], s);
}

// The weighted least-squares fit of one group x[0..n) onto the indices that
// scale s picks (each the nearest codebook value to x / s): the sums
// sum w x v_q and sum w v_q^2, accumulated in increasing j. The fit's scale
// is sum_xv / sum_vv and it removes sum_xv^2 / sum_vv of the weighted
// squared error, so the larger that gain, the better the candidate.
// Without an importance matrix w = x^2, which favours the large weights,
// whose error moves a model's outputs most: measured on Gemma 3 270M
// (docs/QUALITY.md), an unweighted search left iq4_nl files 4% further from
// F16 in KL divergence than llama-quantize's, and a wider candidate set
// (every codebook value as the target of the largest element) 10% further,
// although its weighted squared error was lower. With one, w is
// importance * sqrt(sigma2 + x^2), as ggml weighs it (ImportanceWeights).
struct Fit {
  float sum_xv = 0.0f, sum_vv = 0.0f;
  float Gain() const { return sum_vv > 0.0f ? sum_xv * sum_xv / sum_vv : 0.0f; }
  float Scale() const { return sum_vv > 0.0f ? sum_xv / sum_vv : 0.0f; }
};
Fit FitIndices(const float* x, const float* w, int n, float s) {
  Fit f;
  for (int j = 0; j < n; ++j) {
    const float value = kIQ4NLValues[IndexOf(x[j], s)];
    f.sum_xv += w[j] * x[j] * value;
    f.sum_vv += w[j] * value * value;
  }
  return f;
}

// The float scale of one group of n values with weights w: the weighted
// least-squares fit (above) of the best of 16 candidate index sets, those
// picked by the scales that map the element of largest magnitude (signed)
// onto +127 (past the codebook's top, 113) and onto -127 + k for k = -7..7
// (around its lowest value, where its widest step is). Candidates are tried
// in that order and only a strictly larger gain replaces the best, so the
// result depends on x and w alone. 0 for an all-zero group.
float SearchScale(const float* x, const float* w, int n) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  if (amax == 0.0f) return 0.0f;
  Fit best = FitIndices(x, w, n, max / 127.0f);
  for (int k = -7; k <= 7; ++k) {
    const Fit f = FitIndices(x, w, n, max / static_cast<float>(kIQ4NLValues[0] + k));
    if (f.sum_vv > 0.0f && f.Gain() > best.Gain()) best = f;
  }
  const float s = best.Scale();
  return std::isfinite(s) ? s : 0.0f;
}

// The weights of one group x[0..n): x^2 without importance; with it
// importance[j] * sqrt(sigma2 + x_j^2), sigma2 (BlockSigma2) twice the mean
// square of the block the group lies in: the 32 values of an IQ4_NL block,
// the 256 of an IQ4_XS super-block (ggml's weighting with an importance
// matrix, quantize_row_iq4_nl_impl).
void GroupWeights(const float* x, int n, const float* importance, float sigma2, float* w) {
  if (importance != nullptr) return ImportanceWeights(x, importance, n, sigma2, w);
  for (int j = 0; j < n; ++j) w[j] = x[j] * x[j];
}
float BlockSigma2(const float* block, int block_n) {
  float sum_x2 = 0.0f;
  for (int j = 0; j < block_n; ++j) sum_x2 += block[j] * block[j];
  return sum_x2 * 2.0f / static_cast<float>(block_n);
}

// Packs 32 indices as GGML does: q[j] in the low nibble of qs[j], q[j + 16] in the high.
void PackNibbles(const uint8_t* q, uint8_t* qs) {
  for (int j = 0; j < 16; ++j) qs[j] = static_cast<uint8_t>(q[j] | (q[j + 16] << 4));
}

}  // namespace

// --- Dequantization: ggml's float expressions ---

void DequantizeRowIQ4_NL(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_NL);
  const auto* blocks = static_cast<const BlockIQ4_NL*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockIQ4_NL& b = blocks[i];
    const float d = LoadF16(b.d);
    float* y = dst + i * kQK4_NL;
    for (int j = 0; j < kQK4_NL / 2; ++j) {
      y[j] = d * kIQ4NLValues[b.qs[j] & 0x0F];
      y[j + kQK4_NL / 2] = d * kIQ4NLValues[b.qs[j] >> 4];
    }
  }
}

void DequantizeRowIQ4_XS(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK_K);
  const auto* blocks = static_cast<const BlockIQ4_XS*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockIQ4_XS& b = blocks[i];
    const float d = LoadF16(b.d);
    for (int ib = 0; ib < kQK_K / kSubBlock; ++ib) {
      const float dl = d * static_cast<float>(IQ4XSScale(b.scales_h, b.scales_l, ib) - 32);
      const uint8_t* qs = b.qs + 16 * ib;
      float* y = dst + i * kQK_K + kSubBlock * ib;
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * kIQ4NLValues[qs[j] & 0x0F];
        y[j + 16] = dl * kIQ4NLValues[qs[j] >> 4];
      }
    }
  }
}

// --- Quantization: trit's scale search (docs/QUANT_FORMATS.md) ---

namespace {

void QuantizeIQ4_NL(const float* src, void* dst, int64_t n, const float* importance) {
  const int64_t nb = BlockCount(n, kQK4_NL);
  auto* blocks = static_cast<BlockIQ4_NL*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK4_NL;
    BlockIQ4_NL& b = blocks[i];
    float w[kQK4_NL];
    const float* qw = importance != nullptr ? importance + i * kQK4_NL : nullptr;
    GroupWeights(x, kQK4_NL, qw, qw != nullptr ? BlockSigma2(x, kQK4_NL) : 0.0f, w);
    StoreF16(b.d, SearchScale(x, w, kQK4_NL));
    // The indices are chosen against the stored (fp16) scale.
    uint8_t q[kQK4_NL];
    AssignIndices(x, kQK4_NL, LoadF16(b.d), q);
    PackNibbles(q, b.qs);
  }
}

void QuantizeIQ4_XS(const float* src, void* dst, int64_t n, const float* importance) {
  constexpr int kSubBlocks = kQK_K / kSubBlock;
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockIQ4_XS*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK_K;
    BlockIQ4_XS& b = blocks[i];
    // Each sub-block's own best scale; the one of largest magnitude maps to
    // the 6-bit level -32 (the levels run -32..31), so d = s_max / -32.
    float scales[kSubBlocks];
    float s_max = 0.0f;
    const float* qw = importance != nullptr ? importance + i * kQK_K : nullptr;
    const float sigma2 = qw != nullptr ? BlockSigma2(x, kQK_K) : 0.0f;
    for (int ib = 0; ib < kSubBlocks; ++ib) {
      float w[kSubBlock];
      GroupWeights(x + kSubBlock * ib, kSubBlock, qw != nullptr ? qw + kSubBlock * ib : nullptr, sigma2, w);
      scales[ib] = SearchScale(x + kSubBlock * ib, w, kSubBlock);
      if (std::fabs(scales[ib]) > std::fabs(s_max)) s_max = scales[ib];
    }
    StoreF16(b.d, s_max / -32.0f);
    const float d = LoadF16(b.d);
    uint16_t scales_h = 0;
    for (int ib = 0; ib < kSubBlocks; ++ib) {
      // Round to nearest (ties to even), then clamp: -s_max would be +32.
      const int level = d == 0.0f ? 0 : std::clamp(static_cast<int>(std::nearbyint(scales[ib] / d)), -32, 31);
      const int ls = level + 32;
      if (ib % 2 == 0) {
        b.scales_l[ib / 2] = static_cast<uint8_t>(ls & 0x0F);
      } else {
        b.scales_l[ib / 2] = static_cast<uint8_t>(b.scales_l[ib / 2] | ((ls & 0x0F) << 4));
      }
      scales_h = static_cast<uint16_t>(scales_h | ((ls >> 4) << (2 * ib)));
      // The indices are chosen against the scale the dequantizer will use.
      const float dl = d * static_cast<float>(ls - 32);
      uint8_t q[kSubBlock];
      AssignIndices(x + kSubBlock * ib, kSubBlock, dl, q);
      PackNibbles(q, b.qs + 16 * ib);
    }
    StoreU16(b.scales_h, scales_h);
  }
}

}  // namespace

void QuantizeRowIQ4_NL(const float* src, void* dst, int64_t n) { QuantizeIQ4_NL(src, dst, n, nullptr); }
void QuantizeRowIQ4_XS(const float* src, void* dst, int64_t n) { QuantizeIQ4_XS(src, dst, n, nullptr); }

void QuantizeRowWeightedIQ4_NL(const float* src, void* dst, int64_t n, const float* importance) {
  QuantizeIQ4_NL(src, dst, n, importance);
}
void QuantizeRowWeightedIQ4_XS(const float* src, void* dst, int64_t n, const float* importance) {
  QuantizeIQ4_XS(src, dst, n, importance);
}

}  // namespace trit::quant
