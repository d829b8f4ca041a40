// Highway code of vocab_row_optimized.h (see there and vocab_row.h).
#include "kernels/vocab_row_optimized.h"

#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/vocab_row_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/exp_fixed-inl.h"

HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 8>;
using VF = hn::VFromD<DF>;

float RowMaxKernel(const float* x, int64_t n) {
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  // Per lane the reference's step, x > m ? x : m, so NaN is skipped as
  // there (a plain Max may pass a NaN on).
  const float minus_inf = -std::numeric_limits<float>::infinity();
  VF acc = hn::Set(df, minus_inf);
  int64_t i = 0;
  for (; i + l <= n; i += l) {
    const VF v = hn::LoadU(df, x + i);
    acc = hn::IfThenElse(hn::Gt(v, acc), v, acc);
  }
  // The lanes folded with the same step too: Highway 1.0's emulated
  // MaxOfLanes starts from the lowest finite float, which turns a row of
  // NaN and -inf into -FLT_MAX.
  HWY_ALIGN float lanes[hn::MaxLanes(DF())];
  hn::Store(acc, df, lanes);
  float m = minus_inf;
  for (int64_t k = 0; k < l; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

double ExpWeightsKernel(const float* x, int64_t n, float shift, float scale, float* w) {
  const DF df;
  // 8 double lanes (lane i % 8) as whole vectors of up to 4 doubles, as
  // elementwise_simd.cpp's RMS norm.
  const hn::CappedTag<double, 4> dd;
  const hn::Rebind<float, decltype(dd)> dh;
  using VD = hn::VFromD<decltype(dd)>;
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(dd));
  constexpr int64_t kG = 8 / kL;
  constexpr int64_t kF = static_cast<int64_t>(hn::MaxLanes(DF()));
  VD acc[kG];
  for (int64_t g = 0; g < kG; ++g) acc[g] = hn::Zero(dd);
  const VF vshift = hn::Set(df, shift), vscale = hn::Set(df, scale);
  const int64_t n8 = n - n % 8;
  for (int64_t k = 0; k < n8; k += 8) {
    for (int64_t f = 0; f < 8; f += kF) {
      hn::StoreU(ExpFixedV(df, (hn::LoadU(df, x + k + f) - vshift) * vscale), df, w + k + f);
    }
    for (int64_t g = 0; g < kG; ++g) acc[g] = acc[g] + hn::PromoteTo(dd, hn::LoadU(dh, w + k + g * kL));
  }
  HWY_ALIGN double lanes[8];
  for (int64_t g = 0; g < kG; ++g) hn::Store(acc[g], dd, lanes + g * kL);
  for (int64_t j = 0; n8 + j < n; ++j) {
    w[n8 + j] = ExpFixed((x[n8 + j] - shift) * scale);
    lanes[j] += static_cast<double>(w[n8 + j]);
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace trit::kernels {

HWY_EXPORT(RowMaxKernel);
HWY_EXPORT(ExpWeightsKernel);

float RowMaxOptimized(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(RowMaxKernel)(x, n); }
double ExpWeightsOptimized(const float* x, int64_t n, float shift, float scale, float* w) {
  return HWY_DYNAMIC_DISPATCH(ExpWeightsKernel)(x, n, shift, scale, w);
}

}  // namespace trit::kernels
#endif  // HWY_ONCE
