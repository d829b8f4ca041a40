// Scaled dot-product attention of one query head over a KV cache, with
// grouped-query attention (several query heads share a KV head).
//
// Batch invariance (DESIGN.md contract 2): keys are reduced in chunks of
// kKeyChunk from key 0 with an online softmax, always in the same order, so
// a query's result depends only on the query and keys [0, n_keys), never on
// which other queries are computed beside it or by which thread.
#pragma once

#include <cstdint>

namespace trit::kernels {

inline constexpr int64_t kKeyChunk = 32;

enum class KvType { kF32, kF16 };

// One layer of one sequence's cache: positions are rows of `row_stride`
// elements; a row holds n_head_kv heads of head_dim elements.
struct KvView {
  KvType type = KvType::kF16;
  void* k = nullptr;  // (n_ctx, n_head_kv * head_dim)
  void* v = nullptr;  // (n_ctx, n_head_kv * head_dim)
  int64_t row_stride = 0;
};

// Writes k and v (row_stride floats each) at position `pos`, converting to the cache type.
void KvStore(const KvView& kv, int64_t pos, const float* k, const float* v);

// out (head_dim) = softmax(q . K[0..n_keys) * scale) . V[0..n_keys) for one
// query head `q` (head_dim floats) against KV head `kv_head`. n_keys >= 1.
void AttendHead(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                float scale, float* out);

}  // namespace trit::kernels
