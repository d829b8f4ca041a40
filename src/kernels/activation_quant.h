// Activations quantized to int8 per row, for the integer dot products of the
// optimized matmul kernels (matmul_optimized.h).
//
// Each row is cut into blocks of `block` elements (32 for Q4_0/Q8_0 weights,
// 256 for the ternary types: one activation block per weight block). A block
// is stored as q = round_to_nearest_even(x * 127 / amax), clamped to
// [-127, 127], with scale d = amax / 127 and the integer sum of its q. The
// result depends only on the row (docs/DESIGN.md contract 2): never on the other
// rows, the batch size or the thread that quantizes it.
#pragma once

#include <cstdint>
#include <vector>

#include "base/thread_pool.h"

namespace trit::kernels {

struct QuantizedRows {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  int64_t block = 0;
  std::vector<int8_t> q;      // (n_rows, n_cols)
  std::vector<float> scale;   // (n_rows, n_cols / block) d of each block
  std::vector<int32_t> sum;   // (n_rows, n_cols / block) sum of q over each block
  std::vector<int32_t> sum32; // (n_rows, n_cols / 32) sum of q over each 32 (Q4_K's sub-blocks); block % 32 == 0
  std::vector<int32_t> sum16; // (n_rows, n_cols / 16) sum of q over each 16 (Q6_K's sub-blocks); block % 256 == 0, else empty

  int64_t n_blocks() const { return n_cols / block; }
};

// Quantizes x (n_rows, n_cols) into `out` (resized). n_cols % block == 0.
// SIMD (Highway, the best target of this CPU); for finite x the same bits as
// QuantizeRowsScalar on every target. Non-finite x gives unspecified q (never
// undefined behaviour).
void QuantizeRows(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out);
// The same with the rows split over `pool` (the same bits: rows are alone).
void QuantizeRows(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out, ThreadPool& pool);

// The plain definition above, one element at a time: the oracle of the tests.
void QuantizeRowsScalar(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out);

}  // namespace trit::kernels
