// Scaled dot-product attention of one query head over a KV cache, with
// grouped-query attention (several query heads share a KV head).
//
// Batch invariance (docs/DESIGN.md contract 2): keys are reduced in chunks of
// kKeyChunk from key 0 with an online softmax, always in the same order, so
// a query's result depends only on the query and keys [0, n_keys), never on
// which other queries are computed beside it or by which thread.
#pragma once

#include <cstdint>
#include <span>

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

// How one query's scores are formed and which keys it sees.
struct AttendOptions {
  float scale = 1.0f;    // score = (q . k) * scale
  float softcap = 0.0f;  // > 0: score = softcap * tanh(score / softcap) (gemma2); 0: off
  // > 0: sliding window, the query (at position n_keys - 1) sees only keys j
  // with (n_keys - 1) - j < window, i.e. the last `window` keys (llama.cpp's
  // LLAMA_SWA_TYPE_STANDARD mask). Keys before the window are skipped; the
  // chunks stay those of the full range (multiples of kKeyChunk from key 0),
  // so the reduction order is still fixed by n_keys alone. 0: every key.
  int64_t window = 0;
};

// out (head_dim) = softmax(score(q, K[first..n_keys))) . V[first..n_keys)
// for one query head `q` (head_dim floats) against KV head `kv_head`, first =
// max(0, n_keys - window) with a window, else 0. n_keys >= 1.
void AttendHead(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                const AttendOptions& options, float* out, const float* sink = nullptr);
// One query of AttendQueries: a head's query vector (head_dim floats), the
// keys it sees (its position + 1) and where its result goes (head_dim floats).
// `sink` (optional, gpt-oss's attn_sinks): a learned logit of the head that
// joins the softmax's denominator and adds no value, as llama.cpp's
// soft_max with sinks: out = sum_j e^(s_j - m) v_j / (sum_j e^(s_j - m) +
// e^(sink - m)), m = max(max_j s_j, sink). It is not scaled.
struct AttendQuery {
  const float* q = nullptr;
  int64_t n_keys = 0;
  float* out = nullptr;
  const float* sink = nullptr;
};

// The factor the accumulated values are multiplied by at the end of the
// online softmax: 1 / running_sum, or with a sink the same after the sink
// joins the running max and sum (both kernel sets call this one function).
float AttendNormalizer(float running_max, float running_sum, const float* sink);

// AttendHead for each query, all against KV head kv_head of one cache: the
// query heads that share a KV head (grouped-query attention), and in a
// prompt those of several rows, each with its own key count. Every key row
// below the largest n_keys must be stored.
void AttendQueries(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                   const AttendOptions& options);
// The plain case: every key, score = (q . k) * scale.
void AttendHead(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                float scale, float* out);

}  // namespace trit::kernels
