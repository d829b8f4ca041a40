// Highway code of elementwise_optimized.h (see there for the arithmetic and
// why every target gives the same bits).
#include <cmath>

#include "kernels/elementwise_optimized.h"
#include "kernels/rope.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/exp_fixed-inl.h"

HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 8>;
using VF = hn::VFromD<DF>;

HWY_INLINE VF Exp(VF x) { return ExpFixedV(DF(), x); }

HWY_INLINE VF SiluOf(VF g) {
  const DF df;
  return g / (hn::Set(df, 1.0f) + Exp(hn::Neg(g)));
}

HWY_INLINE VF GeluOf(VF g) {
  const DF df;
  const VF one = hn::Set(df, 1.0f);
  const VF u = (hn::Set(df, 0.79788456080286535588f) * g) * (one + (hn::Set(df, 0.044715f) * g) * g);
  const VF tanh_u = one - hn::Set(df, 2.0f) / (one + Exp(u + u));
  return (hn::Set(df, 0.5f) * g) * (one + tanh_u);
}

// activation.cpp's GeluErf, step by step.
HWY_INLINE VF GeluErfOf(VF x) {
  const DF df;
  const VF one = hn::Set(df, 1.0f);
  const VF z = hn::Abs(x) * hn::Set(df, 0.70710678118654752440f);
  const VF t = one / (one + hn::Set(df, 0.3275911f) * z);
  VF poly = t * hn::Set(df, 1.061405429f);
  poly = t * (hn::Set(df, -1.453152027f) + poly);
  poly = t * (hn::Set(df, 1.421413741f) + poly);
  poly = t * (hn::Set(df, -0.284496736f) + poly);
  poly = t * (hn::Set(df, 0.254829592f) + poly);
  const VF erf_abs = one - poly * Exp(hn::Neg(z * z));
  const VF erf = hn::IfThenElse(hn::Lt(x, hn::Zero(df)), hn::Neg(erf_abs), erf_abs);
  return (hn::Set(df, 0.5f) * x) * (one + erf);
}

void GeluErfKernel(float* x, int64_t n) {
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + l <= n; i += l) hn::StoreU(GeluErfOf(hn::LoadU(df, x + i)), df, x + i);
  if (i < n) {
    HWY_ALIGN float v[8] = {};
    for (int64_t j = 0; i + j < n; ++j) v[j] = x[i + j];
    hn::Store(GeluErfOf(hn::Load(df, v)), df, v);
    for (int64_t j = 0; i + j < n; ++j) x[i + j] = v[j];
  }
}

// out[i] = act(gate[i]) * up[i]; the tail through a padded vector (the same
// lane arithmetic).
template <class Act>
HWY_INLINE void Glu(const float* gate, const float* up, int64_t n, float* out, const Act& act) {
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + l <= n; i += l) hn::StoreU(act(hn::LoadU(df, gate + i)) * hn::LoadU(df, up + i), df, out + i);
  if (i < n) {
    HWY_ALIGN float g[8] = {}, u[8] = {}, o[8];
    for (int64_t j = 0; i + j < n; ++j) g[j] = gate[i + j], u[j] = up[i + j];
    hn::Store(act(hn::Load(df, g)) * hn::Load(df, u), df, o);
    for (int64_t j = 0; i + j < n; ++j) out[i + j] = o[j];
  }
}

void SwiGluKernel(const float* gate, const float* up, int64_t n, float* out) {
  Glu(gate, up, n, out, [](VF g) { return SiluOf(g); });
}

// activation.cpp's SwiGluOai, step by step (min, max: exact, as std::min / std::max).
HWY_INLINE VF SwiGluOaiOf(VF g, VF u) {
  const DF df;
  const VF limit = hn::Set(df, 7.0f);
  const VF x = hn::Min(g, limit);
  const VF y = hn::Min(hn::Max(u, hn::Neg(limit)), limit);
  return x / (hn::Set(df, 1.0f) + Exp(hn::Neg(hn::Set(df, 1.702f) * x))) * (y + hn::Set(df, 1.0f));
}

void SwiGluOaiKernel(const float* gate, const float* up, int64_t n, float* out) {
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + l <= n; i += l) hn::StoreU(SwiGluOaiOf(hn::LoadU(df, gate + i), hn::LoadU(df, up + i)), df, out + i);
  if (i < n) {
    HWY_ALIGN float g[8] = {}, u[8] = {}, o[8];
    for (int64_t j = 0; i + j < n; ++j) g[j] = gate[i + j], u[j] = up[i + j];
    hn::Store(SwiGluOaiOf(hn::Load(df, g), hn::Load(df, u)), df, o);
    for (int64_t j = 0; i + j < n; ++j) out[i + j] = o[j];
  }
}

void GeGluKernel(const float* gate, const float* up, int64_t n, float* out) {
  Glu(gate, up, n, out, [](VF g) { return GeluOf(g); });
}

void RmsNormKernel(const float* x, const float* weight, int64_t n, float eps, float* out) {
  // 8 double lanes (lane k % 8) as whole vectors of up to 4 doubles.
  const hn::CappedTag<double, 4> dd;
  const hn::Rebind<float, decltype(dd)> dh;
  using VD = hn::VFromD<decltype(dd)>;
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(dd));
  constexpr int64_t kG = 8 / kL;
  VD acc[kG];
  for (int64_t g = 0; g < kG; ++g) acc[g] = hn::Zero(dd);
  const int64_t n8 = n - n % 8;
  for (int64_t k = 0; k < n8; k += 8) {
    for (int64_t g = 0; g < kG; ++g) {
      const auto v = hn::LoadU(dh, x + k + g * kL);
      acc[g] = acc[g] + hn::PromoteTo(dd, v * v);
    }
  }
  HWY_ALIGN double lanes[8];
  for (int64_t g = 0; g < kG; ++g) hn::Store(acc[g], dd, lanes + g * kL);
  for (int64_t j = 0; n8 + j < n; ++j) lanes[j] += static_cast<double>(x[n8 + j] * x[n8 + j]);
  const double sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float scale = 1.0f / std::sqrt(mean + eps);
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  const VF s = hn::Set(df, scale);
  int64_t i = 0;
  for (; i + l <= n; i += l) {
    const VF v = hn::LoadU(df, x + i) * s;
    hn::StoreU(weight != nullptr ? v * hn::LoadU(df, weight + i) : v, df, out + i);
  }
  for (; i < n; ++i) {
    const float v = x[i] * scale;
    out[i] = weight != nullptr ? v * weight[i] : v;
  }
}

// Each pair (a, b) -> (a cos - b sin, a sin + b cos): rope.cpp's operations,
// lane by lane. neox pairs are (i, i + n_rot / 2): two plain loads; normal
// pairs (2i, 2i + 1) are split and rejoined by the interleaved load/store.
void RopeApplyKernel(const RopeParams& p, const float* cos_in, const float* sin_in, float* head) {
  const DF df;
  const int64_t l = static_cast<int64_t>(hn::Lanes(df));
  const int64_t half = p.n_rot / 2;
  int64_t i = 0;
  for (; i + l <= half; i += l) {
    const VF c = hn::LoadU(df, cos_in + i), s = hn::LoadU(df, sin_in + i);
    VF a, b;
    if (p.mode == RopeMode::kNeox) {
      a = hn::LoadU(df, head + i);
      b = hn::LoadU(df, head + half + i);
      hn::StoreU(a * c - b * s, df, head + i);
      hn::StoreU(a * s + b * c, df, head + half + i);
    } else {
      hn::LoadInterleaved2(df, head + 2 * i, a, b);
      hn::StoreInterleaved2(a * c - b * s, a * s + b * c, df, head + 2 * i);
    }
  }
  for (; i < half; ++i) {
    const int64_t ia = p.mode == RopeMode::kNormal ? 2 * i : i;
    const int64_t ib = p.mode == RopeMode::kNormal ? 2 * i + 1 : i + half;
    const float a = head[ia], b = head[ib];
    head[ia] = a * cos_in[i] - b * sin_in[i];
    head[ib] = a * sin_in[i] + b * cos_in[i];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace trit::kernels {

HWY_EXPORT(SwiGluKernel);
HWY_EXPORT(GeGluKernel);
HWY_EXPORT(SwiGluOaiKernel);
HWY_EXPORT(RmsNormKernel);
HWY_EXPORT(RopeApplyKernel);
HWY_EXPORT(GeluErfKernel);

void RmsNormOptimized(const float* x, const float* weight, int64_t n, float eps, float* out) {
  HWY_DYNAMIC_DISPATCH(RmsNormKernel)(x, weight, n, eps, out);
}
void SwiGluOptimized(const float* gate, const float* up, int64_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(SwiGluKernel)(gate, up, n, out);
}
void GeGluOptimized(const float* gate, const float* up, int64_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(GeGluKernel)(gate, up, n, out);
}
void SwiGluOaiOptimized(const float* gate, const float* up, int64_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(SwiGluOaiKernel)(gate, up, n, out);
}
void GeluErfRowOptimized(float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluErfKernel)(x, n); }
void RopeApplyOptimized(const RopeParams& p, const float* cos_in, const float* sin_in, float* head) {
  HWY_DYNAMIC_DISPATCH(RopeApplyKernel)(p, cos_in, sin_in, head);
}

}  // namespace trit::kernels
#endif  // HWY_ONCE
