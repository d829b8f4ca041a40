// The row-group layout (WeightLayout::kRowGroups8) of the optimized kernels:
// weights copied once at load, so that a batch or a decode step reads 8 rows
// together from one sequential stream.
//
// For q4_0 and q8_0 (32-element blocks: an f16 scale, then quants), the
// rows are cut into groups of 8; group G (rows 8G..8G+7) occupies the bytes
// rows 8G..8G+7 had (8 * row_bytes from 8G * row_bytes), block after block:
// for block b, the 8 rows' scales (8 x 2 bytes, row order), then the rows'
// quants transposed by 4-byte groups: for each 4-byte group s of the block's
// quants, row 0's 4 bytes, row 1's, ... row 7's (32 bytes). One load then
// gives 4 quants of 8 rows, and a block's 8 integer sums come out of the dot
// product steps already reduced. The last n_rows % 8 rows stay as they were
// (row layout) after the groups. Same bytes, same size: only the order.
//
// Which matrices are repacked: q4_0 and q8_0 ones of at least 8 rows, when
// the CPU runs a kernel target with row-group kernels (x86 AVX2 and up). The
// optimized kernels on other targets read the layout too (by restoring a
// group's rows on the fly), so results never depend on the layout.
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

// Rows 8 * group .. 8 * group + 7 of a row-group matrix, in row layout, into
// rows (8 * w.row_bytes bytes).
void UnpackRowGroup(const Matrix& w, int64_t group, uint8_t* rows);

}  // namespace trit::kernels
