// attention.h's AttendQueries with SIMD, compiled per Highway target: the same
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

// attention.h's AttendQueries: each key and value row is widened once for
// up to 8 queries (passes over consecutive queries; queries of about the
// same n_keys side by side waste the least), and every query's bits are
// those of AttendHead alone.
void AttendQueriesOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                            const AttendOptions& options);

}  // namespace trit::kernels
