// Matrix multiplication against weights in any GGML type trit can
// dequantize (the reference path: dequantize a tile of a weight row into a
// small buffer, then accumulate in dot.h's fixed order).
#pragma once

#include <cstdint>
#include <span>

#include "base/thread_pool.h"
#include "quant/types.h"

namespace trit::kernels {

// How a matrix's bytes are arranged.
enum class WeightLayout : uint8_t {
  kRows,         // GGUF's: row after row, each row its blocks in order
  kRowGroups8,   // repack.h: each group of 8 rows interleaved block by block (optimized kernels only)
};

// A weight matrix viewed in place: n_rows rows of n_cols elements, each row
// `row_bytes` bytes of blocks of `type`. In GGUF terms shape = [n_cols, n_rows].
struct Matrix {
  const quant::TypeInfo* type = nullptr;  // must have a dequantizer
  const uint8_t* data = nullptr;
  int64_t n_cols = 0;  // row length, the reduction axis (GGUF ne0)
  int64_t n_rows = 0;  // output features (GGUF ne1)
  uint64_t row_bytes = 0;
  WeightLayout layout = WeightLayout::kRows;  // MatMul reads kRows only; DequantizeRow either
};

// y (m, w.n_rows) = x (m, w.n_cols) * w^T. Work is split over weight rows
// only; each y[r][o] is Dot(x[r], w[o]) in the fixed order, so a row's result
// does not depend on m, on the other rows or on the thread count.
void MatMul(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool);

// One matrix of several that share an input: y (m, w->n_rows) = x w^T.
struct MatMulJob {
  const Matrix* w = nullptr;
  float* y = nullptr;
};

// MatMul for each job in turn (all w->n_cols equal). The optimized set runs
// them as one parallel pass over one quantized copy of x; the results are
// those of separate calls, bit for bit.
void MatMulMany(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool);

// out (w.n_cols) = row `row` of w as floats (embedding lookup). Reads either
// layout (a tied embedding may be in row groups); the floats are the same.
void DequantizeRow(const Matrix& w, int64_t row, float* out);

// The number of elements dequantized at once: a multiple of the block size
// and of kDotLanes, about 256.
int64_t TileElements(const quant::TypeInfo& type);

}  // namespace trit::kernels
