// Highway kernels of matmul_simd.h for the 2- and 3-bit K-quants (q2_K,
// q3_K), compiled once per target (foreach_target) like matmul_simd.cpp and
// dispatched at run time, with its frames and dot steps (matmul_simd-inl.h).
//
// Both types have 16 sub-blocks of 16 laid out in halves as q6_K's are:
// element 128h + 32i + l of a 256-block (h < 2, i < 4, l < 32) has its 2 low
// bits at bits 2i..2i+1 of qs[32h + l] and belongs to sub-block
// 8h + 2i + l / 16. Per block the integer sums are exact on every target
// (maddubs pairs times int16 scales on x86 with 256-bit vectors, 16-element
// widening dot products elsewhere), and the float step per block is the one
// of QuantRows (q3_K) or QuantRowsWithMins (q2_K), so every target returns
// the same bits.
#include "kernels/matmul_simd.h"

#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_simd_kquants_low.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/matmul_simd-inl.h"

// GCC 12 reports zero-initialized accumulators as "maybe uninitialized" once
// the AVX3 copy is vectorized (a false positive, as in matmul_simd.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#ifdef TRIT_X86_256
// The scaled sums of one 256-block of 2-bit fields in the half layout
// against activation rows a + r * a_stride, r < n_a: acc[r] = int32 lanes
// totalling sum_s sc_s sum u a over the sub-blocks s, where element
// 128h + 32i + l has u = high(bits 2i..2i+1 of qs[32h + l] as a vector of
// group (h, i), 4h + i), unsigned and at most 7, and sc16 holds the int16
// scales sc[0..7] | sc[8..15]. Pairs <= 2 * 7 * 127, times |sc| <= 32 in
// int32: exact.
template <class High>
HWY_INLINE void TwoBitFieldsDot(const uint8_t* qs, __m256i sc16, const int8_t* a, int64_t a_stride, int64_t n_a,
                                const HalfGroupScales& spread, const High& high, V32* acc) {
  const __m256i m3 = _mm256_set1_epi8(3);
  for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(D32());
  for (int h = 0; h < 2; ++h) {
    const __m256i sch = HalfGroupScales::Half(sc16, h);
    const __m256i fields = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * h));
    for (int i = 0; i < 4; ++i) {
      const __m256i u = high(_mm256_and_si256(_mm256_srli_epi16(fields, 2 * i), m3), 4 * h + i);
      AddScaledPairs(u, spread.Group(sch, i), a + 128 * h + 32 * i, a_stride, n_a, acc);
    }
  }
}
#else
// The same fields one byte at a time, in element order: u[128h + 32i + l] =
// bits 2i..2i+1 of qs[32h + l], plus 4 where bit 4h + i of hmask[l] is set
// (q3_K; hmask null: none).
HWY_INLINE void TwoBitFields(const uint8_t* qs, const uint8_t* hmask, uint8_t* u) {
  for (int64_t h = 0; h < 2; ++h) {
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t l = 0; l < 32; ++l) {
        const int high = hmask != nullptr ? ((hmask[l] >> (4 * h + i)) & 1) << 2 : 0;
        u[128 * h + 32 * i + l] = static_cast<uint8_t>(((qs[32 * h + l] >> (2 * i)) & 3) | high);
      }
    }
  }
}
#endif

// Q2_K (84 bytes: scales[16], qs[64], d, dmin): byte s of scales holds the
// scale sc_s (low nibble) and min m_s (high nibble) of sub-block s, q in
// 0..3, x = d sc q - dmin m. Per block A = sum_s sc_s sum q a and
// B = sum_s m_s sum a (the activation sums per 16), exact, give
// (d d_a) A - (dmin d_a) B.
constexpr int64_t kQ2_KBytes = 84;
constexpr int64_t kQ2_KQs = 16;
constexpr int64_t kQ2_KD = 80;  // d, then dmin

template <int64_t kRows>
void DotQ2_KRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const int64_t sums_stride = g.a_stride / 16;
#ifdef TRIT_X86_256
  const D32 d32;
  const __m128i m4 = _mm_set1_epi8(0x0F);
  const HalfGroupScales spread;
  QuantRowsWithMins<kRows>(g, kQ2_KBytes, kQ2_KD, [&](const uint8_t* block, int64_t b, V32* va, V32* vb) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
    const __m128i sc8 = _mm_and_si128(packed, m4);
    const __m128i mn8 = _mm_and_si128(_mm_srli_epi16(packed, 4), m4);
    TwoBitFieldsDot(block + kQ2_KQs, _mm256_cvtepu8_epi16(sc8), g.a + b * 256, g.a_stride, n_a, spread,
                    [](__m256i q, int) { return q; }, va);
    const V32 mn_lo{_mm256_cvtepu8_epi32(mn8)}, mn_hi{_mm256_cvtepu8_epi32(_mm_srli_si128(mn8, 8))};
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum16 + r * sums_stride + b * 16;
      vb[r] = mn_lo * hn::LoadU(d32, sums) + mn_hi * hn::LoadU(d32, sums + 8);
    }
  });
#else
  // In the caller, not the lambda: see DotQ6_KRows (a lambda-local aligned
  // array shared a stack slot with QuantRows's live sums on SSE4).
  HWY_ALIGN uint8_t q[256];
  QuantRowsWithMins<kRows>(g, kQ2_KBytes, kQ2_KD, [&](const uint8_t* block, int64_t b, V32* va, V32* vb) {
    TwoBitFields(block + kQ2_KQs, nullptr, q);
    int8_t sc[16];
    for (int64_t s = 0; s < 16; ++s) sc[s] = static_cast<int8_t>(block[s] & 15);
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum16 + r * sums_stride + b * 16;
      int32_t min_sum = 0;
      for (int64_t s = 0; s < 16; ++s) min_sum += (block[s] >> 4) * sums[s];
      va[r] = OneLane(ScaledSums16(q, g.a + r * g.a_stride + b * 256, sums, sc, 0));
      vb[r] = OneLane(min_sum);
    }
  });
#endif
}

// Q3_K (110 bytes: hmask[32], qs[64], scales[12], d): element 128h + 32i + l
// is q3 = (its 2 low bits) - 4 + 4 * (bit 4h + i of hmask[l]), in -4..3;
// sub-block s has the 6-bit scale sc_s - 32 (UnpackScalesQ3_K); x = d sc q3.
// With u = q3 + 4 (unsigned, 0..7) one term per block, as q6_K:
// isum = sum_s sc_s (sum u a - 4 sum a), the activation sums per 16.
constexpr int64_t kQ3_KBytes = 110;
constexpr int64_t kQ3_KQs = 32;
constexpr int64_t kQ3_KScales = 96;
constexpr int64_t kQ3_KD = 108;

// The 16 6-bit scales of a Q3_K block (12 bytes, each stored + 32), 4 per
// 32-bit word (byte s % 4 of words[s / 4]): with the packed words w0..w2,
// sub-blocks 0..3 have (w0 & 15) | (w2 & 3) << 4 per byte, 4..7
// (w1 & 15) | (w2 >> 2 & 3) << 4, 8..11 (w0 >> 4 & 15) | (w2 >> 4 & 3) << 4,
// 12..15 (w1 >> 4 & 15) | (w2 >> 6 & 3) << 4.
HWY_INLINE void UnpackScalesQ3_K(const uint8_t* packed, uint32_t* words) {
  uint32_t w[3];
  std::memcpy(w, packed, 12);
  const uint32_t low4 = 0x0F0F0F0Fu, low2 = 0x03030303u;
  words[0] = (w[0] & low4) | ((w[2] & low2) << 4);
  words[1] = (w[1] & low4) | (((w[2] >> 2) & low2) << 4);
  words[2] = ((w[0] >> 4) & low4) | (((w[2] >> 4) & low2) << 4);
  words[3] = ((w[1] >> 4) & low4) | (((w[2] >> 6) & low2) << 4);
}

template <int64_t kRows>
void DotQ3_KRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const int64_t sums_stride = g.a_stride / 16;
#ifdef TRIT_X86_256
  const D32 d32;
  const __m256i four = _mm256_set1_epi8(4);
  const HalfGroupScales spread;
  QuantRows<kRows, -1>(g, kQ3_KBytes, kQ3_KD, [&](const uint8_t* block, int64_t b, V32* v) {
    uint32_t words[4];
    UnpackScalesQ3_K(block + kQ3_KScales, words);
    // Moved to a vector in registers: a 16-byte load of words just stored
    // 4 bytes at a time misses store forwarding (the cached 1024 x 2048
    // gemv took 165 us that way, 92 us this way, AVX2 on a Zen 3 EPYC).
    const __m128i sc8 = _mm_sub_epi8(_mm_set_epi32(static_cast<int>(words[3]), static_cast<int>(words[2]),
                                                   static_cast<int>(words[1]), static_cast<int>(words[0])),
                                     _mm_set1_epi8(32));
    const __m256i hmask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
    // Bit j of every hmask byte moved to bit 2 (4 where set): a 16-bit shift
    // keeps bit 2 of each byte within the byte (j - 2 <= 5 to the right,
    // 2 - j <= 2 to the left).
    auto high = [&](__m256i low, int j) {
      return _mm256_or_si256(
          low, _mm256_and_si256(j >= 2 ? _mm256_srli_epi16(hmask, j - 2) : _mm256_slli_epi16(hmask, 2 - j), four));
    };
    V32 acc[kRowTile];
    TwoBitFieldsDot(block + kQ3_KQs, _mm256_cvtepi8_epi16(sc8), g.a + b * 256, g.a_stride, n_a, spread, high, acc);
    const V32 sc_lo{_mm256_cvtepi8_epi32(sc8)}, sc_hi{_mm256_cvtepi8_epi32(_mm_srli_si128(sc8, 8))};
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum16 + r * sums_stride + b * 16;
      v[r] = acc[r] - hn::ShiftLeft<2>(sc_lo * hn::LoadU(d32, sums) + sc_hi * hn::LoadU(d32, sums + 8));
    }
  });
#else
  HWY_ALIGN uint8_t u[256];  // in the caller, not the lambda: as q above
  QuantRows<kRows, -1>(g, kQ3_KBytes, kQ3_KD, [&](const uint8_t* block, int64_t b, V32* v) {
    TwoBitFields(block + kQ3_KQs, block, u);
    uint32_t words[4];
    UnpackScalesQ3_K(block + kQ3_KScales, words);
    uint8_t stored[16];
    std::memcpy(stored, words, 16);
    int8_t sc[16];
    for (int64_t s = 0; s < 16; ++s) sc[s] = static_cast<int8_t>(stored[s] - 32);
    for (int64_t r = 0; r < n_a; ++r) {
      v[r] = OneLane(ScaledSums16(u, g.a + r * g.a_stride + b * 256, g.a_sum16 + r * sums_stride + b * 16, sc, 4));
    }
  });
#endif
}

void DotQ2_KKernel(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ2_KRows<decltype(rows)::value>(g); });
}
void DotQ3_KKernel(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ3_KRows<decltype(rows)::value>(g); });
}

#undef TRIT_X86
#undef TRIT_X86_256
#undef TRIT_ROWS8

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels::simd
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#if HWY_ONCE
namespace trit::kernels::simd {

HWY_EXPORT(DotQ2_KKernel);
HWY_EXPORT(DotQ3_KKernel);

void DotQ2_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ2_KKernel)(args); }
void DotQ3_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ3_KKernel)(args); }

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
