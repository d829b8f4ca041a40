#include "model/repack_weights.h"

#include <algorithm>
#include <vector>

#include "base/mapped_file.h"
#include "kernels/repack.h"

namespace trit::model {

uint64_t RepackMatrices(std::span<kernels::Matrix* const> matrices, HugeBuffer* buffer_out) {
  // The copy is made in slices of about this many bytes (whole groups), and
  // each slice's file pages are dropped once it is copied: at most one slice
  // is held twice, not a whole matrix (a tied embedding is most of a small
  // model: Gemma 3 270M's is 170 of the file's 241 MiB).
  constexpr uint64_t kSliceBytes = uint64_t{4} << 20;
  // Every copy in one buffer (huge pages: base/huge_buffer.h), each matrix
  // at a 64-byte boundary: one buffer per matrix would round each small one
  // up to a 2 MiB page.
  constexpr uint64_t kAlign = 64;
  std::vector<kernels::Matrix*> todo;
  uint64_t total = 0;
  auto plan = [&](kernels::Matrix& m) {
    if (!kernels::ShouldRepack(m)) return;
    todo.push_back(&m);
    total += (m.row_bytes * static_cast<uint64_t>(m.n_rows) + kAlign - 1) / kAlign * kAlign;
  };
  for (kernels::Matrix* m : matrices) plan(*m);
  if (todo.empty()) return 0;
  HugeBuffer buffer(total);
  uint64_t at = 0, bytes = 0;
  for (kernels::Matrix* mp : todo) {
    kernels::Matrix& m = *mp;
    const uint64_t n = m.row_bytes * static_cast<uint64_t>(m.n_rows);
    uint8_t* copy = buffer.data() + at;
    const int64_t group = kernels::kRowGroup;
    const int64_t grouped = m.n_rows / group * group;
    const int64_t slice = std::max<int64_t>(1, static_cast<int64_t>(kSliceBytes / m.row_bytes) / group) * group;
    for (int64_t r0 = 0; r0 < grouped; r0 += slice) {
      kernels::Matrix part = m;  // rows r0.. of the slice; the last one also takes the rows after the groups
      part.data = m.data + static_cast<uint64_t>(r0) * m.row_bytes;
      part.n_rows = r0 + slice >= grouped ? m.n_rows - r0 : slice;
      kernels::RepackRowGroups(part, copy + static_cast<uint64_t>(r0) * m.row_bytes);
      ReleaseMappedPages({part.data, static_cast<uint64_t>(part.n_rows) * m.row_bytes});
    }
    ReleaseMappedPages({m.data, n});  // the pages that straddle two slices
    m.data = copy;
    m.layout = kernels::WeightLayout::kRowGroups8;
    at += (n + kAlign - 1) / kAlign * kAlign;
    bytes += n;
  }
  *buffer_out = std::move(buffer);
  return bytes;
}

}  // namespace trit::model
