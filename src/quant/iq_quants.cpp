#include "quant/iq_quants.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "quant/block_formats.h"

namespace trit::quant {
namespace {

// Elements per IQ4_XS sub-block (each with its own 6-bit scale).
constexpr int kSubBlock = 32;
// The index whose value (1) is nearest zero: what an all-zero group stores.
constexpr uint8_t kZeroIndex = 8;

int64_t BlockCount(int64_t n, int block_size) {
  TRIT_CHECK(n >= 0 && n % block_size == 0);
  return n / block_size;
}

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

// One candidate scale s over x[0..n): with each index the nearest to x / s,
// the squared error of x - s * kIQ4NLValues[q], and the sums sum x v_q and
// sum v_q^2 of its least-squares refit (each accumulated in increasing j).
struct Candidate {
  float err = 0.0f, sum_xv = 0.0f, sum_vv = 0.0f;
};
Candidate Evaluate(const float* x, int n, float s) {
  Candidate c;
  for (int j = 0; j < n; ++j) {
    const float value = kIQ4NLValues[IndexOf(x[j], s)];
    const float e = x[j] - s * value;
    c.err += e * e;
    c.sum_xv += x[j] * value;
    c.sum_vv += value * value;
  }
  return c;
}

// The float scale s of one group of n values that the search finds best
// (least squared error of x - s * kIQ4NLValues[nearest(x / s)]). Candidates:
// for each codebook value v, the scale that maps the element of largest
// magnitude exactly onto v, then that scale refined once by least squares
// over the indices it chose, s' = sum x v_q / sum v_q^2. Candidates are
// tried in a fixed order and only a strictly smaller error replaces the
// best, so the result depends on x alone. 0 for an all-zero group.
float SearchScale(const float* x, int n) {
  float amax = 0.0f, max = 0.0f;
  float best_err = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
    best_err += x[j] * x[j];  // the error of s = 0
  }
  if (amax == 0.0f) return 0.0f;
  float best = 0.0f;
  auto valid = [](float s) { return s != 0.0f && std::isfinite(s); };
  auto consider = [&](float s, float err) {
    if (valid(s) && err < best_err) {
      best_err = err;
      best = s;
    }
  };
  for (int8_t v : kIQ4NLValues) {
    const float s = max / static_cast<float>(v);
    const Candidate c = Evaluate(x, n, s);  // the refit's sums even when s itself is not valid
    consider(s, c.err);
    const float refit = c.sum_xv / c.sum_vv;  // sum_vv >= n > 0
    if (valid(refit)) consider(refit, Evaluate(x, n, refit).err);
  }
  return best;
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

void QuantizeRowIQ4_NL(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK4_NL);
  auto* blocks = static_cast<BlockIQ4_NL*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK4_NL;
    BlockIQ4_NL& b = blocks[i];
    StoreF16(b.d, SearchScale(x, kQK4_NL));
    // The indices are chosen against the stored (fp16) scale.
    uint8_t q[kQK4_NL];
    AssignIndices(x, kQK4_NL, LoadF16(b.d), q);
    PackNibbles(q, b.qs);
  }
}

void QuantizeRowIQ4_XS(const float* src, void* dst, int64_t n) {
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
    for (int ib = 0; ib < kSubBlocks; ++ib) {
      scales[ib] = SearchScale(x + kSubBlock * ib, kSubBlock);
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

}  // namespace trit::quant
