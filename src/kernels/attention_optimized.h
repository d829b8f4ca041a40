// attention.h's AttendHeads with SIMD, compiled per Highway target: the same
// chunked online softmax in the same order for each query head, with every
// float operation the reference does done once, in the same order, lane by
// lane (the key dot in dot.h's 8 lanes and its tree, the softmax exp by
// exp_fixed.h's ExpFixed, the running max and sum scalar, the value
// accumulation element-wise). So it returns the reference's bits on every
// target, and a query's result still depends only on its position.
#pragma once

#include <cstdint>

#include "kernels/attention.h"

namespace trit::kernels {

// The n_q query heads q (n_q, head_dim) sharing KV head kv_head, into out
// (n_q, head_dim); each key and value row is widened once for up to 8 of
// them, and every head's bits are those of AttendHead alone.
void AttendHeadsOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_q,
                          int64_t n_keys, const AttendOptions& options, float* out);

}  // namespace trit::kernels
