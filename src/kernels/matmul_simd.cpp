// Highway kernels of matmul_simd.h, compiled once per target (foreach_target)
// and dispatched at run time. Which targets are compiled is set in
// src/kernels/CMakeLists.txt (HWY_DISABLED_TARGETS); docs/KERNELS.md lists them.
//
// Integer sums of products are exact on every target, and the float steps
// are scalar or lane-wise with one rounding each (no fused multiply-add:
// -ffp-contract=off), so every target returns the same bits.
#include "kernels/matmul_simd.h"

#include <algorithm>
#include <cstring>

#include "base/half.h"
#include "kernels/dot.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

// GCC 12 reports the zero-initialized accumulators of QuantRows as "maybe
// uninitialized" once the AVX3 copy is vectorized (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Blocks whose integer sums are buffered before they are folded into the
// float accumulators; a multiple of every vector length.
constexpr int64_t kChunk = 64;

using D8 = hn::CappedTag<int8_t, 32>;  // a Q4_0/Q8_0 block's 32 quants in one or two vectors
using DU8 = hn::RebindToUnsigned<D8>;
using D32 = hn::Repartition<int32_t, D8>;
using V32 = hn::VFromD<D32>;

// acc + pairwise sums of q * a, q unsigned (< 128 wherever a pair could
// saturate int16: 2 * 127 * 128 < 32768), a signed.
HWY_INLINE V32 MulAddU8I8(hn::VFromD<DU8> q, hn::VFromD<D8> a, V32 acc) {
#if HWY_TARGET == HWY_SSE4
  const __m128i p = _mm_maddubs_epi16(q.raw, a.raw);
  return acc + V32{_mm_madd_epi16(p, _mm_set1_epi16(1))};
#elif HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  const __m256i p = _mm256_maddubs_epi16(q.raw, a.raw);
  return acc + V32{_mm256_madd_epi16(p, _mm256_set1_epi16(1))};
#elif HWY_TARGET == HWY_SCALAR
  return acc + hn::Set(D32(), static_cast<int32_t>(hn::GetLane(q)) * hn::GetLane(a));
#else
  const hn::Half<DU8> du8h;
  const hn::Half<D8> d8h;
  const hn::RepartitionToWide<D8> d16;
  const hn::RepartitionToWide<DU8> du16;
  const D32 d32;
  const auto q_lo = hn::BitCast(d16, hn::PromoteTo(du16, hn::LowerHalf(du8h, q)));
  const auto q_hi = hn::BitCast(d16, hn::PromoteTo(du16, hn::UpperHalf(du8h, q)));
  const auto a_lo = hn::PromoteTo(d16, hn::LowerHalf(d8h, a));
  const auto a_hi = hn::PromoteTo(d16, hn::UpperHalf(d8h, a));
  V32 acc2 = hn::Zero(d32);
  acc = hn::ReorderWidenMulAccumulate(d32, q_lo, a_lo, acc, acc2);
  acc = hn::ReorderWidenMulAccumulate(d32, q_hi, a_hi, acc, acc2);
  return acc + acc2;
#endif
}

// acc + pairwise sums of w * a, both signed, a in [-127, 127].
HWY_INLINE V32 MulAddI8I8(hn::VFromD<D8> w, hn::VFromD<D8> a, V32 acc) {
#if HWY_TARGET == HWY_SSE4
  // |w| * (a with w's sign): |w| <= 128 as unsigned, so no pair saturates.
  const __m128i p = _mm_maddubs_epi16(_mm_sign_epi8(w.raw, w.raw), _mm_sign_epi8(a.raw, w.raw));
  return acc + V32{_mm_madd_epi16(p, _mm_set1_epi16(1))};
#elif HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(w.raw, w.raw), _mm256_sign_epi8(a.raw, w.raw));
  return acc + V32{_mm256_madd_epi16(p, _mm256_set1_epi16(1))};
#elif HWY_TARGET == HWY_SCALAR
  return acc + hn::Set(D32(), static_cast<int32_t>(hn::GetLane(w)) * hn::GetLane(a));
#else
  const hn::Half<D8> d8h;
  const hn::RepartitionToWide<D8> d16;
  const D32 d32;
  V32 acc2 = hn::Zero(d32);
  acc = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LowerHalf(d8h, w)),
                                      hn::PromoteTo(d16, hn::LowerHalf(d8h, a)), acc, acc2);
  acc = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::UpperHalf(d8h, w)),
                                      hn::PromoteTo(d16, hn::UpperHalf(d8h, a)), acc, acc2);
  return acc + acc2;
#endif
}

template <class D>
HWY_INLINE int32_t ReduceI32(D d, hn::VFromD<D> v) {
  return hn::GetLane(hn::SumOfLanes(d, v));
}

constexpr int64_t kLanes32 = static_cast<int64_t>(hn::MaxLanes(D32()));

// total[i] = sum of the lanes of part[i] (kLanes32 int32 each) for i < n;
// part holds a multiple of kLanes32 vectors. On x86 several blocks are
// reduced together by horizontal adds (exact: integers).
HWY_INLINE void ReduceBlocks(const int32_t* part, int64_t n, int32_t* total) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i* v = reinterpret_cast<const __m256i*>(part + i * 8);
    const __m256i h01 = _mm256_hadd_epi32(_mm256_load_si256(v + 0), _mm256_load_si256(v + 1));
    const __m256i h23 = _mm256_hadd_epi32(_mm256_load_si256(v + 2), _mm256_load_si256(v + 3));
    const __m256i h45 = _mm256_hadd_epi32(_mm256_load_si256(v + 4), _mm256_load_si256(v + 5));
    const __m256i h67 = _mm256_hadd_epi32(_mm256_load_si256(v + 6), _mm256_load_si256(v + 7));
    const __m256i h03 = _mm256_hadd_epi32(h01, h23);  // blocks 0-3: low 128 bits | high 128 bits
    const __m256i h47 = _mm256_hadd_epi32(h45, h67);
    const __m256i sum = _mm256_add_epi32(_mm256_permute2x128_si256(h03, h47, 0x20),
                                         _mm256_permute2x128_si256(h03, h47, 0x31));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(total + i), sum);
  }
#elif HWY_TARGET == HWY_SSE4
  for (int64_t i = 0; i < n; i += 4) {
    const __m128i* v = reinterpret_cast<const __m128i*>(part + i * 4);
    const __m128i h01 = _mm_hadd_epi32(_mm_load_si128(v + 0), _mm_load_si128(v + 1));
    const __m128i h23 = _mm_hadd_epi32(_mm_load_si128(v + 2), _mm_load_si128(v + 3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(total + i), _mm_hadd_epi32(h01, h23));
  }
#else
  const D32 d32;
  for (int64_t i = 0; i < n; ++i) total[i] = ReduceI32(d32, hn::Load(d32, part + i * kLanes32));
#endif
}

// The shared frame of the quantized kernels: block_dot(block, b, v, adjust)
// sets, for r < n_a, v[r] to int32 lanes and adjust[r] to an integer whose
// sum is the exact dot product of weight block b with activation row r's
// block b (offsets removed). Then per row, in increasing b:
// acc[b % 8] += (d_w * d_a) * isum, and the fixed tree of dot.h.
template <class BlockDot>
HWY_INLINE void QuantRows(const QuantDotArgs& g, int64_t n_a, int64_t block_bytes, int64_t scale_offset,
                          const BlockDot& block_dot) {
  const D32 d32;
  const hn::CappedTag<float, 16> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  HWY_ALIGN uint16_t scale_bits[kChunk];
  HWY_ALIGN float w_scale[kChunk];
  HWY_ALIGN int32_t part[kRowTile][kChunk * kLanes32];
  int32_t adjust[kRowTile][kChunk];
  int32_t isum[kChunk + 8];
  float acc[kRowTile][kDotLanes] = {};
  for (int64_t c0 = 0; c0 < g.n_blocks; c0 += kChunk) {
    const int64_t nc = std::min(kChunk, g.n_blocks - c0);
    for (int64_t i = 0; i < nc; ++i) {
      const uint8_t* block = g.w + (c0 + i) * block_bytes;
      std::memcpy(&scale_bits[i], block + scale_offset, 2);
      V32 v[kRowTile];
      int32_t adj[kRowTile];
      block_dot(block, c0 + i, v, adj);
      for (int64_t r = 0; r < n_a; ++r) {
        hn::Store(v[r], d32, part[r] + i * kLanes32);
        adjust[r][i] = adj[r];
      }
    }
    // Whole groups for ReduceBlocks: the blocks past nc are zeros, unused.
    const int64_t padded = (nc + 7) / 8 * 8;
    for (int64_t r = 0; r < n_a; ++r) {
      std::fill(part[r] + nc * kLanes32, part[r] + padded * kLanes32, 0);
    }
    std::fill(scale_bits + nc, scale_bits + kChunk, uint16_t{0});
    for (int64_t i = 0; i < nc; i += static_cast<int64_t>(hn::Lanes(df))) {
      // f16 -> f32 is exact on every target (F16C or Highway's emulation).
      hn::Store(hn::PromoteTo(df, hn::Load(dh, reinterpret_cast<const hwy::float16_t*>(scale_bits + i))), df,
                w_scale + i);
    }
    for (int64_t r = 0; r < n_a; ++r) {
      ReduceBlocks(part[r], padded, isum);
      const float* a_scale = g.a_scale + r * g.n_blocks + c0;
      for (int64_t i = 0; i < nc; ++i) {
        acc[r][(c0 + i) % kDotLanes] +=
            (w_scale[i] * a_scale[i]) * static_cast<float>(isum[i] + adjust[r][i]);
      }
    }
  }
  for (int64_t r = 0; r < n_a; ++r) g.y[r * g.y_stride] = DotReduce(acc[r]);
}

#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
#define TRIT_X86_MADDUBS 1
using D16 = hn::RepartitionToWide<D8>;
using V16 = hn::VFromD<D16>;
// Pairwise q * a as int16 (q unsigned, a signed; the callers keep every sum
// of such pairs below 32768).
HWY_INLINE V16 MulPairsU8I8(hn::VFromD<DU8> q, hn::VFromD<D8> a) {
#if HWY_TARGET == HWY_SSE4
  return V16{_mm_maddubs_epi16(q.raw, a.raw)};
#else
  return V16{_mm256_maddubs_epi16(q.raw, a.raw)};
#endif
}
// Pairwise sums of int16 lanes times int16 lanes as int32.
HWY_INLINE V32 MulPairsI16(V16 a, V16 b) {
#if HWY_TARGET == HWY_SSE4
  return V32{_mm_madd_epi16(a.raw, b.raw)};
#else
  return V32{_mm256_madd_epi16(a.raw, b.raw)};
#endif
}
#endif

// TQ2_0 (66 bytes: qs[64], d): byte j + m (j in {0, 32}, m < 32) holds, in
// bits 2l..2l+1, trit + 1 of element 4j + 32l + m. sum (t+1) a - sum a.
template <int64_t kRows>
void DotTQ2_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
  const auto mask = hn::Set(du8, uint8_t{3});
  QuantRows(g, n_a, 66, 64, [&](const uint8_t* block, int64_t b, V32* v, int32_t* adjust) {
#ifdef TRIT_X86_MADDUBS
    // int16 sums: at most 16 pairs of 2 * 127 * 2 per lane, far below 32768.
    const D16 d16;
    V16 acc[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(d16);
#else
    V32* acc = v;
    for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(d32);
#endif
    for (int64_t j = 0; j < 64; j += 32) {
      for (int64_t p = 0; p < 32; p += n) {
        const auto q = hn::LoadU(du8, block + j + p);
        const auto t0 = hn::And(q, mask);
#if HWY_TARGET == HWY_SCALAR
        const auto t1 = hn::And(hn::ShiftRight<2>(q), mask);
        const auto t2 = hn::And(hn::ShiftRight<4>(q), mask);
#else
        // Shifts in 16-bit lanes (bits crossing into a byte are masked off).
        const hn::RepartitionToWide<DU8> du16;
        const auto t1 = hn::And(hn::BitCast(du8, hn::ShiftRight<2>(hn::BitCast(du16, q))), mask);
        const auto t2 = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(du16, q))), mask);
#endif
        const auto t3 = hn::ShiftRight<6>(q);
        for (int64_t r = 0; r < n_a; ++r) {
          const int8_t* a = g.a + r * g.a_stride + b * 256 + 4 * j + p;
#ifdef TRIT_X86_MADDUBS
          acc[r] = acc[r] + MulPairsU8I8(t0, hn::LoadU(d8, a)) + MulPairsU8I8(t1, hn::LoadU(d8, a + 32)) +
                   MulPairsU8I8(t2, hn::LoadU(d8, a + 64)) + MulPairsU8I8(t3, hn::LoadU(d8, a + 96));
#else
          acc[r] = MulAddU8I8(t0, hn::LoadU(d8, a), acc[r]);
          acc[r] = MulAddU8I8(t1, hn::LoadU(d8, a + 32), acc[r]);
          acc[r] = MulAddU8I8(t2, hn::LoadU(d8, a + 64), acc[r]);
          acc[r] = MulAddU8I8(t3, hn::LoadU(d8, a + 96), acc[r]);
#endif
        }
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
#ifdef TRIT_X86_MADDUBS
      v[r] = MulPairsI16(acc[r], hn::Set(d16, int16_t{1}));
      (void)d32;
#endif
      adjust[r] = -g.a_sum[r * g.n_blocks + b];
    }
  });
}

// TQ1_0 (54 bytes: qs[48], qh[4], d). Trit k of a byte is
// ((byte * 3^k mod 256) * 3) >> 8, computed in 16-bit lanes:
//   qs[m], m < 32:       element 32k + m
//   qs[32 + m], m < 16:  element 160 + 16k + m
//   qh[j], j < 4, k < 4: element 240 + 4k + j
template <int64_t kRows>
void DotTQ1_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const hn::CappedTag<uint16_t, 16> du16;
  const hn::RebindToSigned<decltype(du16)> di16;
  const hn::Rebind<uint8_t, decltype(du16)> du8;
  const hn::Rebind<int8_t, decltype(du16)> di8;
  const hn::Repartition<int32_t, decltype(di16)> d32;
  using VW = hn::VFromD<decltype(d32)>;
  const int64_t n = static_cast<int64_t>(hn::Lanes(du16));
  static constexpr uint16_t kPow3[5] = {1, 3, 9, 27, 81};
  const auto low_byte = hn::Set(du16, uint16_t{0xFF});
  const auto three = hn::Set(du16, uint16_t{3});
  QuantRows(g, n_a, 54, 52, [&](const uint8_t* block, int64_t b, V32* v, int32_t* adjust) {
    VW acc[kRowTile];
    VW acc2[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = acc2[r] = hn::Zero(d32);
    auto group = [&](const uint8_t* bytes, int64_t width, int64_t first) {
      for (int64_t p = 0; p < width; p += n) {
        const auto x = hn::PromoteTo(du16, hn::LoadU(du8, bytes + p));
        for (int64_t k = 0; k < 5; ++k) {
          const auto shifted = hn::And(x * hn::Set(du16, kPow3[k]), low_byte);
          const auto t = hn::BitCast(di16, hn::ShiftRight<8>(shifted * three));
          for (int64_t r = 0; r < n_a; ++r) {
            const int8_t* a = g.a + r * g.a_stride + b * 256 + first + k * width + p;
            acc[r] = hn::ReorderWidenMulAccumulate(d32, t, hn::PromoteTo(di16, hn::LoadU(di8, a)), acc[r], acc2[r]);
          }
        }
      }
    };
    group(block, 32, 0);
    group(block + 32, 16, 160);
    int32_t tail[4] = {};  // the 16 trits of qh, in the scalar unit
    for (int64_t k = 0; k < 4; ++k) {
      for (int64_t j = 0; j < 4; ++j) {
        const int32_t t = (static_cast<uint8_t>(block[48 + j] * kPow3[k]) * 3) >> 8;
        for (int64_t r = 0; r < n_a; ++r) tail[r] += t * g.a[r * g.a_stride + b * 256 + 240 + 4 * k + j];
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
      // Fold the int32 lanes to D32's width (they are the same bytes).
      v[r] = hn::BitCast(D32(), acc[r] + acc2[r]);
      adjust[r] = tail[r] - g.a_sum[r * g.n_blocks + b];
    }
  });
}

// Q4_0 (18 bytes: d, qs[16]): qs[j] holds q + 8 of element j (low nibble) and
// j + 16 (high nibble). sum q a - 8 sum a.
template <int64_t kRows>
void DotQ4_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const hn::CappedTag<uint8_t, 16> du8h;
  const auto mask = hn::Set(du8h, uint8_t{0x0F});
  QuantRows(g, n_a, 18, 0, [&](const uint8_t* block, int64_t b, V32* v, int32_t* adjust) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
    // The 32 quants in one vector: low nibbles then high nibbles.
    const auto packed = hn::LoadU(du8h, block + 2);
    const auto q = hn::Combine(du8, hn::ShiftRight<4>(packed), hn::And(packed, mask));
    for (int64_t r = 0; r < n_a; ++r) {
      v[r] = MulAddU8I8(q, hn::LoadU(d8, g.a + r * g.a_stride + b * 32), hn::Zero(d32));
      adjust[r] = -8 * g.a_sum[r * g.n_blocks + b];
    }
#else
    // Vectors of DU8 hold at most 16 lanes here: low and high nibbles apart.
    const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
    V32* acc = v;
    for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(d32);
    for (int64_t p = 0; p < 16; p += n) {
      const auto packed = hn::LoadU(du8, block + 2 + p);
      const auto lo = hn::And(packed, hn::Set(du8, uint8_t{0x0F}));
      const auto hi = hn::ShiftRight<4>(packed);
      for (int64_t r = 0; r < n_a; ++r) {
        const int8_t* a = g.a + r * g.a_stride + b * 32 + p;
        acc[r] = MulAddU8I8(lo, hn::LoadU(d8, a), acc[r]);
        acc[r] = MulAddU8I8(hi, hn::LoadU(d8, a + 16), acc[r]);
      }
    }
    for (int64_t r = 0; r < n_a; ++r) adjust[r] = -8 * g.a_sum[r * g.n_blocks + b];
    (void)du8h;
    (void)mask;
#endif
  });
}

// Q8_0 (34 bytes: d, qs[32] int8).
template <int64_t kRows>
void DotQ8_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const D8 d8;
  const D32 d32;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d8));
  QuantRows(g, n_a, 34, 0, [&](const uint8_t* block, int64_t b, V32* v, int32_t* adjust) {
    const int8_t* w = reinterpret_cast<const int8_t*>(block + 2);
    for (int64_t r = 0; r < n_a; ++r) {
      const int8_t* a = g.a + r * g.a_stride + b * 32;
      V32 acc = hn::Zero(d32);
      for (int64_t p = 0; p < 32; p += n) acc = MulAddI8I8(hn::LoadU(d8, w + p), hn::LoadU(d8, a + p), acc);
      v[r] = acc;
      adjust[r] = 0;
    }
  });
}

// Q4_K (144 bytes: d, dmin, scales[12], qs[128]): 8 sub-blocks of 32 with a
// 6-bit scale sc and min m each (packed as quant::GetScaleMinK4 reads them);
// qs[32j + l] holds q of element 64j + l (low nibble) and 64j + 32 + l (high).
// x = d sc q - dmin m, so per block the integers A = sum_s sc_s sum q a and
// B = sum_s m_s sum a (exact) give (d d_a) A - (dmin d_a) B.
template <int64_t kRows>
void DotQ4_KRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
  const auto mask = hn::Set(du8, uint8_t{0x0F});
  const int64_t sub_stride = g.a_stride / 32;
  float acc[kRowTile][kDotLanes] = {};
  for (int64_t b = 0; b < g.n_blocks; ++b) {
    const uint8_t* block = g.w + b * 144;
    const uint8_t* packed = block + 4;
    int32_t sc[8];
    int32_t mn[8];
    for (int j = 0; j < 8; ++j) {
      if (j < 4) {
        sc[j] = packed[j] & 63;
        mn[j] = packed[j + 4] & 63;
      } else {
        sc[j] = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
        mn[j] = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
      }
    }
    uint16_t bits[2];
    std::memcpy(bits, block, 4);
    const float d = HalfToFloat(bits[0]);
    const float dmin = HalfToFloat(bits[1]);
    V32 total[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) total[r] = hn::Zero(d32);
    for (int64_t j = 0; j < 4; ++j) {
#ifdef TRIT_X86_MADDUBS
      const auto sc16_lo = hn::Set(D16(), static_cast<int16_t>(sc[2 * j]));
      const auto sc16_hi = hn::Set(D16(), static_cast<int16_t>(sc[2 * j + 1]));
#else
      const auto sc_lo = hn::Set(d32, sc[2 * j]);
      const auto sc_hi = hn::Set(d32, sc[2 * j + 1]);
      V32 lo_sum[kRowTile];
      V32 hi_sum[kRowTile];
      for (int64_t r = 0; r < n_a; ++r) lo_sum[r] = hi_sum[r] = hn::Zero(d32);
#endif
      for (int64_t p = 0; p < 32; p += n) {
        const auto v = hn::LoadU(du8, block + 16 + 32 * j + p);
        const auto lo = hn::And(v, mask);
        const auto hi = hn::ShiftRight<4>(v);
        for (int64_t r = 0; r < n_a; ++r) {
          const int8_t* a = g.a + r * g.a_stride + b * 256 + 64 * j + p;
#ifdef TRIT_X86_MADDUBS
          // Pairs (<= 2 * 15 * 127) times the 6-bit scale, summed in int32.
          total[r] = total[r] + MulPairsI16(MulPairsU8I8(lo, hn::LoadU(d8, a)), sc16_lo) +
                     MulPairsI16(MulPairsU8I8(hi, hn::LoadU(d8, a + 32)), sc16_hi);
#else
          lo_sum[r] = MulAddU8I8(lo, hn::LoadU(d8, a), lo_sum[r]);
          hi_sum[r] = MulAddU8I8(hi, hn::LoadU(d8, a + 32), hi_sum[r]);
#endif
        }
      }
#ifndef TRIT_X86_MADDUBS
      for (int64_t r = 0; r < n_a; ++r) total[r] = total[r] + lo_sum[r] * sc_lo + hi_sum[r] * sc_hi;
#endif
    }
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum32 + r * sub_stride + b * 8;
      int32_t min_sum = 0;
      for (int j = 0; j < 8; ++j) min_sum += mn[j] * sums[j];
      const float da = g.a_scale[r * g.n_blocks + b];
      const float a_total = static_cast<float>(ReduceI32(d32, total[r]));
      acc[r][b % kDotLanes] += (d * da) * a_total - (dmin * da) * static_cast<float>(min_sum);
    }
  }
  for (int64_t r = 0; r < n_a; ++r) g.y[r * g.y_stride] = DotReduce(acc[r]);
}

// The exported kernels: one row (decode) and full tiles (batches) compiled
// with the row count known, a last partial tile with it read at run time.
// All do the same arithmetic per row.
void DotTQ2_0Kernel(const QuantDotArgs& g) {
  g.n_a == 1 ? DotTQ2_0Rows<1>(g) : g.n_a == kRowTile ? DotTQ2_0Rows<kRowTile>(g) : DotTQ2_0Rows<0>(g);
}
void DotTQ1_0Kernel(const QuantDotArgs& g) {
  g.n_a == 1 ? DotTQ1_0Rows<1>(g) : g.n_a == kRowTile ? DotTQ1_0Rows<kRowTile>(g) : DotTQ1_0Rows<0>(g);
}
void DotQ4_0Kernel(const QuantDotArgs& g) {
  g.n_a == 1 ? DotQ4_0Rows<1>(g) : g.n_a == kRowTile ? DotQ4_0Rows<kRowTile>(g) : DotQ4_0Rows<0>(g);
}
void DotQ8_0Kernel(const QuantDotArgs& g) {
  g.n_a == 1 ? DotQ8_0Rows<1>(g) : g.n_a == kRowTile ? DotQ8_0Rows<kRowTile>(g) : DotQ8_0Rows<0>(g);
}
void DotQ4_KKernel(const QuantDotArgs& g) {
  g.n_a == 1 ? DotQ4_KRows<1>(g) : g.n_a == kRowTile ? DotQ4_KRows<kRowTile>(g) : DotQ4_KRows<0>(g);
}

// dot.h's order with vectors: element k into lane k % 8 (one 8-lane vector
// or several narrower ones), each lane x * w then + (two roundings), the tail into
// lanes 0.., then DotReduce. load(df, k) gives weights k.. as floats;
// scalar(k) one weight.
template <class Load, class Scalar>
HWY_INLINE void FloatRows(const FloatDotArgs& g, const Load& load, const Scalar& scalar) {
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(df));
  static_assert(kDotLanes % kL == 0, "the 8 lanes of dot.h in whole vectors");
  constexpr int64_t kG = kDotLanes / kL;
  VF acc[kRowTile][kG];
  for (int64_t r = 0; r < g.n_a; ++r) {
    for (int64_t i = 0; i < kG; ++i) acc[r][i] = hn::Zero(df);
  }
  const int64_t n8 = g.n_cols - g.n_cols % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    for (int64_t i = 0; i < kG; ++i) {
      const VF w = load(df, k + i * kL);
      for (int64_t r = 0; r < g.n_a; ++r) {
        acc[r][i] = acc[r][i] + hn::LoadU(df, g.x + r * g.n_cols + k + i * kL) * w;
      }
    }
  }
  for (int64_t r = 0; r < g.n_a; ++r) {
    HWY_ALIGN float lanes[kDotLanes] = {};
    for (int64_t i = 0; i < kG; ++i) hn::Store(acc[r][i], df, lanes + i * kL);
    const float* x = g.x + r * g.n_cols;
    for (int64_t j = 0; n8 + j < g.n_cols; ++j) lanes[j] += x[n8 + j] * scalar(n8 + j);
    g.y[r * g.y_stride] = DotReduce(lanes);
  }
}

void DotF32Kernel(const FloatDotArgs& g) {
  const float* w = static_cast<const float*>(g.w);
  FloatRows(
      g, [&](auto df, int64_t k) { return hn::LoadU(df, w + k); }, [&](int64_t k) { return w[k]; });
}

void DotF16Kernel(const FloatDotArgs& g) {
  const auto* w = static_cast<const hwy::float16_t*>(g.w);
  const auto* bits = static_cast<const uint16_t*>(g.w);
  FloatRows(
      g,
      [&](auto df, int64_t k) {
        const hn::Rebind<hwy::float16_t, decltype(df)> dh;
        return hn::PromoteTo(df, hn::LoadU(dh, w + k));
      },
      [&](int64_t k) { return HalfToFloat(bits[k]); });
}

void DotBF16Kernel(const FloatDotArgs& g) {
  const auto* bits = static_cast<const uint16_t*>(g.w);
  FloatRows(
      g,
      [&](auto df, int64_t k) {
        const hn::Rebind<uint16_t, decltype(df)> du16;
        const hn::RebindToUnsigned<decltype(df)> du32;
        return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, bits + k))));
      },
      [&](int64_t k) { return Bf16ToFloat(bits[k]); });
}

#undef TRIT_X86_MADDUBS

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels::simd
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#if HWY_ONCE
namespace trit::kernels::simd {

HWY_EXPORT(DotTQ2_0Kernel);
HWY_EXPORT(DotTQ1_0Kernel);
HWY_EXPORT(DotQ4_0Kernel);
HWY_EXPORT(DotQ8_0Kernel);
HWY_EXPORT(DotQ4_KKernel);
HWY_EXPORT(DotF32Kernel);
HWY_EXPORT(DotF16Kernel);
HWY_EXPORT(DotBF16Kernel);

void DotTQ2_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotTQ2_0Kernel)(args); }
void DotTQ1_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotTQ1_0Kernel)(args); }
void DotQ4_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ4_0Kernel)(args); }
void DotQ8_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ8_0Kernel)(args); }
void DotQ4_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ4_KKernel)(args); }
void DotF32(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotF32Kernel)(args); }
void DotF16(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotF16Kernel)(args); }
void DotBF16(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotBF16Kernel)(args); }

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
