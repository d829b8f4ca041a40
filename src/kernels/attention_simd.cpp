// Highway code of attention_optimized.h (see there for why it equals the
// reference bit for bit). f16 keys and values are widened exactly
// (F16C or Highway's emulation).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/check.h"
#include "base/half.h"
#include "kernels/activation.h"
#include "kernels/attention_optimized.h"
#include "kernels/dot.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/attention_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/exp_fixed-inl.h"
#include "kernels/fused_mul_add-inl.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 false positives on vectorized copies
HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 8>;
using VF = hn::VFromD<DF>;
constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(DF()));

// Cache values at element `offset` as floats: a vector, or one value. The
// cache type is a template parameter so the hot loops carry no branch.
template <KvType kType>
HWY_INLINE VF LoadCache(const void* base, int64_t offset) {
  const DF df;
  if constexpr (kType == KvType::kF32) {
    return hn::LoadU(df, static_cast<const float*>(base) + offset);
  } else {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, static_cast<const hwy::float16_t*>(base) + offset));
  }
}

template <KvType kType>
HWY_INLINE float LoadCacheScalar(const void* base, int64_t offset) {
  if constexpr (kType == KvType::kF32) {
    return static_cast<const float*>(base)[offset];
  } else {
    return HalfToFloat(static_cast<const uint16_t*>(base)[offset]);
  }
}

// Dot(q[h], key) in dot.h's order (element k into lane k % 8, then
// DotReduce) for kH queries at once: each key vector is widened once for all
// of them, and the kH chains run side by side; each query's arithmetic is
// the same as alone.
template <KvType kType, int64_t kH>
HWY_INLINE void HeadDots(const void* k_base, int64_t offset, const float* const* q, int64_t head_dim, float* out) {
  const DF df;
  constexpr int64_t kG = kDotLanes / kL;
  VF acc[kH][kG];
  for (int64_t h = 0; h < kH; ++h) {
    for (int64_t i = 0; i < kG; ++i) acc[h][i] = hn::Zero(df);
  }
  const int64_t n8 = head_dim - head_dim % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    for (int64_t i = 0; i < kG; ++i) {
      const VF key = LoadCache<kType>(k_base, offset + k + i * kL);
      for (int64_t h = 0; h < kH; ++h) acc[h][i] = FusedMulAddV(hn::LoadU(df, q[h] + k + i * kL), key, acc[h][i]);
    }
  }
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kH % 4 == 0) {
    if (n8 == head_dim) {
      // dot.h's tree for 4 queries in registers: hadd forms a0+a1, a2+a3 (one
      // IEEE add each, as DotReduce's), the second hadd their sums, and the
      // two 128-bit halves add last: ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)).
      for (int64_t h = 0; h < kH; h += 4) {
        const __m256 h01 = _mm256_hadd_ps(acc[h][0].raw, acc[h + 1][0].raw);
        const __m256 h23 = _mm256_hadd_ps(acc[h + 2][0].raw, acc[h + 3][0].raw);
        const __m256 sum = _mm256_hadd_ps(h01, h23);
        _mm_storeu_ps(out + h, _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1)));
      }
      return;
    }
  }
#endif
  for (int64_t h = 0; h < kH; ++h) {
    HWY_ALIGN float lanes[kDotLanes] = {};
    for (int64_t i = 0; i < kG; ++i) hn::Store(acc[h][i], df, lanes + i * kL);
    for (int64_t j = 0; n8 + j < head_dim; ++j) {
      lanes[j] = std::fma(q[h][n8 + j], LoadCacheScalar<kType>(k_base, offset + n8 + j), lanes[j]);
    }
    out[h] = DotReduce(lanes);
  }
}

// The keys [j0, n) of one chunk that a query sees; empty (j0 >= n) when the
// chunk is outside its range, and then the query's state is not touched.
struct ChunkRange {
  int64_t j0 = 0;
  int64_t n = 0;
  bool Active() const { return j0 < n; }
};

// For kH queries, the accumulator vector at d: times the query's
// correction, then plus probs[h][j] * value row j over its range: per
// element in increasing j, the reference's order. Each value vector is
// widened once. kUniform: every range is [lo, hi), no test per key.
template <KvType kType, int64_t kH, bool kUniform>
HWY_INLINE void HeadValues(const void* v_base, const int64_t* offsets, const float (*probs)[kKeyChunk + kL],
                           const ChunkRange* range, int64_t lo, int64_t hi, int64_t d, const float* correction,
                           float* acc, int64_t head_dim) {
  const DF df;
  VF av[kH];
  for (int64_t h = 0; h < kH; ++h) {
    av[h] = hn::LoadU(df, acc + h * head_dim + d);
    if (kUniform || range[h].Active()) av[h] = av[h] * hn::Set(df, correction[h]);
  }
  for (int64_t j = lo; j < hi; ++j) {
    const VF value = LoadCache<kType>(v_base, offsets[j] + d);
    for (int64_t h = 0; h < kH; ++h) {
      if (kUniform || (j >= range[h].j0 && j < range[h].n)) av[h] = av[h] + hn::Set(df, probs[h][j]) * value;
    }
  }
  for (int64_t h = 0; h < kH; ++h) hn::StoreU(av[h], df, acc + h * head_dim + d);
}

// kH queries of one KV head, each exactly as attention.cpp's AttendHead.
// Chunks run from the earliest query's first to the latest one's last; a
// chunk's key dots are formed for every query over the keys any of them
// sees (a wasted dot is never used), the softmax and values per query over
// its own keys only.
template <KvType kType, int64_t kH>
void AttendPass(const KvView& kv, int64_t kv_head, int64_t head_dim, const AttendQuery* queries,
                const AttendOptions& options) {
  const float* q[kH];
  int64_t first[kH];
  int64_t c_begin = std::numeric_limits<int64_t>::max(), c_end = 0;
  for (int64_t h = 0; h < kH; ++h) {
    q[h] = queries[h].q;
    first[h] = options.window > 0 ? std::max<int64_t>(0, queries[h].n_keys - options.window) : 0;
    c_begin = std::min(c_begin, first[h] - first[h] % kKeyChunk);
    c_end = std::max(c_end, queries[h].n_keys);
  }
  const int64_t n_vec = head_dim - head_dim % kL;
  thread_local std::vector<float> acc_buffer;
  acc_buffer.assign(static_cast<size_t>(kH * head_dim), 0.0f);  // (kH, head_dim)
  float* acc = acc_buffer.data();
  const DF df;
  float scores[kH][kKeyChunk + kL] = {};  // + kL: the last vector of a chunk may run past n
  float probs[kH][kKeyChunk + kL];
  int64_t offsets[kKeyChunk];
  float running_max[kH], running_sum[kH], correction[kH];
  for (int64_t h = 0; h < kH; ++h) {
    running_max[h] = -std::numeric_limits<float>::infinity();
    running_sum[h] = 0.0f;
  }
  for (int64_t c0 = c_begin; c0 < c_end; c0 += kKeyChunk) {
    ChunkRange range[kH];
    int64_t lo = kKeyChunk, hi = 0;
    for (int64_t h = 0; h < kH; ++h) {
      if (c0 >= first[h] - first[h] % kKeyChunk && c0 < queries[h].n_keys) {
        range[h] = {std::max<int64_t>(0, first[h] - c0), std::min(kKeyChunk, queries[h].n_keys - c0)};
        lo = std::min(lo, range[h].j0);
        hi = std::max(hi, range[h].n);
      }
    }
    if (lo >= hi) continue;  // between the ranges of windowed queries
    bool uniform = true;
    for (int64_t h = 0; h < kH; ++h) uniform = uniform && range[h].j0 == lo && range[h].n == hi;
    for (int64_t j = lo; j < hi; ++j) {
      offsets[j] = (c0 + j) * kv.row_stride + kv_head * head_dim;
      float dots[kH];
      HeadDots<kType, kH>(kv.k, offsets[j], q, head_dim, dots);
      for (int64_t h = 0; h < kH; ++h) scores[h][j] = dots[h];
    }
    for (int64_t h = 0; h < kH; ++h) {
      if (!range[h].Active()) continue;
      const int64_t j0 = range[h].j0, n = range[h].n;
      float chunk_max = -std::numeric_limits<float>::infinity();
      for (int64_t j = j0; j < n; ++j) {
        float s = scores[h][j] * options.scale;
        if (options.softcap > 0.0f) s = SoftCap(s, options.softcap);
        scores[h][j] = s;
        chunk_max = std::max(chunk_max, s);
      }
      const float new_max = std::max(running_max[h], chunk_max);
      correction[h] = ExpFixed(running_max[h] - new_max);  // ~0 on the first chunk
      running_sum[h] *= correction[h];
      // ExpFixed's vector form: the bits of the scalar one the reference
      // calls. Lanes past n (the padding) are computed and not used.
      for (int64_t j = j0; j < n; j += kL) {
        hn::StoreU(ExpFixedV(df, hn::LoadU(df, scores[h] + j) - hn::Set(df, new_max)), df, probs[h] + j);
      }
      float sum = running_sum[h];
      for (int64_t j = j0; j < n; ++j) sum += probs[h][j];
      running_sum[h] = sum;
      running_max[h] = new_max;
    }
    for (int64_t d = 0; d < n_vec; d += kL) {
      if (uniform) {
        HeadValues<kType, kH, true>(kv.v, offsets, probs, range, lo, hi, d, correction, acc, head_dim);
      } else {
        HeadValues<kType, kH, false>(kv.v, offsets, probs, range, lo, hi, d, correction, acc, head_dim);
      }
    }
    for (int64_t h = 0; h < kH; ++h) {
      if (!range[h].Active()) continue;
      for (int64_t d = n_vec; d < head_dim; ++d) {
        float& a = acc[h * head_dim + d];
        a *= correction[h];
        for (int64_t j = range[h].j0; j < range[h].n; ++j) a += probs[h][j] * LoadCacheScalar<kType>(kv.v, offsets[j] + d);
      }
    }
  }
  for (int64_t h = 0; h < kH; ++h) {
    const float inv = AttendNormalizer(running_max[h], running_sum[h], queries[h].sink);
    for (int64_t d = 0; d < head_dim; ++d) queries[h].out[d] = acc[h * head_dim + d] * inv;
  }
}

// Passes of 8, 4, 2 or 1 queries (8 keep 8 accumulators plus a key and a
// query vector in registers even with AVX2's 16).
template <KvType kType>
void AttendQueriesT(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                    const AttendOptions& options) {
  const int64_t n_q = static_cast<int64_t>(queries.size());
  for (int64_t h = 0; h < n_q;) {
    const int64_t left = n_q - h;
    const AttendQuery* qh = queries.data() + h;
    if (left >= 8) {
      AttendPass<kType, 8>(kv, kv_head, head_dim, qh, options);
      h += 8;
    } else if (left >= 4) {
      AttendPass<kType, 4>(kv, kv_head, head_dim, qh, options);
      h += 4;
    } else if (left >= 2) {
      AttendPass<kType, 2>(kv, kv_head, head_dim, qh, options);
      h += 2;
    } else {
      AttendPass<kType, 1>(kv, kv_head, head_dim, qh, options);
      h += 1;
    }
  }
}

void AttendQueriesKernel(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                         const AttendOptions& options) {
  TRIT_CHECK(options.window >= 0 && options.softcap >= 0.0f);
  for (const AttendQuery& query : queries) TRIT_CHECK(query.n_keys >= 1);
  if (kv.type == KvType::kF32) {
    AttendQueriesT<KvType::kF32>(kv, kv_head, head_dim, queries, options);
  } else {
    AttendQueriesT<KvType::kF16>(kv, kv_head, head_dim, queries, options);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#if HWY_ONCE
namespace trit::kernels {

HWY_EXPORT(AttendQueriesKernel);

void AttendQueriesOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                            const AttendOptions& options) {
  HWY_DYNAMIC_DISPATCH(AttendQueriesKernel)(kv, kv_head, head_dim, queries, options);
}

}  // namespace trit::kernels
#endif  // HWY_ONCE
