// AttendHead (attention.h) with SIMD, compiled per Highway target: the same
// chunked online softmax in the same order, with every float operation the
// reference does done once, in the same order, lane by lane (the key dot in
// dot.h's 8 lanes, exp and the running max/sum scalar, the value
// accumulation element-wise). So it returns the reference's bits on every
// target, and a query's result still depends only on its position.
#pragma once

#include <cstdint>

#include "kernels/attention.h"

namespace trit::kernels {

void AttendHeadOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                         const AttendOptions& options, float* out);
// attention.h's AttendHeads: the n_q query heads sharing KV head kv_head,
// each key and value row widened once for all of them; every head's bits
// are those of AttendHead alone.
void AttendHeadsOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_q,
                          int64_t n_keys, const AttendOptions& options, float* out);

}  // namespace trit::kernels
