#include "kernels/repack.h"

#include <cstring>

#include "base/check.h"
#include "kernels/matmul_simd.h"

namespace trit::kernels {
namespace {

// The bytes of the quants of one block (after its 2-byte f16 scale).
int64_t QuantBytes(quant::GgmlType type) { return type == quant::GgmlType::kQ4_0 ? 16 : 32; }

}  // namespace

bool HasRowGroupLayout(quant::GgmlType type) {
  return type == quant::GgmlType::kQ4_0 || type == quant::GgmlType::kQ8_0;
}

bool ShouldRepack(const Matrix& w) {
  return w.type != nullptr && w.layout == WeightLayout::kRows && HasRowGroupLayout(w.type->type) &&
         w.n_rows >= kRowGroup && simd::HasRowGroupKernels();
}

Matrix RepackRowGroups(const Matrix& w, uint8_t* dst) {
  TRIT_CHECK(w.layout == WeightLayout::kRows && HasRowGroupLayout(w.type->type));
  const int64_t qbytes = QuantBytes(w.type->type);
  const int64_t block_bytes = 2 + qbytes;
  const int64_t n_blocks = w.n_cols / 32;
  const int64_t n_groups = w.n_rows / kRowGroup;
  for (int64_t g = 0; g < n_groups; ++g) {
    const uint8_t* src = w.data + static_cast<uint64_t>(g * kRowGroup) * w.row_bytes;
    uint8_t* out = dst + static_cast<uint64_t>(g * kRowGroup) * w.row_bytes;
    for (int64_t b = 0; b < n_blocks; ++b) {
      for (int64_t j = 0; j < kRowGroup; ++j) {
        const uint8_t* block = src + static_cast<uint64_t>(j) * w.row_bytes + b * block_bytes;
        std::memcpy(out + 2 * j, block, 2);
        for (int64_t s = 0; s < qbytes / 4; ++s) std::memcpy(out + 16 + 32 * s + 4 * j, block + 2 + 4 * s, 4);
      }
      out += kRowGroup * block_bytes;
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

void UnpackRowGroup(const Matrix& w, int64_t group, uint8_t* rows) {
  TRIT_CHECK(w.layout == WeightLayout::kRowGroups8 && group >= 0 && (group + 1) * kRowGroup <= w.n_rows);
  const int64_t qbytes = QuantBytes(w.type->type);
  const int64_t block_bytes = 2 + qbytes;
  const int64_t n_blocks = w.n_cols / 32;
  const uint8_t* in = w.data + static_cast<uint64_t>(group * kRowGroup) * w.row_bytes;
  for (int64_t b = 0; b < n_blocks; ++b) {
    for (int64_t j = 0; j < kRowGroup; ++j) {
      uint8_t* block = rows + static_cast<uint64_t>(j) * w.row_bytes + b * block_bytes;
      std::memcpy(block, in + 2 * j, 2);
      for (int64_t s = 0; s < qbytes / 4; ++s) std::memcpy(block + 2 + 4 * s, in + 16 + 32 * s + 4 * j, 4);
    }
    in += kRowGroup * block_bytes;
  }
}

}  // namespace trit::kernels
