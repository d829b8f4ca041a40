#include "kernels/matmul_optimized.h"

#include <algorithm>
#include <span>

#include "base/check.h"
#include "kernels/activation_quant.h"
#include "kernels/matmul_panel.h"
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
    case GgmlType::kQ4_1: return &simd::DotQ4_1;
    case GgmlType::kQ5_0: return &simd::DotQ5_0;
    case GgmlType::kQ5_1: return &simd::DotQ5_1;
    case GgmlType::kQ2_K: return &simd::DotQ2_K;
    case GgmlType::kQ3_K: return &simd::DotQ3_K;
    case GgmlType::kQ4_K: return &simd::DotQ4_K;
    case GgmlType::kQ5_K: return &simd::DotQ5_K;
    case GgmlType::kQ6_K: return &simd::DotQ6_K;
    case GgmlType::kIQ4_NL: return &simd::DotIQ4_NL;
    case GgmlType::kIQ4_XS: return &simd::DotIQ4_XS;
    case GgmlType::kMXFP4: return &simd::DotMXFP4;
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
    case GgmlType::kQ2_K:
    case GgmlType::kQ3_K:
    case GgmlType::kQ4_K:
    case GgmlType::kQ5_K:
    case GgmlType::kQ6_K:
    case GgmlType::kIQ4_XS: return 256;
    case GgmlType::kIQ4_NL:
    case GgmlType::kMXFP4:
    case GgmlType::kQ4_0:
    case GgmlType::kQ4_1:
    case GgmlType::kQ5_0:
    case GgmlType::kQ5_1:
    case GgmlType::kQ8_0: return 32;
    default: return 0;
  }
}

namespace {

// At most this many matrices per pass (a fixed array: no allocation per call).
constexpr size_t kMaxJobs = 8;

// Batches of at least this many rows run row-group matrices by decoded
// panels (matmul_panel.h) where the target has a panel kernel for the type:
// a panel is decoded once for the whole batch, which pays once there are
// two tiles of 8-row kernel calls to save.
constexpr int64_t kPanelMinRows = 16;

// Quantized matrices sharing one input: x quantized once (activation blocks
// of the first matrix's type; the caller checks they all use it), then one
// ParallelFor over all their rows, cut in units of 8 rows (a row group).
void QuantMatMuls(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool) {
  const Matrix& first = *jobs[0].w;
  // Reused: no allocation per call. (A named reference, so the workers'
  // lambda captures the caller's buffers, not their own thread_local.)
  thread_local QuantizedRows reused;
  QuantizedRows& a = reused;
  QuantizeRows(x, m, first.n_cols, ActivationBlock(first.type->type), a, pool);
  const int64_t n_blocks = a.n_blocks();
  TRIT_CHECK(jobs.size() <= kMaxJobs);
  int64_t first_unit[kMaxJobs + 1] = {};  // job i's units: [first_unit[i], first_unit[i + 1])
  for (size_t i = 0; i < jobs.size(); ++i) first_unit[i + 1] = first_unit[i] + (jobs[i].w->n_rows + kRowGroup - 1) / kRowGroup;

  // Rows [o, o + n_w) of job `w` against activation rows [r0, r0 + n_a).
  auto call = [&](const Matrix& w, float* y, int64_t o, int64_t n_w, int64_t r0, int64_t n_a, bool row_groups) {
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
    args.a_sum16 = a.sum16.empty() ? nullptr : a.sum16.data() + r0 * (w.n_cols / 16);
    args.a_stride = w.n_cols;
    args.n_a = n_a;
    args.y = y + r0 * w.n_rows + o;
    args.y_stride = w.n_rows;
    QuantKernelFor(w.type->type)(args);
  };
  // Row groups take tiles of kGroupRowTile activation rows; row-layout
  // calls at most kRowTile (a tile never changes a row's bits).
  auto run = [&](const Matrix& w, float* y, int64_t o, int64_t n_w, int64_t r0, int64_t n_a, bool row_groups) {
    const int64_t step = row_groups ? n_a : simd::kRowTile;
    for (int64_t r = r0; r < r0 + n_a; r += step) call(w, y, o, n_w, r, std::min(step, r0 + n_a - r), row_groups);
  };
  // The 8-row / row kernels over weight rows [o_begin, o_end) of job i,
  // every tile of activation rows.
  auto by_tiles = [&](size_t i, int64_t o_begin, int64_t o_end) {
    const Matrix& w = *jobs[i].w;
    const int64_t grouped_rows = w.layout == WeightLayout::kRowGroups8 ? w.n_rows / kRowGroup * kRowGroup : 0;
    const int64_t tile = grouped_rows > 0 ? simd::kGroupRowTile : simd::kRowTile;
    for (int64_t ob = o_begin; ob < o_end; ob += kWeightRowBlock) {
      const int64_t n_w = std::min(kWeightRowBlock, o_end - ob);
      for (int64_t r0 = 0; r0 < m; r0 += tile) {
        const int64_t n_a = std::min(tile, m - r0);
        if (ob < grouped_rows && ob + n_w > grouped_rows) {  // groups, then the last rows
          run(w, jobs[i].y, ob, grouped_rows - ob, r0, n_a, true);
          run(w, jobs[i].y, grouped_rows, ob + n_w - grouped_rows, r0, n_a, false);
        } else {
          run(w, jobs[i].y, ob, n_w, r0, n_a, ob < grouped_rows);
        }
      }
    }
  };
  // Large batches: the activations rearranged once for the panel kernels.
  thread_local simd::PanelActivations reused_panel;
  simd::PanelActivations& panel_a = reused_panel;
  auto panel_type = [&](const Matrix& w) {
    return w.layout == WeightLayout::kRowGroups8 && w.n_rows >= kRowGroup && simd::HasPanelKernel(w.type->type);
  };
  bool panels = false;
  if (m >= kPanelMinRows) {
    for (const MatMulJob& job : jobs) panels = panels || panel_type(*job.w);
  }
  if (panels) simd::PreparePanelActivations(a, panel_a, pool);
  pool.ParallelFor(first_unit[jobs.size()], [&](int64_t u_begin, int64_t u_end) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      const int64_t lo = std::max(u_begin, first_unit[i]), hi = std::min(u_end, first_unit[i + 1]);
      if (lo >= hi) continue;
      const Matrix& w = *jobs[i].w;
      const int64_t o_begin = (lo - first_unit[i]) * kRowGroup;
      const int64_t o_end = std::min((hi - first_unit[i]) * kRowGroup, w.n_rows);
      if (!panels || !panel_type(w)) {
        by_tiles(i, o_begin, o_end);
        continue;
      }
      // Whole groups by panels of two (one where a single group is left),
      // the last n_rows % 8 rows (row layout) by tiles.
      const int64_t grouped_end = std::min(o_end, w.n_rows / kRowGroup * kRowGroup);
      auto panel_rows = [&](int64_t at) { return std::min(simd::kPanelRows, grouped_end - at); };  // 16 or 8
      for (int64_t ob = o_begin; ob < grouped_end; ob += simd::kPanelRows) {
        simd::PanelArgs args;
        args.w = w.data + static_cast<uint64_t>(ob) * w.row_bytes;
        args.n_groups = panel_rows(ob) / kRowGroup;
        args.w_row_bytes = static_cast<int64_t>(w.row_bytes);
        args.n_blocks = n_blocks;
        args.a = &panel_a;
        args.y = jobs[i].y + ob;
        args.y_stride = w.n_rows;
        if (const int64_t next = ob + simd::kPanelRows; next < grouped_end) {  // this thread's next panel
          args.next = args.w + simd::kPanelRows * w.row_bytes;
          args.next_bytes = panel_rows(next) * static_cast<int64_t>(w.row_bytes);
        }
        simd::GemmPanel(w.type->type, args);
      }
      if (grouped_end < o_end) by_tiles(i, std::max(o_begin, grouped_end), o_end);
    }
  });
}

bool HasQuantKernel(const Matrix& w) {
  return QuantKernelFor(w.type->type) != nullptr && ActivationBlock(w.type->type) == w.type->block_size;
}

}  // namespace

void MatMulOptimizedMany(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool) {
  if (jobs.empty() || m <= 0) return;
  const Matrix& first = *jobs[0].w;
  bool together = HasQuantKernel(first);
  for (const MatMulJob& job : jobs) {
    TRIT_CHECK(job.w->type != nullptr && job.w->n_cols == first.n_cols);
    together = together && HasQuantKernel(*job.w) &&
               ActivationBlock(job.w->type->type) == ActivationBlock(first.type->type);
  }
  if (together) {
    for (size_t i = 0; i < jobs.size(); i += kMaxJobs) QuantMatMuls(jobs.subspan(i, std::min(kMaxJobs, jobs.size() - i)), x, m, pool);
    return;
  }
  for (const MatMulJob& job : jobs) MatMulOptimized(*job.w, x, m, job.y, pool);
}

void MatMulOptimized(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool) {
  TRIT_CHECK(w.type != nullptr && w.n_cols % w.type->block_size == 0);
  if (m <= 0) return;
  if (HasQuantKernel(w)) {
    const MatMulJob job{&w, y};
    QuantMatMuls({&job, 1}, x, m, pool);
    return;
  }
  if (const FloatKernel kernel = FloatKernelFor(w.type->type); kernel != nullptr) {
    // Row groups (f16, bf16 on AVX-512): threads split whole groups, and a
    // 16-row block splits where the groups end and the last rows begin.
    const int64_t grouped = w.layout == WeightLayout::kRowGroups8 ? w.n_rows / kRowGroup * kRowGroup : 0;
    auto call = [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a) {
      simd::FloatDotArgs args;
      args.w = w.data + static_cast<uint64_t>(o) * w.row_bytes;
      args.n_w = n_w;
      args.w_row_bytes = static_cast<int64_t>(w.row_bytes);
      args.n_cols = w.n_cols;
      args.x = x + r0 * w.n_cols;
      args.n_a = n_a;
      args.y = y + r0 * w.n_rows + o;
      args.y_stride = w.n_rows;
      args.row_groups = o < grouped;
      kernel(args);
    };
    ForEachRowBlockAndTile(w.n_rows, m, grouped > 0 ? kRowGroup : 1, simd::kFloatRowTile, pool,
                           [&](int64_t o, int64_t n_w, int64_t r0, int64_t n_a) {
                             if (o < grouped && o + n_w > grouped) {
                               call(o, grouped - o, r0, n_a);
                               call(grouped, o + n_w - grouped, r0, n_a);
                             } else {
                               call(o, n_w, r0, n_a);
                             }
                           });
    return;
  }
  TRIT_CHECK(w.layout == WeightLayout::kRows);  // no kernel reads this type's row groups
  MatMul(w, x, m, y, pool);
}

}  // namespace trit::kernels
