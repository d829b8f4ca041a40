// Random blocks of the weight types trit has no quantizer for (q2_K, q3_K),
// for the kernel tests, the random test models and the kernel benchmarks:
// every quant and sub-block scale bit drawn at random, the f16 super-block
// scales set so the values are of the order of `scale` (their RMS within a
// factor of about 2 of it). A stand-in for quantized weights, not a
// quantizer: the values follow no input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_formats.h"
#include "quant/types.h"

namespace trit::quant::testing {

// True for the types RandomBlocks fills.
inline bool HasRandomBlocks(GgmlType type) { return type == GgmlType::kQ2_K || type == GgmlType::kQ3_K; }

// n_blocks blocks of `type` at out. Per block a factor f in [0.5, 2):
//   q2_K: d = dmin = f scale / 13 (x = d sc q - dmin m, sc, m uniform in
//         0..15, q in 0..3: RMS about 13.4 d);
//   q3_K: d = +-f scale / 43 (x = d (s - 32) q, s uniform in 0..63, q in
//         -4..3: RMS about 43.4 |d|).
template <class Rng>
void RandomBlocks(GgmlType type, int64_t n_blocks, float scale, Rng& rng, uint8_t* out) {
  TRIT_CHECK(HasRandomBlocks(type));
  const size_t block_bytes = type == GgmlType::kQ2_K ? sizeof(BlockQ2_K) : sizeof(BlockQ3_K);
  std::uniform_real_distribution<float> factor(0.5f, 2.0f);
  for (int64_t b = 0; b < n_blocks; ++b) {
    uint8_t* block = out + static_cast<size_t>(b) * block_bytes;
    for (size_t i = 0; i < block_bytes; ++i) block[i] = static_cast<uint8_t>(rng());
    const float f = factor(rng) * scale;
    if (type == GgmlType::kQ2_K) {
      const uint16_t d = FloatToHalf(f / 13.0f);
      std::memcpy(block + offsetof(BlockQ2_K, d), &d, 2);
      std::memcpy(block + offsetof(BlockQ2_K, dmin), &d, 2);
    } else {
      const uint16_t d = FloatToHalf((rng() & 1) != 0 ? f / 43.0f : -f / 43.0f);
      std::memcpy(block + offsetof(BlockQ3_K, d), &d, 2);
    }
  }
}

}  // namespace trit::quant::testing
