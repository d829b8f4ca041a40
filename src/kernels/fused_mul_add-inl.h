// FusedMulAddV(a, b, c) = a * b + c with ONE rounding in every lane, on every
// target: the vector FMA where the target has one (AVX2, AVX-512, NEON),
// std::fma lane by lane where it has not (SSE4, EMU128: exact, slower). So
// a kernel using it returns dot.h's bits (DotAccumulate's std::fma) on
// every target. Include after <hwy/highway.h> in a file compiled per target
// (foreach_target); the guard below is Highway's per-target include idiom.
#if defined(TRIT_KERNELS_FUSED_MUL_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TRIT_KERNELS_FUSED_MUL_ADD_INL_H_
#undef TRIT_KERNELS_FUSED_MUL_ADD_INL_H_
#else
#define TRIT_KERNELS_FUSED_MUL_ADD_INL_H_
#endif

#include <hwy/highway.h>

#include <cmath>

HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {

template <class V>
HWY_INLINE V FusedMulAddV(V a, V b, V c) {
  namespace hn = hwy::HWY_NAMESPACE;
#if HWY_NATIVE_FMA
  return hn::MulAdd(a, b, c);
#else
  // Highway's MulAdd here is a multiply then an add (two roundings).
  const hn::DFromV<V> d;
  constexpr size_t kN = hn::MaxLanes(d);
  HWY_ALIGN hn::TFromV<V> la[kN], lb[kN], lc[kN];
  hn::Store(a, d, la);
  hn::Store(b, d, lb);
  hn::Store(c, d, lc);
  for (size_t i = 0; i < kN; ++i) lc[i] = std::fma(la[i], lb[i], lc[i]);
  return hn::Load(d, lc);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();

#endif  // TRIT_KERNELS_FUSED_MUL_ADD_INL_H_
