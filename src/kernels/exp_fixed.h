// e^x by one fixed sequence of float operations, so that a scalar loop and
// every SIMD target (exp_fixed-inl.h, the same steps lane by lane) return the
// same bits, which libm's expf cannot promise and which does not vectorise.
// Attention's softmax uses it in both kernel sets, so the optimized
// attention still equals the reference bit for bit.
//
// x is clamped to [-87, 88] (so e^-87 ~ 1.6e-38 stands for anything
// smaller, including -inf, and 2^n stays a normal float); n = round(x log2 e)
// (ties to even); r = (x - n ln2_hi) - n ln2_lo, ln2_hi with 9 significant
// bits so n ln2_hi is exact (Cody-Waite); e^r by Cephes' expf polynomial in
// Horner steps; times 2^n from the exponent bits. Within 2 ulp of e^x over
// the clamp range. Every step is one rounding (-ffp-contract=off: no fused
// multiply-add). NaN gives NaN here and an unspecified value in the SIMD form.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace trit::kernels {

inline constexpr float kExpMin = -87.0f;
inline constexpr float kExpMax = 88.0f;
inline constexpr float kLog2E = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;
inline constexpr float kLn2Lo = -2.12194440e-4f;
inline constexpr float kExpPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                      4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

inline float ExpFixed(float x) {
  // NaN passes the clamp unchanged, and converting it to int below is
  // undefined behaviour (a corrupt model's NaN weights reach here): answer NaN.
  if (std::isnan(x)) return x;
  x = std::min(std::max(x, kExpMin), kExpMax);
  const float n = std::nearbyint(x * kLog2E);  // the default rounding: to nearest, ties to even
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = kExpPoly[0];
  for (int i = 1; i < 6; ++i) p = p * r + kExpPoly[i];
  const float e = (p * (r * r) + r) + 1.0f;
  return e * std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
}

}  // namespace trit::kernels
