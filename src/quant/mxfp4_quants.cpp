#include "quant/mxfp4_quants.h"

#include <cmath>

#include "base/check.h"
#include "quant/block_count.h"
#include "quant/block_formats.h"

namespace trit::quant {
namespace {

// The block's exponent, ggml's rule: e = floor(log2 amax) - 2 + 127 for the
// largest magnitude amax, so that amax / 2^(e - 127) lies in [4, 8), at or
// past the top E2M1 values 4 and 6: an amax past 6 of that unit clips to 6
// (ggml keeps this exponent rather than take the next). 0 for an all-zero
// block. Below amax = 2^-125 the exponent is negative, and ggml's
// float-to-uint8_t conversion of it is undefined in C; its x86 builds (the
// ones llama-quantize usually runs) keep the low 8 bits (e = 255 for
// 2^-126), which scales every element to code 0, and so does this (an
// integer conversion, defined in C++; ARM builds of ggml saturate to 0
// instead). log2f is the C library's, as ggml calls it.
uint8_t BlockExponent(float amax) {
  if (!(amax > 0.0f)) return 0;
  const int e = static_cast<int>(std::floor(std::log2(amax))) - 2 + 127;
  return static_cast<uint8_t>(e);
}

// The index of the code whose value, times d, is nearest x: ggml's
// best_index_mxfp4, a scan in index order that only a strictly smaller
// error replaces (so 0 wins over -0, code 8, and ties go to the lower index).
uint8_t NearestIndex(float x, float d) {
  int best = 0;
  float best_err = std::fabs(kMxfp4Values[0] * d - x);
  for (int i = 1; i < 16; ++i) {
    const float err = std::fabs(kMxfp4Values[i] * d - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return static_cast<uint8_t>(best);
}

}  // namespace

void DequantizeRowMXFP4(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQKMxfp4);
  const auto* blocks = static_cast<const BlockMxfp4*>(src);
  for (int64_t i = 0; i < nb; ++i) {
    const BlockMxfp4& b = blocks[i];
    const float d = E8M0ToFloatHalf(b.e);
    float* y = dst + i * kQKMxfp4;
    for (int j = 0; j < kQKMxfp4 / 2; ++j) {
      y[j] = kMxfp4Values[b.qs[j] & 0x0F] * d;
      y[j + kQKMxfp4 / 2] = kMxfp4Values[b.qs[j] >> 4] * d;
    }
  }
}

void QuantizeRowMXFP4(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQKMxfp4);
  auto* blocks = static_cast<BlockMxfp4*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQKMxfp4;
    BlockMxfp4& b = blocks[i];
    float amax = 0.0f;
    for (int j = 0; j < kQKMxfp4; ++j) {
      if (amax < std::fabs(x[j])) amax = std::fabs(x[j]);
    }
    b.e = BlockExponent(amax);
    const float d = E8M0ToFloatHalf(b.e);
    for (int j = 0; j < kQKMxfp4 / 2; ++j) {
      b.qs[j] = static_cast<uint8_t>(NearestIndex(x[j], d) | (NearestIndex(x[j + kQKMxfp4 / 2], d) << 4));
    }
  }
}

}  // namespace trit::quant
