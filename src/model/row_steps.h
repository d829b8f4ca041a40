// Per-row steps between a forward pass's matmuls, shared by the decoder and
// the encoder. Rows are independent, so how they are split over threads
// never changes a bit.
#pragma once

#include <cstdint>

#include "base/thread_pool.h"
#include "kernels/activation.h"

namespace trit::model {

// fn(r) for every row r < n_rows, split over the pool when there are
// several (a prompt): the workers would otherwise wait while the caller
// runs the per-row steps between matmuls alone.
template <class RowFn>
void EachRow(ThreadPool& pool, int64_t n_rows, const RowFn& fn) {
  if (n_rows < 2) {
    for (int64_t r = 0; r < n_rows; ++r) fn(r);
    return;
  }
  pool.ParallelFor(n_rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) fn(r);
  });
}

// y (n_rows, n) += bias (n) row by row; nothing when bias is nullptr.
inline void AddBias(const float* bias, int64_t n_rows, int64_t n, float* y) {
  if (bias == nullptr) return;
  for (int64_t r = 0; r < n_rows; ++r) kernels::Add(y + r * n, bias, n, y + r * n);
}

}  // namespace trit::model
