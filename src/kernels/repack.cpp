#include "kernels/repack.h"

#include <array>
#include <cstring>
#include <span>
#include <vector>

#include "base/check.h"
#include "kernels/matmul_simd.h"

namespace trit::kernels {
namespace {

// A part of a block: `size` bytes at `offset` in each row's block, written
// for the 8 rows `unit` bytes at a time (unit 0 of rows 0..7, unit 1 of rows
// 0..7, ...), parts one after the other.
struct Part {
  int64_t offset, size, unit;
};

// q6_K: d; scales; then, per half h and 4-byte unit t of its 32 columns,
// the three units the kernel reads together (ql[64h + 4t], ql[64h + 32 +
// 4t], qh[32h + 4t]), so that it reads each block front to back: with ql,
// qh and the scales as three parts it jumped between them, and from memory
// ran at 0.43x the one-row kernel (5632 x 2048, one thread: 1709 vs 732 us)
// for the same compute ceiling.
constexpr std::array<Part, 50> Q6_KParts() {
  std::array<Part, 50> parts{};
  parts[0] = {208, 2, 2};
  parts[1] = {192, 16, 4};
  size_t n = 2;
  for (int64_t h = 0; h < 2; ++h) {
    for (int64_t t = 0; t < 8; ++t) {
      parts[n++] = {64 * h + 4 * t, 4, 4};
      parts[n++] = {64 * h + 32 + 4 * t, 4, 4};
      parts[n++] = {128 + 32 * h + 4 * t, 4, 4};
    }
  }
  return parts;
}

std::span<const Part> PartsOf(quant::GgmlType type) {
  static constexpr Part kQ4_0[] = {{0, 2, 2}, {2, 16, 4}};    // d; quants by 4-byte groups
  static constexpr Part kQ8_0[] = {{0, 2, 2}, {2, 32, 4}};    // d; quants by 4-byte groups
  static constexpr Part kQ4_1[] = {{0, 2, 2}, {2, 2, 2}, {4, 16, 4}};               // d; m; quants
  static constexpr Part kQ5_0[] = {{0, 2, 2}, {2, 4, 4}, {6, 16, 4}};               // d; qh; quants
  static constexpr Part kQ5_1[] = {{0, 2, 2}, {2, 2, 2}, {4, 4, 4}, {8, 16, 4}};    // d; m; qh; quants
  static constexpr Part kQ4_K[] = {{0, 2, 2}, {2, 2, 2}, {4, 12, 4}, {16, 128, 4}};  // d; dmin; scales; quants
  static constexpr Part kQ5_K[] = {{0, 2, 2}, {2, 2, 2}, {4, 12, 4}, {16, 32, 4}, {48, 128, 4}};  // ...; qh; quants
  static constexpr std::array<Part, 50> kQ6_K = Q6_KParts();
  static constexpr Part kIQ4_XS[] = {{0, 2, 2}, {2, 2, 2}, {4, 4, 4}, {8, 128, 4}};  // d; scales_h; scales_l; quants
  static constexpr Part kTQ2_0[] = {{64, 2, 2}, {0, 64, 4}};  // d; quants by 4-byte groups
  static constexpr Part kTQ1_0[] = {{52, 2, 2}, {0, 48, 4}, {48, 4, 4}};  // d; qs by 4-byte groups; qh
  static constexpr Part kMXFP4[] = {{0, 1, 1}, {1, 16, 4}};  // e; quants by 4-byte groups
  static constexpr Part kHalf8[] = {{0, 16, 16}};  // f16, bf16: 8 values a row (LayoutBlockOf)
  switch (type) {
    case quant::GgmlType::kQ4_0: return kQ4_0;
    case quant::GgmlType::kQ4_1: return kQ4_1;
    case quant::GgmlType::kQ5_0: return kQ5_0;
    case quant::GgmlType::kQ5_1: return kQ5_1;
    case quant::GgmlType::kQ8_0: return kQ8_0;
    case quant::GgmlType::kQ4_K: return kQ4_K;
    case quant::GgmlType::kQ5_K: return kQ5_K;
    case quant::GgmlType::kQ6_K: return kQ6_K;
    case quant::GgmlType::kIQ4_NL: return kQ4_0;  // the same bytes as q4_0; only the codebook differs
    case quant::GgmlType::kIQ4_XS: return kIQ4_XS;
    case quant::GgmlType::kMXFP4: return kMXFP4;
    case quant::GgmlType::kTQ2_0: return kTQ2_0;
    case quant::GgmlType::kTQ1_0: return kTQ1_0;
    case quant::GgmlType::kF16:
    case quant::GgmlType::kBF16: return kHalf8;
    default: return {};
  }
}

// Block b of 8 rows (row j at rows + j * row_bytes) to or from the 8-row
// block at `group`.
void MoveBlock(std::span<const Part> parts, int64_t block_bytes, int64_t b, uint8_t* rows, int64_t row_bytes,
               uint8_t* group, bool to_group) {
  int64_t at = 0;
  for (const Part& p : parts) {
    for (int64_t u = 0; u < p.size / p.unit; ++u) {
      for (int64_t j = 0; j < kRowGroup; ++j) {
        uint8_t* row = rows + j * row_bytes + b * block_bytes + p.offset + u * p.unit;
        uint8_t* packed = group + at + (u * kRowGroup + j) * p.unit;
        // Constant sizes: copies of 2 or 4 bytes inline (a call each was
        // most of the load time).
        if (p.unit == 4) {
          to_group ? std::memcpy(packed, row, 4) : std::memcpy(row, packed, 4);
        } else if (p.unit == 16) {
          to_group ? std::memcpy(packed, row, 16) : std::memcpy(row, packed, 16);
        } else if (p.unit == 2) {
          to_group ? std::memcpy(packed, row, 2) : std::memcpy(row, packed, 2);
        } else {
          TRIT_CHECK(p.unit == 1);
          to_group ? (*packed = *row) : (*row = *packed);
        }
      }
    }
    at += kRowGroup * p.size;
  }
}

// The unit the layout interleaves: a quantized type's block; for the 16-bit
// float types 8 values (dot.h's 8 lanes: a pair of rows is then one 256-bit
// load of the float kernels).
bool Is16BitFloat(quant::GgmlType type) { return type == quant::GgmlType::kF16 || type == quant::GgmlType::kBF16; }

struct LayoutBlock {
  int64_t values, bytes;
};
LayoutBlock LayoutBlockOf(const quant::TypeInfo& t) {
  if (Is16BitFloat(t.type)) return {8, 16};
  return {t.block_size, static_cast<int64_t>(t.type_size)};
}

}  // namespace

bool HasRowGroupLayout(quant::GgmlType type) { return !PartsOf(type).empty(); }

bool ShouldRepack(const Matrix& w) {
  if (w.type == nullptr || w.layout != WeightLayout::kRows || !HasRowGroupLayout(w.type->type) ||
      w.n_rows < kRowGroup || !simd::HasRowGroupKernels()) {
    return false;
  }
  // Float rows: only where the kernels read the groups faster, and whole
  // blocks of 8 values (a row length that is not one keeps its rows).
  if (Is16BitFloat(w.type->type)) return w.n_cols % LayoutBlockOf(*w.type).values == 0 && simd::HasFloatRowGroupKernels();
  return true;
}

Matrix RepackRowGroups(const Matrix& w, uint8_t* dst) {
  TRIT_CHECK(w.layout == WeightLayout::kRows && HasRowGroupLayout(w.type->type));
  const std::span<const Part> parts = PartsOf(w.type->type);
  const LayoutBlock block = LayoutBlockOf(*w.type);
  TRIT_CHECK(w.n_cols % block.values == 0);
  const int64_t block_bytes = block.bytes;
  const int64_t n_blocks = w.n_cols / block.values;
  const int64_t row_bytes = static_cast<int64_t>(w.row_bytes);
  const int64_t n_groups = w.n_rows / kRowGroup;
  for (int64_t g = 0; g < n_groups; ++g) {
    // MoveBlock reads through a non-const pointer only when unpacking.
    uint8_t* rows = const_cast<uint8_t*>(w.data) + g * kRowGroup * row_bytes;
    uint8_t* out = dst + g * kRowGroup * row_bytes;
    for (int64_t b = 0; b < n_blocks; ++b) {
      MoveBlock(parts, block_bytes, b, rows, row_bytes, out + b * kRowGroup * block_bytes, true);
    }
  }
  // The last rows, fewer than a group, as they were.
  const uint64_t done = static_cast<uint64_t>(n_groups * kRowGroup) * w.row_bytes;
  std::memcpy(dst + done, w.data + done, static_cast<uint64_t>(w.n_rows) * w.row_bytes - done);
  Matrix out = w;
  out.data = dst;
  out.layout = WeightLayout::kRowGroups8;
  return out;
}

void UnpackGroupRows(quant::GgmlType type, const uint8_t* group, int64_t n_blocks, int64_t row_bytes, uint8_t* rows) {
  const std::span<const Part> parts = PartsOf(type);
  TRIT_CHECK(!parts.empty());
  const int64_t block_bytes = LayoutBlockOf(quant::GetType(type)).bytes;
  for (int64_t b = 0; b < n_blocks; ++b) {
    MoveBlock(parts, block_bytes, b, rows, row_bytes, const_cast<uint8_t*>(group) + b * kRowGroup * block_bytes,
              false);
  }
}

void CopyRow(const Matrix& w, int64_t row, uint8_t* out) {
  TRIT_CHECK(w.type != nullptr && row >= 0 && row < w.n_rows);
  const int64_t grouped = w.layout == WeightLayout::kRowGroups8 ? w.n_rows / kRowGroup * kRowGroup : 0;
  if (row >= grouped) {  // row layout, or one of the last rows after the groups
    std::memcpy(out, w.data + static_cast<uint64_t>(row) * w.row_bytes, w.row_bytes);
    return;
  }
  // The whole group restored, then the one row taken: MoveBlock's inner loop
  // over the 8 rows is what makes repacking fast (a one-row variant shared
  // with this function repacked Gemma 3's 170 MiB embedding in 157 ms, not
  // 63), and 8 rows of copying per looked-up token is nothing beside its
  // forward pass.
  std::vector<uint8_t> rows(static_cast<size_t>(kRowGroup * w.row_bytes));  // (8, row_bytes) the row's group
  UnpackRowGroup(w, row / kRowGroup, rows.data());
  std::memcpy(out, rows.data() + static_cast<uint64_t>(row % kRowGroup) * w.row_bytes, w.row_bytes);
}

void UnpackRowGroup(const Matrix& w, int64_t group, uint8_t* rows) {
  TRIT_CHECK(w.layout == WeightLayout::kRowGroups8 && group >= 0 && (group + 1) * kRowGroup <= w.n_rows);
  UnpackGroupRows(w.type->type, w.data + static_cast<uint64_t>(group * kRowGroup) * w.row_bytes,
                  w.n_cols / LayoutBlockOf(*w.type).values, static_cast<int64_t>(w.row_bytes), rows);
}

}  // namespace trit::kernels
