// The row-group layout (WeightLayout::kRowGroups8) of the optimized kernels:
// weights copied once at load, so that a batch or a decode step reads 8 rows
// together from one sequential stream.
//
// The rows are cut into groups of 8; group G (rows 8G..8G+7) occupies the
// bytes rows 8G..8G+7 had (8 * row_bytes from 8G * row_bytes), block after
// block. Block b of a group is the 8 rows' block b, part by part, each part
// interleaved by rows in small units:
//   q4_0 (18 bytes): d (2 bytes of each row: 16 bytes), then the 16 bytes of
//     quants by 4-byte groups (group s of rows 0..7: 32 bytes, s = 0..3);
//   q8_0 (34 bytes): d, then the 32 quant bytes by 4-byte groups (s = 0..7);
//   q4_1 (20), q5_0 (22), q5_1 (24 bytes): d, then m (q4_1, q5_1), then the
//     4 bytes of qh (q5_0, q5_1: 32 bytes, one word per row), then the 16
//     bytes of quants by 4-byte groups, like q4_0;
//   q4_K (144 bytes): d, dmin, the 12 scale bytes by 4-byte words (3 x 32
//     bytes), the 128 quant bytes by 4-byte groups (32 x 32 bytes);
//   q6_K (210 bytes): d, the 16 int8 scales by 4-byte groups (4 x 32
//     bytes), then ql and qh by 4-byte groups in the order the kernel reads
//     them: for half h = 0, 1 and t = 0..7, the groups at ql[64h + 4t],
//     ql[64h + 32 + 4t] and qh[32h + 4t] (16 x 96 bytes);
//   q5_K (176 bytes): q4_K's parts with the 32 bytes of qh (8 x 32 bytes)
//     between the scales and the quants;
//   iq4_nl (18 bytes): as q4_0;
//   mxfp4 (17 bytes): e (one byte of each row: 8 bytes), then the 16
//     bytes of quants by 4-byte groups, like q4_0;
//   iq4_xs (136 bytes): d, scales_h (2 bytes of each row), scales_l (one
//     4-byte word per row: 32 bytes), the 128 quant bytes by 4-byte groups;
//   tq2_0 (66 bytes): d, then the 64 bytes of qs by 4-byte groups (16 x 32
//     bytes);
//   tq1_0 (54 bytes): d, the 48 bytes of qs by 4-byte groups (12 x 32
//     bytes), then qh (one 4-byte word per row: 32 bytes);
//   f16, bf16: blocks of 8 values (16 bytes) of each row, rows 0..7 (128
//     bytes), so that rows 2p and 2p + 1 are one 32-byte load (the float
//     kernels' pairs, matmul_simd_float.cpp).
// One load then gives 4 quants of 8 rows, and a block's 8 integer sums come
// out of the dot-product steps already reduced (no horizontal adds). The
// last n_rows % 8 rows stay as they were (row layout) after the groups.
// Same bytes, same size: only the order.
//
// Which matrices are repacked: q4_0, q4_1, q5_0, q5_1, q8_0, q4_K, q5_K, q6_K, iq4_nl,
// iq4_xs, mxfp4, tq2_0 and tq1_0 ones of at least 8 rows, when the CPU runs a kernel target with row-group kernels
// (x86 AVX2 and up); f16 and bf16 ones whose rows are whole blocks of 8 values, when it runs AVX-512. The optimized kernels on other targets read the layout too (by
// restoring a group's rows on the fly), so results never depend on it.
#pragma once

#include <cstdint>

#include "kernels/matmul.h"

namespace trit::kernels {

inline constexpr int64_t kRowGroup = 8;

// True when `w` (row layout) has a row-group layout and the kernels this
// CPU dispatches to read it faster than rows.
bool ShouldRepack(const Matrix& w);

// True for the types that have a row-group layout.
bool HasRowGroupLayout(quant::GgmlType type);

// Writes w (row layout, HasRowGroupLayout) in the row-group layout to dst
// (w.n_rows * w.row_bytes bytes) and returns the matrix that views dst.
Matrix RepackRowGroups(const Matrix& w, uint8_t* dst);

// Row `row` of w (either layout) in row layout into out (w.row_bytes bytes):
// the row's original bytes, so dequantizing them gives the original row's
// floats (the embedding lookup of a tied embedding kept in row groups).
void CopyRow(const Matrix& w, int64_t row, uint8_t* out);

// Rows 8 * group .. 8 * group + 7 of a row-group matrix, in row layout, into
// rows (8 * w.row_bytes bytes).
void UnpackRowGroup(const Matrix& w, int64_t group, uint8_t* rows);

// The same from raw bytes: the group's n_blocks blocks of `type` (of 8 values
// for f16 and bf16) into 8 rows
// of row_bytes (the kernels' fallback on targets without row-group kernels).
void UnpackGroupRows(quant::GgmlType type, const uint8_t* group, int64_t n_blocks, int64_t row_bytes, uint8_t* rows);

}  // namespace trit::kernels
