#include "quant/ternary_quants.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "quant/block_count.h"
#include "quant/block_formats.h"

namespace trit::quant {
namespace {

// TQ1_0 packing. Five trits t_0..t_4 (each stored as t + 1 in 0..2) form the
// base-3 number v = t_0 * 81 + t_1 * 27 + t_2 * 9 + t_3 * 3 + t_4 < 243, and
// the byte is ceil(v * 256 / 243): a fixed-point fraction v / 243 of a turn.
// Trit k is then read back by multiplying the byte by 3^k modulo 256 (which
// shifts trit k to the top) and taking the top "digit" (byte * 3) >> 8.
// This avoids divisions when unpacking.
uint8_t PackFixedPointTrits(int value) {
  return static_cast<uint8_t>((value * 256 + (243 - 1)) / 243);
}

// Trit k (0 = most significant) of a packed byte, as -1, 0 or 1.
int UnpackTrit(uint8_t packed, int k) {
  static constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};
  const uint8_t shifted = static_cast<uint8_t>(packed * kPow3[k]);
  return ((static_cast<uint16_t>(shifted) * 3) >> 8) - 1;
}

// -1, 0, 1 -> 0, 1, 2 (round half away from zero, as lroundf).
int TritOf(float x, float id) { return static_cast<int>(std::lround(x * id)) + 1; }

float AbsMax(const float* x, int n) {
  float amax = 0.0f;
  for (int j = 0; j < n; ++j) amax = std::max(amax, std::fabs(x[j]));
  return amax;
}

}  // namespace

// Element order of a TQ1_0 block (256 elements):
//   qs[0..31]:  element 32 * k + m is trit k of qs[m]          (elements 0..159)
//   qs[32..47]: element 160 + 16 * k + m is trit k of qs[32 + m] (160..239)
//   qh[0..3]:   element 240 + 4 * k + j is trit k of qh[j], k < 4 (240..255);
//               its four trits are packed as v * 3, so the unused fifth
//               digit is 0.
void DequantizeRowTQ1_0(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK_K);
  const auto* blocks = static_cast<const BlockTQ1_0*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockTQ1_0& b = blocks[i];
    const float d = LoadF16(b.d);
    for (int k = 0; k < 5; ++k) {
      for (int m = 0; m < 32; ++m) *y++ = static_cast<float>(UnpackTrit(b.qs[m], k)) * d;
    }
    for (int k = 0; k < 5; ++k) {
      for (int m = 0; m < 16; ++m) *y++ = static_cast<float>(UnpackTrit(b.qs[32 + m], k)) * d;
    }
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 4; ++j) *y++ = static_cast<float>(UnpackTrit(b.qh[j], k)) * d;
    }
  }
}

void QuantizeRowTQ1_0(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockTQ1_0*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK_K;
    BlockTQ1_0& b = blocks[i];
    const float d = AbsMax(x, kQK_K);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    for (int m = 0; m < 32; ++m) {
      int v = 0;
      for (int k = 0; k < 5; ++k) v = v * 3 + TritOf(x[m + 32 * k], id);
      b.qs[m] = PackFixedPointTrits(v);
    }
    for (int m = 0; m < 16; ++m) {
      int v = 0;
      for (int k = 0; k < 5; ++k) v = v * 3 + TritOf(x[160 + m + 16 * k], id);
      b.qs[32 + m] = PackFixedPointTrits(v);
    }
    for (int j = 0; j < 4; ++j) {
      int v = 0;
      for (int k = 0; k < 4; ++k) v = v * 3 + TritOf(x[240 + j + 4 * k], id);
      b.qh[j] = PackFixedPointTrits(v * 3);  // 4 trits, shifted to the top
    }
  }
}

// Element order of a TQ2_0 block: within each 32 bytes of qs (128 elements),
// element 32 * k + m is bits 2k..2k+1 of byte m, stored as t + 1.
void DequantizeRowTQ2_0(const void* src, float* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK_K);
  const auto* blocks = static_cast<const BlockTQ2_0*>(src);
  float* y = dst;
  for (int64_t i = 0; i < nb; ++i) {
    const BlockTQ2_0& b = blocks[i];
    const float d = LoadF16(b.d);
    for (int j = 0; j < kQK_K / 4; j += 32) {
      for (int k = 0; k < 4; ++k) {
        for (int m = 0; m < 32; ++m) {
          const int q = (b.qs[j + m] >> (2 * k)) & 3;
          *y++ = static_cast<float>(q - 1) * d;
        }
      }
    }
  }
}

void QuantizeRowTQ2_0(const float* src, void* dst, int64_t n) {
  const int64_t nb = BlockCount(n, kQK_K);
  auto* blocks = static_cast<BlockTQ2_0*>(dst);
  for (int64_t i = 0; i < nb; ++i) {
    const float* x = src + i * kQK_K;
    BlockTQ2_0& b = blocks[i];
    const float d = AbsMax(x, kQK_K);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    StoreF16(b.d, d);
    for (int j = 0; j < kQK_K / 4; j += 32) {
      for (int m = 0; m < 32; ++m) {
        int q = 0;
        for (int k = 0; k < 4; ++k) q |= (TritOf(x[4 * j + m + 32 * k], id) & 3) << (2 * k);
        b.qs[j + m] = static_cast<uint8_t>(q);
      }
    }
  }
}

}  // namespace trit::quant
