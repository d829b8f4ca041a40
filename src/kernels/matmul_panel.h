// Batched matmul of row-group matrices by decoded panels (prefill on
// AVX-512 with VNNI). Internal to kernels/.
//
// The 8-row kernels (matmul_simd.h) decode every weight block again for
// each tile of 8 activation rows. Here a panel of 16 weight rows (two row
// groups) is decoded once per matmul into unsigned int8 quants laid out as
// one 64-byte vector per 4 elements (16 rows x 4 quants), int32 sub-block
// scales (and mins) and float block scales; then every activation row runs
// over the decoded panel with one VNNI step per 4 elements of 16 rows, 8
// activation rows at a time (their 4-byte groups interleaved once per
// matmul, PanelActivations, so that each step's broadcast is one memory
// operand).
//
// Per (weight row, activation row, block) the integer is exactly the one of
// the type's 8-row and one-row kernels, and the float steps are theirs in
// the same order (block b into lane b % 8, dot.h's tree), so the bits are
// the same as for a row computed alone (docs/DESIGN.md contract 2):
//   q6_K: isum = sum_s sc_s (sum q a - 32 sum16_s), the -32 sum16_s as the
//     sub-block's starting value;
//   q4_K, q5_K: A = sum_s sc_s sum q a, B = sum_s m_s sum32_s;
//   iq4_xs: isum = sum_s (ls_s - 32) sum v a with the signed codebook value
//     v stored as v + 128, the -128 sum32_s as the starting value;
//   tq2_0: isum = sum (t + 1) a - sum a, by sub-blocks of 32 starting at
//     -sum32_s, unscaled;
//   the 32-element formats: one integer per block, starting at the block
//     sum times -8 (q4_0), -16 (q5_0; mxfp4's table values + 16, with
//     its E8M0 scale made into a float d), -128 (q8_0, iq4_nl's codebook
//     values + 128) or 0 (q4_1, q5_1, whose mins add (m d_a) sum a).
#pragma once

#include <cstdint>
#include <vector>

#include "base/thread_pool.h"
#include "kernels/activation_quant.h"
#include "quant/types.h"

namespace trit::kernels::simd {

// Activation rows per tile and weight rows per panel.
inline constexpr int64_t kPanelTile = 8;
inline constexpr int64_t kPanelRows = 16;

// A batch's quantized activations (blocks of 256 or 32) rearranged once
// per matmul for the panel kernels, in tiles of kPanelTile rows (the last tile
// padded with zero rows). Index [t][k][r]: tile t, k the unit, sub-block or
// block, r < kPanelTile.
struct PanelActivations {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  int64_t block = 0;  // the activation block: 256 or 32
  int64_t n_tiles = 0;
  std::vector<int32_t> units;  // [t][n_cols / 4][r]: row r's 4 int8 of elements 4k..4k+3
  std::vector<float> scale;    // [t][n_cols / block][r]: block scale d_a
  std::vector<int32_t> sum16;  // [t][n_cols / 16][r]: sums per 16 (256-element blocks only)
  std::vector<int32_t> sum32;  // [t][n_cols / 32][r]: sums per 32 (for 32-element blocks, the blocks' sums)
};

// Fills `out` from `a` (blocks of 256 with sum16, or of 32), the rows split over `pool`.
void PreparePanelActivations(const QuantizedRows& a, PanelActivations& out, ThreadPool& pool);

// One panel: n_groups (1 or 2) row groups of 8 rows from w (row-group
// layout, w_row_bytes a row, n_blocks blocks of the type) against every row
// of `a` (quantized in the type's activation blocks); weight row o,
// activation row r into y[o + r * y_stride].
struct PanelArgs {
  const uint8_t* w = nullptr;
  int64_t n_groups = 2;
  int64_t w_row_bytes = 0;
  int64_t n_blocks = 0;
  const PanelActivations* a = nullptr;
  float* y = nullptr;
  int64_t y_stride = 0;
  // The bytes of the panel this thread decodes next (null: none), read
  // ahead into the caches while this one computes.
  const uint8_t* next = nullptr;
  int64_t next_bytes = 0;
};

// True when the dispatched target has a panel kernel for `type`.
bool HasPanelKernel(quant::GgmlType type);

// Runs the panel kernel of `type` (HasPanelKernel(type) must hold).
void GemmPanel(quant::GgmlType type, const PanelArgs& args);

}  // namespace trit::kernels::simd
