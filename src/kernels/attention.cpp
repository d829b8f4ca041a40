#include "kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/check.h"
#include "base/half.h"
#include "kernels/activation.h"
#include "kernels/dot.h"
#include "kernels/exp_fixed.h"

namespace trit::kernels {
namespace {

// dst (n) = the cache row segment at `offset` as floats.
void LoadRow(KvType type, const void* base, int64_t offset, int64_t n, float* dst) {
  if (type == KvType::kF32) {
    const float* src = static_cast<const float*>(base) + offset;
    std::copy(src, src + n, dst);
  } else {
    const uint16_t* src = static_cast<const uint16_t*>(base) + offset;
    for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
  }
}

void StoreRow(KvType type, void* base, int64_t offset, int64_t n, const float* src) {
  if (type == KvType::kF32) {
    std::copy(src, src + n, static_cast<float*>(base) + offset);
  } else {
    FloatsToHalves(src, static_cast<uint16_t*>(base) + offset, n);
  }
}

}  // namespace

void KvStore(const KvView& kv, int64_t pos, const float* k, const float* v) {
  StoreRow(kv.type, kv.k, pos * kv.row_stride, kv.row_stride, k);
  StoreRow(kv.type, kv.v, pos * kv.row_stride, kv.row_stride, v);
}

void AttendHead(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                const AttendOptions& options, float* out, const float* sink) {
  TRIT_CHECK(n_keys >= 1 && options.window >= 0 && options.softcap >= 0.0f);
  const int64_t first = options.window > 0 ? std::max<int64_t>(0, n_keys - options.window) : 0;
  std::vector<float> row(static_cast<size_t>(head_dim));  // (head_dim) one key or value
  std::vector<float> acc(static_cast<size_t>(head_dim), 0.0f);
  float scores[kKeyChunk];
  float running_max = -std::numeric_limits<float>::infinity();
  float running_sum = 0.0f;
  // Chunks start at multiples of kKeyChunk from key 0 whatever the window:
  // the first chunk that holds `first` is entered part way.
  for (int64_t c0 = first - first % kKeyChunk; c0 < n_keys; c0 += kKeyChunk) {
    const int64_t j0 = std::max<int64_t>(0, first - c0);
    const int64_t n = std::min(kKeyChunk, n_keys - c0);
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (int64_t j = j0; j < n; ++j) {
      LoadRow(kv.type, kv.k, (c0 + j) * kv.row_stride + kv_head * head_dim, head_dim, row.data());
      float s = Dot(q, row.data(), head_dim) * options.scale;
      if (options.softcap > 0.0f) s = SoftCap(s, options.softcap);
      scores[j] = s;
      chunk_max = std::max(chunk_max, s);
    }
    const float new_max = std::max(running_max, chunk_max);
    const float correction = ExpFixed(running_max - new_max);  // ~0 (1.6e-38) on the first chunk
    running_sum *= correction;
    for (float& a : acc) a *= correction;
    for (int64_t j = j0; j < n; ++j) {
      const float p = ExpFixed(scores[j] - new_max);
      running_sum += p;
      LoadRow(kv.type, kv.v, (c0 + j) * kv.row_stride + kv_head * head_dim, head_dim, row.data());
      for (int64_t d = 0; d < head_dim; ++d) acc[static_cast<size_t>(d)] += p * row[static_cast<size_t>(d)];
    }
    running_max = new_max;
  }
  const float inv = AttendNormalizer(running_max, running_sum, sink);
  for (int64_t d = 0; d < head_dim; ++d) out[d] = acc[static_cast<size_t>(d)] * inv;
}

float AttendNormalizer(float running_max, float running_sum, const float* sink) {
  if (sink == nullptr) return 1.0f / running_sum;
  const float m = std::max(running_max, *sink);
  const float correction = ExpFixed(running_max - m);
  return correction / (running_sum * correction + ExpFixed(*sink - m));
}

void AttendQueries(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                   const AttendOptions& options) {
  for (const AttendQuery& query : queries) {
    AttendHead(kv, kv_head, head_dim, query.q, query.n_keys, options, query.out, query.sink);
  }
}

void AttendHead(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                float scale, float* out) {
  AttendOptions options;
  options.scale = scale;
  AttendHead(kv, kv_head, head_dim, q, n_keys, options, out);
}

}  // namespace trit::kernels
