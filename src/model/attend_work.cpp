#include "model/attend_work.h"

#include <algorithm>

#include "base/check.h"

namespace trit::model {

std::vector<AttendWork> PlanAttendWork(std::span<const int32_t> seqs, int64_t n_head, int64_t n_head_kv,
                                       int n_threads) {
  TRIT_CHECK(n_head_kv >= 1 && n_head % n_head_kv == 0 && n_threads >= 1);
  const int64_t n_rows = static_cast<int64_t>(seqs.size());
  const int64_t group = n_head / n_head_kv;
  const int64_t want = 2 * static_cast<int64_t>(n_threads);
  int64_t block_rows = std::max<int64_t>(1, kAttendQueriesPerItem / group);
  while (block_rows > 1 && (n_rows + block_rows - 1) / block_rows * n_head_kv < want) block_rows /= 2;
  int64_t parts = 1;
  if (block_rows == 1) {
    while (parts < group && n_rows * n_head_kv * parts < want) ++parts;
  }
  const int64_t per_part = (group + parts - 1) / parts;

  // Blocks of adjacent rows of one sequence, at most block_rows each.
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (int64_t r = 0; r < n_rows;) {
    int64_t end = r + 1;
    while (end < n_rows && end - r < block_rows && seqs[static_cast<size_t>(end)] == seqs[static_cast<size_t>(r)]) ++end;
    blocks.emplace_back(r, end);
    r = end;
  }

  std::vector<AttendWork> work;
  const int64_t n_blocks = static_cast<int64_t>(blocks.size());
  for (int64_t i = 0; i < n_blocks; ++i) {
    const int64_t b = i % 2 == 0 ? i / 2 : n_blocks - 1 - i / 2;  // outside in
    for (int64_t kv_head = 0; kv_head < n_head_kv; ++kv_head) {
      for (int64_t part = 0; part < parts; ++part) {
        const int64_t head_begin = kv_head * group + part * per_part;
        const int64_t head_end = std::min(head_begin + per_part, (kv_head + 1) * group);
        if (head_begin >= head_end) continue;
        work.push_back({blocks[static_cast<size_t>(b)].first, blocks[static_cast<size_t>(b)].second, kv_head,
                        head_begin, head_end});
      }
    }
  }
  return work;
}

}  // namespace trit::model
