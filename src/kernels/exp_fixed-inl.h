// ExpFixed (exp_fixed.h) lane by lane for Highway code: the same operations
// in the same order, so each lane returns the scalar function's bits.
// Include after <hwy/highway.h> in a file compiled per target
// (foreach_target); the guard below is Highway's per-target include idiom.
#if defined(TRIT_KERNELS_EXP_FIXED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TRIT_KERNELS_EXP_FIXED_INL_H_
#undef TRIT_KERNELS_EXP_FIXED_INL_H_
#else
#define TRIT_KERNELS_EXP_FIXED_INL_H_
#endif

#include <hwy/highway.h>

#include "kernels/exp_fixed.h"

HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {

template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::VFromD<D> ExpFixedV(D d, hwy::HWY_NAMESPACE::VFromD<D> x) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToSigned<D> di;
  x = hn::Min(hn::Max(x, hn::Set(d, kExpMin)), hn::Set(d, kExpMax));
  const auto n = hn::Round(x * hn::Set(d, kLog2E));
  const auto r = (x - n * hn::Set(d, kLn2Hi)) - n * hn::Set(d, kLn2Lo);
  auto p = hn::Set(d, kExpPoly[0]);
  for (int i = 1; i < 6; ++i) p = p * r + hn::Set(d, kExpPoly[i]);
  const auto e = (p * (r * r) + r) + hn::Set(d, 1.0f);
  return e * hn::BitCast(d, hn::ShiftLeft<23>(hn::ConvertTo(di, n) + hn::Set(di, 127)));
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();

#endif  // TRIT_KERNELS_EXP_FIXED_INL_H_
