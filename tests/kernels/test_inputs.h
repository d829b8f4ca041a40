// Random weights and activations for the kernel tests (fresh each run), a
// SIMD target pin and a bit-for-bit comparison, shared by the tests of
// kernels/.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu_targets.h"
#include "kernels/matmul.h"
#include "quant/random_blocks.h"
#include "quant/types.h"

namespace trit::kernels {

// A new seed every run (printed with any failure), so the kernels meet inputs
// nobody chose.
inline uint64_t FreshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

struct Weights {
  std::vector<uint8_t> bytes;
  Matrix m;
};

// N(0, 1) values quantized to t; for the types without a quantizer (q2_K,
// q3_K) random blocks of values of about that size (quant/random_blocks.h).
inline Weights RandomWeights(const quant::TypeInfo& t, int64_t n_cols, int64_t n_rows, std::mt19937_64& rng) {
  Weights w;
  const uint64_t row_bytes = static_cast<uint64_t>(n_cols / t.block_size * t.type_size);
  w.bytes.resize(row_bytes * static_cast<uint64_t>(n_rows));
  if (t.quantize == nullptr) {
    quant::testing::RandomBlocks(t.type, n_cols / t.block_size * n_rows, 1.0f, rng, w.bytes.data());
  } else {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(static_cast<size_t>(n_cols * n_rows));
    for (float& x : v) x = normal(rng);
    t.quantize(v.data(), w.bytes.data(), n_cols * n_rows);
  }
  w.m = Matrix{&t, w.bytes.data(), n_cols, n_rows, row_bytes};
  return w;
}

inline std::vector<float> RandomActivations(int64_t n, std::mt19937_64& rng) {
  // Mixed magnitudes per block, as hidden states have, and some exact zeros.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = (rng() % 17 == 0) ? 0.0f : u(rng) * (1.0f + static_cast<float>(i % 7));
  return v;
}

// Restores the normal target choice when a test ends, passed or not.
struct TargetPin {
  explicit TargetPin(int64_t target) { PinTargetForTest(target); }
  ~TargetPin() { PinTargetForTest(0); }
};

inline bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace trit::kernels
