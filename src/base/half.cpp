#include "base/half.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace trit {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return BitsToFloat(sign);  // signed zero
  // Subnormal half: normalise into a float32 exponent.
  uint32_t e = 113;
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return BitsToFloat(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs >= 0x38800000u) {  // normal half
    const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal: zero
  // Subnormal half: shift the implicit-one mantissa, round to nearest even.
  const uint32_t exp = abs >> 23;
  const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126 - exp;  // 14..24
  const uint32_t half_mant = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  uint32_t result = half_mant;
  if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++result;
  return static_cast<uint16_t>(sign | result);
}

namespace {

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void FloatsToHalvesF16C(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

// CPUID leaf 1: F16C (ecx bit 29), AVX (bit 28) and OSXSAVE (bit 27), and
// the OS saving the ymm state (XCR0 bits 1 and 2). By hand: clang 14's
// __builtin_cpu_supports does not know "f16c".
bool CpuHasF16C() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    constexpr unsigned kNeeded = (1u << 27) | (1u << 28) | (1u << 29);
    if ((ecx & kNeeded) != kNeeded) return false;
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    asm("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    return (xcr0_lo & 6u) == 6u;
  }();
  return has;
}
#endif

}  // namespace

void FloatsToHalves(const float* src, uint16_t* dst, int64_t n) {
#if defined(__x86_64__)
  if (CpuHasF16C()) {
    FloatsToHalvesF16C(src, dst, n);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

}  // namespace trit
