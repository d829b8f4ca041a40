#include "kernels/matmul_optimized.h"

#include <algorithm>

#include "base/check.h"
#include "kernels/activation_quant.h"
#include "kernels/matmul_simd.h"
#include "kernels/repack.h"

namespace trit::kernels {
namespace {

using quant::GgmlType;

// Weight rows computed together against one tile of activation rows, so the
// tile (kRowTile rows) stays in L1 while those weight rows stream past it.
constexpr int64_t kWeightRowBlock = 16;

using QuantKernel = void (*)(const simd::QuantDotArgs&);
using FloatKernel = void (*)(const simd::FloatDotArgs&);

QuantKernel QuantKernelFor(GgmlType type) {
  switch (type) {
    case GgmlType::kTQ2_0: return &simd::DotTQ2_0;
    case GgmlType::kTQ1_0: return &simd::DotTQ1_0;
    case GgmlType::kQ4_0: return &simd::DotQ4_0;
    case GgmlType::kQ8_0: return &simd::DotQ8_0;
    case GgmlType::kQ4_K: return &simd::DotQ4_K;
    default: return nullptr;
  }
}

FloatKernel FloatKernelFor(GgmlType type) {
  switch (type) {
    case GgmlType::kF32: return &simd::DotF32;
    case GgmlType::kF16: return &simd::DotF16;
    case GgmlType::kBF16: return &simd::DotBF16;
    default: return nullptr;
  }
}

// Calls rows_fn(o, n_w, r0, n_a) for every block of weight rows [o, o + n_w)
// and tile of activation rows [r0, r0 + n_a), split over weight rows across
// the pool.
// `unit` rows stay together (a row group); n_rows need not be a multiple.
template <class RowsFn>
void ForEachRowBlockAndTile(int64_t n_rows, int64_t m, int64_t unit, int64_t tile, ThreadPool& pool,
                            const RowsFn& rows_fn) {
  pool.ParallelFor((n_rows + unit - 1) / unit, [&](int64_t u_begin, int64_t u_end) {
    const int64_t o_begin = u_begin * unit;
    const int64_t o_end = std::min(u_end * unit, n_rows);
    for (int64_t ob = o_begin; ob < o_end; ob += kWeightRowBlock) {
      const int64_t n_w = std::min(kWeightRowBlock, o_end - ob);
      for (int64_t r0 = 0; r0 < m; r0 += tile) rows_fn(ob, n_w, r0, std::min(tile, m - r0));
    }
  });
}

}  // namespace

bool HasOptimizedMatMul(GgmlType type) { return QuantKernelFor(type) != nullptr || FloatKernelFor(type) != nullptr; }

int64_t ActivationBlock(GgmlType type) {
  switch (type) {
    case GgmlType::kTQ2_0:
    case GgmlType::kTQ1_0:
    case GgmlType::kQ4_K: return 256;
    case GgmlType::kQ4_0:
    case GgmlType::kQ8_0: return 32;
    default: return 0;
  }
}

void MatMulOptimized(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool) {
  TRIT_CHECK(w.type != nullptr && w.n_cols % w.type->block_size == 0);
  if (m <= 0) return;
  if (const QuantKernel kernel = QuantKernelFor(w.type->type); kernel != nullptr) {
    TRIT_CHECK(ActivationBlock(w.type->type) == w.type->block_size);
    // Reused: no allocation per call. (A named reference, so the workers'
    // lambda captures the caller's buffers, not their own thread_local.)
    thread_local QuantizedRows reused;
    QuantizedRows& a = reused;
    QuantizeRows(x, m, w.n_cols, w.type->block_size, a);
    const int64_t n_blocks = a.n_blocks();
    // Row groups: whole groups flagged as such, the last rows (fewer than a
    // group) in row layout.
    const bool grouped = w.layout == WeightLayout::kRowGroups8;
    const int64_t grouped_rows = grouped ? w.n_rows / kRowGroup * kRowGroup : 0;
    auto call = [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a, bool row_groups) {
      simd::QuantDotArgs args;
      args.row_groups = row_groups;
      args.w = w.data + static_cast<uint64_t>(o) * w.row_bytes;
      args.n_w = n_w;
      args.w_row_bytes = static_cast<int64_t>(w.row_bytes);
      args.n_blocks = n_blocks;
      args.a = a.q.data() + r0 * w.n_cols;
      args.a_scale = a.scale.data() + r0 * n_blocks;
      args.a_sum = a.sum.data() + r0 * n_blocks;
      args.a_sum32 = a.sum32.data() + r0 * (w.n_cols / 32);
      args.a_stride = w.n_cols;
      args.n_a = n_a;
      args.y = y + r0 * w.n_rows + o;
      args.y_stride = w.n_rows;
      kernel(args);
    };
    // Row-layout calls take at most kRowTile activation rows.
    auto run = [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a) {
      const bool row_groups = o < grouped_rows;
      const int64_t step = row_groups ? n_a : simd::kRowTile;
      for (int64_t r = r0; r < r0 + n_a; r += step) call(o, n_w, r, std::min(step, r0 + n_a - r), row_groups);
    };
    // Row groups take larger tiles; their last rows (row layout) the same
    // tiles, within kernel limits: a tile never changes a row's bits.
    const int64_t tile = grouped ? simd::kGroupRowTile : simd::kRowTile;
    ForEachRowBlockAndTile(w.n_rows, m, grouped ? kRowGroup : 1, tile, pool,
                           [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a) {
                             if (o < grouped_rows && o + n_w > grouped_rows) {  // groups, then the last rows
                               run(o, grouped_rows - o, r0, n_a);
                               run(grouped_rows, o + n_w - grouped_rows, r0, n_a);
                             } else {
                               run(o, n_w, r0, n_a);
                             }
                           });
    return;
  }
  TRIT_CHECK(w.layout == WeightLayout::kRows);  // row groups exist for quantized kernels only
  if (const FloatKernel kernel = FloatKernelFor(w.type->type); kernel != nullptr) {
    ForEachRowBlockAndTile(w.n_rows, m, 1, simd::kRowTile, pool, [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a) {
      simd::FloatDotArgs args;
      args.w = w.data + static_cast<uint64_t>(o) * w.row_bytes;
      args.n_w = n_w;
      args.w_row_bytes = static_cast<int64_t>(w.row_bytes);
      args.n_cols = w.n_cols;
      args.x = x + r0 * w.n_cols;
      args.n_a = n_a;
      args.y = y + r0 * w.n_rows + o;
      args.y_stride = w.n_rows;
      kernel(args);
    });
    return;
  }
  MatMul(w, x, m, y, pool);
}

}  // namespace trit::kernels
