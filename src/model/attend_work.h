// How one layer's attention over a batch is cut into work items for the
// thread pool. Which item or thread computes a query never changes its bits
// (every query is reduced alone, kernels/attention.h); the cut only decides
// how many queries share each read of a key row and how even the threads'
// shares are.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace trit::model {

// The queries of one item: the query heads [head_begin, head_end) of KV
// head kv_head, for the rows [row_begin, row_end), which are adjacent in the
// batch and of one sequence (so they read one cache).
struct AttendWork {
  int64_t row_begin = 0;
  int64_t row_end = 0;
  int64_t kv_head = 0;
  int64_t head_begin = 0;
  int64_t head_end = 0;
};

// Queries an item aims for: the optimized kernel widens each key and value
// row once for up to 8 queries.
inline constexpr int64_t kAttendQueriesPerItem = 8;

// Every (row, query head) of a batch whose rows belong to `seqs` in exactly
// one item. A prompt's rows go in blocks of kAttendQueriesPerItem / group
// rows; blocks shrink, and then the heads of a group are split, until there
// are at least two items per thread. Blocks are listed outside in (first,
// last, second, second last, ...) so that the pool's contiguous split gives
// every thread early rows (few keys) and late ones (many) alike.
std::vector<AttendWork> PlanAttendWork(std::span<const int32_t> seqs, int64_t n_head, int64_t n_head_kv,
                                       int n_threads);

}  // namespace trit::model
