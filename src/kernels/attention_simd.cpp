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

// Dot(q, key) in dot.h's order (element k into lane k % 8, then DotReduce)
// for kKeys keys at once: independent chains, each key's arithmetic the
// same as alone (one key's chain of adds was the bound, not the ports).
template <KvType kType, int64_t kKeys>
HWY_INLINE void KeyDots(const void* base, const int64_t* offsets, const float* q, int64_t n, float* out) {
  const DF df;
  constexpr int64_t kG = kDotLanes / kL;
  VF acc[kKeys][kG];
  for (int64_t t = 0; t < kKeys; ++t) {
    for (int64_t i = 0; i < kG; ++i) acc[t][i] = hn::Zero(df);
  }
  const int64_t n8 = n - n % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    for (int64_t i = 0; i < kG; ++i) {
      const VF qv = hn::LoadU(df, q + k + i * kL);
      for (int64_t t = 0; t < kKeys; ++t) acc[t][i] = acc[t][i] + qv * LoadCache<kType>(base, offsets[t] + k + i * kL);
    }
  }
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kKeys == 4) {
    if (n8 == n) {
      // dot.h's tree for 4 keys in registers: hadd forms a0+a1, a2+a3 (one
      // IEEE add each, as DotReduce's), the second hadd their sums, and the
      // two 128-bit halves add last: ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)).
      const __m256 h01 = _mm256_hadd_ps(acc[0][0].raw, acc[1][0].raw);
      const __m256 h23 = _mm256_hadd_ps(acc[2][0].raw, acc[3][0].raw);
      const __m256 h = _mm256_hadd_ps(h01, h23);
      _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
      return;
    }
  }
#endif
  for (int64_t t = 0; t < kKeys; ++t) {
    HWY_ALIGN float lanes[kDotLanes] = {};
    for (int64_t i = 0; i < kG; ++i) hn::Store(acc[t][i], df, lanes + i * kL);
    for (int64_t j = 0; n8 + j < n; ++j) lanes[j] += q[n8 + j] * LoadCacheScalar<kType>(base, offsets[t] + n8 + j);
    out[t] = DotReduce(lanes);
  }
}

// out[0..kN) vectors at a, times `correction`, plus probs[j] * value row j
// (offsets[j] + d0), j in [j0, n): per element in increasing j, the
// reference's order, with the kN vectors in registers meanwhile.
template <KvType kType, int64_t kN>
HWY_INLINE void AddValues(const void* v, const int64_t* offsets, const float* probs, int64_t j0, int64_t n,
                          int64_t d0, float correction, float* a) {
  const DF df;
  VF av[kN];
  for (int64_t i = 0; i < kN; ++i) av[i] = hn::LoadU(df, a + d0 + i * kL) * hn::Set(df, correction);
  for (int64_t j = j0; j < n; ++j) {
    const VF vp = hn::Set(df, probs[j]);
    for (int64_t i = 0; i < kN; ++i) av[i] = av[i] + vp * LoadCache<kType>(v, offsets[j] + d0 + i * kL);
  }
  for (int64_t i = 0; i < kN; ++i) hn::StoreU(av[i], df, a + d0 + i * kL);
}

// Vectors of the accumulator held in registers at once.
constexpr int64_t kValueVectors = 8;

template <KvType kType>
void Attend(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
            const AttendOptions& options, float* out) {
  const int64_t first = options.window > 0 ? std::max<int64_t>(0, n_keys - options.window) : 0;
  const int64_t n_vec = head_dim - head_dim % kL;
  std::vector<float> acc(static_cast<size_t>(head_dim), 0.0f);  // (head_dim)
  float* a = acc.data();
  float scores[kKeyChunk];
  float probs[kKeyChunk];
  int64_t offsets[kKeyChunk];
  float running_max = -std::numeric_limits<float>::infinity();
  float running_sum = 0.0f;
  for (int64_t c0 = first - first % kKeyChunk; c0 < n_keys; c0 += kKeyChunk) {
    const int64_t j0 = std::max<int64_t>(0, first - c0);
    const int64_t n = std::min(kKeyChunk, n_keys - c0);
    for (int64_t j = j0; j < n; ++j) offsets[j] = (c0 + j) * kv.row_stride + kv_head * head_dim;
    int64_t j = j0;
    for (; j + 4 <= n; j += 4) KeyDots<kType, 4>(kv.k, offsets + j, q, head_dim, scores + j);
    for (; j < n; ++j) KeyDots<kType, 1>(kv.k, offsets + j, q, head_dim, scores + j);
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (j = j0; j < n; ++j) {
      float s = scores[j] * options.scale;
      if (options.softcap > 0.0f) s = SoftCap(s, options.softcap);
      scores[j] = s;
      chunk_max = std::max(chunk_max, s);
    }
    const float new_max = std::max(running_max, chunk_max);
    const float correction = std::exp(running_max - new_max);  // 0 on the first chunk
    running_sum *= correction;
    for (j = j0; j < n; ++j) {
      probs[j] = std::exp(scores[j] - new_max);
      running_sum += probs[j];
    }
    int64_t d0 = 0;
    for (; d0 + kValueVectors * kL <= n_vec; d0 += kValueVectors * kL) {
      AddValues<kType, kValueVectors>(kv.v, offsets, probs, j0, n, d0, correction, a);
    }
    for (; d0 < n_vec; d0 += kL) AddValues<kType, 1>(kv.v, offsets, probs, j0, n, d0, correction, a);
    for (int64_t d = n_vec; d < head_dim; ++d) {
      a[d] *= correction;
      for (j = j0; j < n; ++j) a[d] += probs[j] * LoadCacheScalar<kType>(kv.v, offsets[j] + d);
    }
    running_max = new_max;
  }
  const float inv = 1.0f / running_sum;
  for (int64_t d = 0; d < head_dim; ++d) out[d] = a[d] * inv;
}

void AttendKernel(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                  const AttendOptions& options, float* out) {
  TRIT_CHECK(n_keys >= 1 && options.window >= 0 && options.softcap >= 0.0f);
  if (kv.type == KvType::kF32) {
    Attend<KvType::kF32>(kv, kv_head, head_dim, q, n_keys, options, out);
  } else {
    Attend<KvType::kF16>(kv, kv_head, head_dim, q, n_keys, options, out);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#if HWY_ONCE
namespace trit::kernels {

HWY_EXPORT(AttendKernel);

void AttendHeadOptimized(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                         const AttendOptions& options, float* out) {
  HWY_DYNAMIC_DISPATCH(AttendKernel)(kv, kv_head, head_dim, q, n_keys, options, out);
}

}  // namespace trit::kernels
#endif  // HWY_ONCE
