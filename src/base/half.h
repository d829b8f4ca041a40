// IEEE half (binary16) and bfloat16 <-> float32, exact scalar conversions.
// float32 -> half/bf16 rounds to nearest, ties to even; NaN stays NaN.
#pragma once

#include <cstdint>
#include <cstring>

namespace trit {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
// dst[i] = FloatToHalf(src[i]) for i < n, bit for bit; 8 at a time by the
// CPU's conversion instruction (x86 F16C: the same rounding, to nearest
// even, and the same quiet NaNs) where it has one.
void FloatsToHalves(const float* src, uint16_t* dst, int64_t n);

inline float Bf16ToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBf16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace trit
