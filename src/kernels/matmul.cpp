#include "kernels/matmul.h"

#include <algorithm>
#include <vector>

#include "base/check.h"
#include "kernels/dot.h"
#include "kernels/repack.h"

namespace trit::kernels {

int64_t TileElements(const quant::TypeInfo& type) {
  int64_t tile = type.block_size;
  while (tile < 256 || tile % kDotLanes != 0) tile += type.block_size;
  return tile;
}

void MatMul(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool) {
  TRIT_CHECK(w.type != nullptr && w.type->dequantize != nullptr && w.layout == WeightLayout::kRows);
  TRIT_CHECK(w.n_cols % w.type->block_size == 0);
  const int64_t tile = TileElements(*w.type);
  const uint64_t tile_bytes = static_cast<uint64_t>(tile / w.type->block_size * w.type->type_size);
  pool.ParallelFor(w.n_rows, [&](int64_t o_begin, int64_t o_end) {
    std::vector<float> wbuf(static_cast<size_t>(tile));           // (tile) one tile of a weight row
    std::vector<float> acc(static_cast<size_t>(m * kDotLanes));  // (m, kDotLanes)
    for (int64_t o = o_begin; o < o_end; ++o) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      const uint8_t* row = w.data + static_cast<uint64_t>(o) * w.row_bytes;
      for (int64_t k0 = 0, t = 0; k0 < w.n_cols; k0 += tile, ++t) {
        const int64_t n = std::min(tile, w.n_cols - k0);
        w.type->dequantize(row + static_cast<uint64_t>(t) * tile_bytes, wbuf.data(), n);
        for (int64_t r = 0; r < m; ++r) {
          DotAccumulate(acc.data() + r * kDotLanes, x + r * w.n_cols + k0, wbuf.data(), n);
        }
      }
      for (int64_t r = 0; r < m; ++r) y[r * w.n_rows + o] = DotReduce(acc.data() + r * kDotLanes);
    }
  });
}

void MatMulMany(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool) {
  for (const MatMulJob& job : jobs) MatMul(*job.w, x, m, job.y, pool);
}

void DequantizeRow(const Matrix& w, int64_t row, float* out) {
  TRIT_CHECK(w.type != nullptr && w.type->dequantize != nullptr);
  TRIT_CHECK(row >= 0 && row < w.n_rows);
  if (w.layout == WeightLayout::kRows) {
    w.type->dequantize(w.data + static_cast<uint64_t>(row) * w.row_bytes, out, w.n_cols);
    return;
  }
  // A tied embedding in row groups: the row's bytes gathered out of its group
  // (repack.h), then the same dequantizer, so the floats are the original row's.
  std::vector<uint8_t> bytes(w.row_bytes);  // (row_bytes) one row in row layout
  CopyRow(w, row, bytes.data());
  w.type->dequantize(bytes.data(), out, w.n_cols);
}

}  // namespace trit::kernels
