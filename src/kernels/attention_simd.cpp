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

// `n` cache values at element `offset` as floats, one vector at a time.
HWY_INLINE VF LoadCache(KvType type, const void* base, int64_t offset) {
  const DF df;
  if (type == KvType::kF32) return hn::LoadU(df, static_cast<const float*>(base) + offset);
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::LoadU(dh, static_cast<const hwy::float16_t*>(base) + offset));
}

HWY_INLINE float LoadCacheScalar(KvType type, const void* base, int64_t offset) {
  if (type == KvType::kF32) return static_cast<const float*>(base)[offset];
  return HalfToFloat(static_cast<const uint16_t*>(base)[offset]);
}

// Dot(q, key) in dot.h's order: element k into lane k % 8, then DotReduce.
HWY_INLINE float KeyDot(KvType type, const void* base, int64_t offset, const float* q, int64_t n) {
  const DF df;
  constexpr int64_t kG = kDotLanes / kL;
  VF acc[kG];
  for (int64_t i = 0; i < kG; ++i) acc[i] = hn::Zero(df);
  const int64_t n8 = n - n % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    for (int64_t i = 0; i < kG; ++i) {
      acc[i] = acc[i] + hn::LoadU(df, q + k + i * kL) * LoadCache(type, base, offset + k + i * kL);
    }
  }
  HWY_ALIGN float lanes[kDotLanes] = {};
  for (int64_t i = 0; i < kG; ++i) hn::Store(acc[i], df, lanes + i * kL);
  for (int64_t j = 0; n8 + j < n; ++j) lanes[j] += q[n8 + j] * LoadCacheScalar(type, base, offset + n8 + j);
  return DotReduce(lanes);
}

void AttendKernel(const KvView& kv, int64_t kv_head, int64_t head_dim, const float* q, int64_t n_keys,
                  const AttendOptions& options, float* out) {
  TRIT_CHECK(n_keys >= 1 && options.window >= 0 && options.softcap >= 0.0f);
  const DF df;
  const int64_t first = options.window > 0 ? std::max<int64_t>(0, n_keys - options.window) : 0;
  const int64_t n_vec = head_dim - head_dim % kL;
  std::vector<float> acc(static_cast<size_t>(head_dim), 0.0f);  // (head_dim)
  float* a = acc.data();
  float scores[kKeyChunk];
  float running_max = -std::numeric_limits<float>::infinity();
  float running_sum = 0.0f;
  for (int64_t c0 = first - first % kKeyChunk; c0 < n_keys; c0 += kKeyChunk) {
    const int64_t j0 = std::max<int64_t>(0, first - c0);
    const int64_t n = std::min(kKeyChunk, n_keys - c0);
    float chunk_max = -std::numeric_limits<float>::infinity();
    for (int64_t j = j0; j < n; ++j) {
      float s = KeyDot(kv.type, kv.k, (c0 + j) * kv.row_stride + kv_head * head_dim, q, head_dim) * options.scale;
      if (options.softcap > 0.0f) s = SoftCap(s, options.softcap);
      scores[j] = s;
      chunk_max = std::max(chunk_max, s);
    }
    const float new_max = std::max(running_max, chunk_max);
    const float correction = std::exp(running_max - new_max);  // 0 on the first chunk
    running_sum *= correction;
    const VF vc = hn::Set(df, correction);
    for (int64_t d = 0; d < n_vec; d += kL) hn::StoreU(hn::LoadU(df, a + d) * vc, df, a + d);
    for (int64_t d = n_vec; d < head_dim; ++d) a[d] *= correction;
    for (int64_t j = j0; j < n; ++j) {
      const float p = std::exp(scores[j] - new_max);
      running_sum += p;
      const int64_t offset = (c0 + j) * kv.row_stride + kv_head * head_dim;
      const VF vp = hn::Set(df, p);
      for (int64_t d = 0; d < n_vec; d += kL) {
        hn::StoreU(hn::LoadU(df, a + d) + vp * LoadCache(kv.type, kv.v, offset + d), df, a + d);
      }
      for (int64_t d = n_vec; d < head_dim; ++d) a[d] += p * LoadCacheScalar(kv.type, kv.v, offset + d);
    }
    running_max = new_max;
  }
  const float inv = 1.0f / running_sum;
  for (int64_t d = 0; d < head_dim; ++d) out[d] = a[d] * inv;
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
