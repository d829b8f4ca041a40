// The shared pieces of the quantized matmul kernels (matmul_simd.h) for the
// files compiled once per Highway target (foreach_target): matmul_simd.cpp,
// matmul_simd_iq4.cpp and matmul_simd_kquants_low.cpp. The int8 dot-product
// steps (exact integers on every target), the per-block frames that fold 8 blocks' sums
// into dot.h's 8 float lanes (QuantRows, QuantRowsWithMins; Rows8Frame for
// the 8-row kernels of row groups) and the dispatch by row count and layout
// (RowLayoutOrGroups). Include after <hwy/highway.h>; the guard below is
// Highway's per-target include idiom. Defines TRIT_X86 (x86 targets),
// TRIT_X86_256 (256-bit ones) and TRIT_ROWS8 for the target being compiled;
// the including file #undefs them at the end of its per-target part.
#if defined(TRIT_KERNELS_MATMUL_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TRIT_KERNELS_MATMUL_SIMD_INL_H_
#undef TRIT_KERNELS_MATMUL_SIMD_INL_H_
#else
#define TRIT_KERNELS_MATMUL_SIMD_INL_H_
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include <hwy/highway.h>

#include "kernels/dot.h"
#include "kernels/matmul_simd.h"
#include "kernels/repack.h"

// GCC 12 reports the zero-initialized accumulators of QuantRows as "maybe
// uninitialized" once the AVX3 copy is vectorized (a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D8 = hn::CappedTag<int8_t, 32>;  // a Q4_0/Q8_0 block's 32 quants in one or two vectors
using DU8 = hn::RebindToUnsigned<D8>;
using D32 = hn::Repartition<int32_t, D8>;
using V32 = hn::VFromD<D32>;
using VU8 = hn::VFromD<DU8>;
using VI8 = hn::VFromD<D8>;

// Blocks whose integer sums are reduced and folded into the float lanes
// together: dot.h's 8 lanes, lane b % 8.
constexpr int64_t kGroup = kDotLanes;

// How a block stores its scale d_w: an f16 (every format but one), or
// MXFP4's E8M0 exponent byte e, d_w = 2^(e - 128) (quant::E8M0ToFloatHalf,
// exact: the frames below take e as a uint16 and make the float's bits).
enum class BlockScale { kF16, kE8M0 };

#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define TRIT_X86 1
#endif
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define TRIT_X86_256 1  // D8 is one 256-bit vector
#endif

// acc + sums of q * a (lanes hold partial sums: only their total is used),
// q unsigned (< 128 wherever a pair could saturate int16 without VNNI:
// 2 * 127 * 128 < 32768), a signed.
HWY_INLINE V32 MulAddU8I8(VU8 q, VI8 a, V32 acc) {
#if HWY_TARGET == HWY_AVX3_DL
  // VNNI: exact, never saturates. Highway 1.0's AVX3_DL target enables
  // AVX-VNNI (VEX) instead of AVX512-VNNI, and the CPUs of that target (Ice
  // Lake, Zen 4) have only the EVEX form, so it is spelled out.
  __m256i sum = acc.raw;
  asm("%{evex%} vpdpbusd %2, %1, %0" : "+v"(sum) : "v"(q.raw), "vm"(a.raw));
  return V32{sum};
#elif HWY_TARGET == HWY_SSE4
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

// acc + sums of w * a, both signed, a in [-127, 127] (no VNNI path: with
// VNNI the Q8_0 kernel offsets w to unsigned instead).
HWY_INLINE V32 MulAddI8I8(VI8 w, VI8 a, V32 acc) {
#if HWY_TARGET == HWY_SSE4
  // |w| * (a with w's sign): |w| <= 128 as unsigned, so no pair saturates.
  const __m128i p = _mm_maddubs_epi16(_mm_sign_epi8(w.raw, w.raw), _mm_sign_epi8(a.raw, w.raw));
  return acc + V32{_mm_madd_epi16(p, _mm_set1_epi16(1))};
#elif defined(TRIT_X86_256)
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

// sum q a over 16 elements, q unsigned, a signed, exact (the portable path).
HWY_INLINE int32_t Dot16U8I8(const uint8_t* q, const int8_t* a) {
  const hn::CappedTag<int16_t, 16> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  const hn::Rebind<uint8_t, decltype(d16)> du8;
  const hn::Rebind<int8_t, decltype(d16)> di8;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  auto s0 = hn::Zero(d32), s1 = hn::Zero(d32);
  for (int64_t p = 0; p < 16; p += static_cast<int64_t>(hn::Lanes(d16))) {
    const auto qv = hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(du8, q + p)));
    s0 = hn::ReorderWidenMulAccumulate(d32, qv, hn::PromoteTo(d16, hn::LoadU(di8, a + p)), s0, s1);
  }
  return ReduceI32(d32, s0 + s1);
}

// out[i] = sum of the lanes of v[i], i < kGroup; on x86 by horizontal adds
// in registers (exact: integers).
HWY_INLINE void ReduceGroup(const V32* v, int32_t* out) {
#if defined(TRIT_X86_256)
  const __m256i h01 = _mm256_hadd_epi32(v[0].raw, v[1].raw);
  const __m256i h23 = _mm256_hadd_epi32(v[2].raw, v[3].raw);
  const __m256i h45 = _mm256_hadd_epi32(v[4].raw, v[5].raw);
  const __m256i h67 = _mm256_hadd_epi32(v[6].raw, v[7].raw);
  const __m256i h03 = _mm256_hadd_epi32(h01, h23);  // blocks 0-3: low 128 bits | high 128 bits
  const __m256i h47 = _mm256_hadd_epi32(h45, h67);
  const __m256i sum = _mm256_add_epi32(_mm256_permute2x128_si256(h03, h47, 0x20),
                                       _mm256_permute2x128_si256(h03, h47, 0x31));
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), sum);
#elif HWY_TARGET == HWY_SSE4
  for (int i = 0; i < kGroup; i += 4) {
    const __m128i h01 = _mm_hadd_epi32(v[i].raw, v[i + 1].raw);
    const __m128i h23 = _mm_hadd_epi32(v[i + 2].raw, v[i + 3].raw);
    _mm_store_si128(reinterpret_cast<__m128i*>(out + i), _mm_hadd_epi32(h01, h23));
  }
#else
  const D32 d32;
  for (int i = 0; i < kGroup; ++i) out[i] = ReduceI32(d32, v[i]);
#endif
}

// The float 2^(e - 128) of each lane's exponent e (uint16 at e16, < 256),
// quant::E8M0ToFloatHalf's bits: e < 2 the subnormals 0x00200000 << e,
// else (e - 1) << 23.
template <class DF>
HWY_INLINE hn::VFromD<DF> E8M0HalfToFloat(DF df, const uint16_t* e16) {
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> du16;
  const auto e = hn::PromoteTo(du, hn::LoadU(du16, e16));
  const auto one = hn::Set(du, 1u);
  const auto normal = hn::ShiftLeft<23>(hn::Sub(e, one));
  const auto subnormal = hn::IfThenElse(hn::Eq(e, hn::Zero(du)), hn::Set(du, 0x00200000u), hn::Set(du, 0x00400000u));
  return hn::BitCast(df, hn::IfThenElse(hn::Lt(e, hn::Set(du, 2u)), subnormal, normal));
}

// For the kGroup lanes i < n (the rest padded with zeros):
//   acc[i] += (w_scale[i] * a_scale[i]) * float(isum[i] - (a_sum[i] << kShift))
// (no a_sum term when kShift < 0), lane by lane, one rounding per operation;
// with weight mins (q4_1, q5_1: x = d q + m) the sum gets a second term:
//   acc[i] += (w_scale * a_scale) * float(isum) + (w_min * a_scale) * float(a_sum).
// scale_bits holds f16 bits, or with kE8M0 the exponent bytes e (uint16).
template <int kShift, bool kMin = false, BlockScale kScale = BlockScale::kF16>
HWY_INLINE void CombineGroup(float* HWY_RESTRICT acc, const int32_t* isum, const uint16_t* scale_bits,
                             const float* a_scale, const int32_t* a_sum, int64_t n,
                             const uint16_t* min_bits = nullptr) {
  const hn::CappedTag<float, kGroup> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  HWY_ALIGN float scale_pad[kGroup];
  HWY_ALIGN int32_t sum_pad[kGroup];
  if (n < kGroup) {  // the last, partial group of a row
    for (int64_t i = 0; i < kGroup; ++i) {
      scale_pad[i] = i < n ? a_scale[i] : 0.0f;
      sum_pad[i] = (i < n && (kShift >= 0 || kMin)) ? a_sum[i] : 0;
    }
    a_scale = scale_pad;
    a_sum = sum_pad;
  }
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(df));
  for (int64_t i = 0; i < kGroup; i += kL) {
    hn::VFromD<decltype(df)> ws;
    if constexpr (kScale == BlockScale::kE8M0) {
      ws = E8M0HalfToFloat(df, scale_bits + i);
    } else {
      // f16 -> f32 is exact on every target (F16C or Highway's emulation).
      ws = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(scale_bits + i)));
    }
    auto is = hn::LoadU(di, isum + i);
    if constexpr (kShift >= 0) is = is - hn::ShiftLeft<kShift>(hn::LoadU(di, a_sum + i));
    const auto as = hn::LoadU(df, a_scale + i);
    auto term = (ws * as) * hn::ConvertTo(df, is);
    if constexpr (kMin) {
      const auto ms = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(min_bits + i)));
      term = term + (ms * as) * hn::ConvertTo(df, hn::LoadU(di, a_sum + i));
    }
    hn::Store(hn::Load(df, acc + i) + term, df, acc + i);
  }
}

// The shared frame of the quantized kernels. block_dot(block, b, v) sets, for
// r < n_a, v[r] to int32 lanes whose total is the exact dot product of weight
// block b with activation row r's block b, less the type's offset times the
// activation block sum (taken out here: - a_sum << kShift). Per weight row
// and activation row, in increasing b: acc[b % 8] += (d_w * d_a) * isum,
// then the fixed tree of dot.h.
// kMinOffset >= 0: the block has an f16 min there (CombineGroup's kMin).
// kScale: the scale at scale_offset is an f16, or one E8M0 byte (MXFP4).
template <int64_t kRows, int kShift, class BlockDot, int64_t kMinOffset = -1, BlockScale kScale = BlockScale::kF16>
HWY_INLINE void QuantRows(const QuantDotArgs& g, int64_t block_bytes, int64_t scale_offset,
                          const BlockDot& block_dot) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;  // a constant for decode (1 row): accumulators stay in registers
  const D32 d32;
  for (int64_t o = 0; o < g.n_w; ++o) {
    const uint8_t* w = g.w + o * g.w_row_bytes;
    HWY_ALIGN float acc[kRowTile][kGroup] = {};
    for (int64_t b0 = 0; b0 < g.n_blocks; b0 += kGroup) {
      const int64_t nb = std::min(kGroup, g.n_blocks - b0);
      HWY_ALIGN uint16_t scale_bits[kGroup];
      HWY_ALIGN uint16_t min_bits[kGroup] = {};
      V32 v[kRowTile][kGroup];
      auto one_block = [&](int64_t i) {
        const uint8_t* block = w + (b0 + i) * block_bytes;
        if constexpr (kScale == BlockScale::kE8M0) {
          scale_bits[i] = block[scale_offset];
        } else {
          std::memcpy(&scale_bits[i], block + scale_offset, 2);
        }
        if constexpr (kMinOffset >= 0) std::memcpy(&min_bits[i], block + kMinOffset, 2);
        V32 vb[kRowTile];
        block_dot(block, b0 + i, vb);
        for (int64_t r = 0; r < n_a; ++r) v[r][i] = vb[r];
      };
      if (nb == kGroup) {
#pragma GCC unroll 8
        for (int64_t i = 0; i < kGroup; ++i) one_block(i);
      } else {
        for (int64_t i = 0; i < nb; ++i) one_block(i);
        for (int64_t i = nb; i < kGroup; ++i) {
          scale_bits[i] = 0;
          for (int64_t r = 0; r < n_a; ++r) v[r][i] = hn::Zero(d32);
        }
      }
      for (int64_t r = 0; r < n_a; ++r) {
        HWY_ALIGN int32_t isum[kGroup];
        ReduceGroup(v[r], isum);
        CombineGroup<kShift, (kMinOffset >= 0), kScale>(acc[r], isum, scale_bits, g.a_scale + r * g.n_blocks + b0,
                                                        g.a_sum + r * g.n_blocks + b0, nb, min_bits);
      }
    }
    for (int64_t r = 0; r < n_a; ++r) g.y[o + r * g.y_stride] = DotReduce(acc[r]);
  }
}

// The frame of the types with a min per sub-block, x = d sc q - dmin m
// (q2_K, q4_K, q5_K): block_dot(block, b, va, vb) sets, for r < n_a, va[r]
// and vb[r] to int32 lanes whose totals are the exact A_b = sum_s sc_s
// sum q a and B_b = sum_s m_s sum a of weight block b with activation row r.
// Per weight row and activation row, in increasing b:
//   acc[b % 8] += (d * d_a) * A_b - (dmin * d_a) * B_b
// (8 blocks at once, lane b % 8, one rounding per operation), then the fixed
// tree of dot.h. d and dmin are the f16 pair at d_offset of each block.
template <int64_t kRows, class BlockDot>
HWY_INLINE void QuantRowsWithMins(const QuantDotArgs& g, int64_t block_bytes, int64_t d_offset,
                                  const BlockDot& block_dot) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D32 d32;
  const hn::CappedTag<float, kGroup> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(df));
  for (int64_t o = 0; o < g.n_w; ++o) {
    const uint8_t* w = g.w + o * g.w_row_bytes;
    HWY_ALIGN float acc[kRowTile][kGroup] = {};
    for (int64_t b0 = 0; b0 < g.n_blocks; b0 += kGroup) {
      const int64_t nb = std::min(kGroup, g.n_blocks - b0);
      HWY_ALIGN uint16_t d_bits[kGroup] = {};
      HWY_ALIGN uint16_t dmin_bits[kGroup] = {};
      V32 va[kRowTile][kGroup];
      V32 vb[kRowTile][kGroup];
      auto one_block = [&](int64_t i) {
        const uint8_t* block = w + (b0 + i) * block_bytes;
        std::memcpy(&d_bits[i], block + d_offset, 2);
        std::memcpy(&dmin_bits[i], block + d_offset + 2, 2);
        V32 a_part[kRowTile];
        V32 b_part[kRowTile];
        block_dot(block, b0 + i, a_part, b_part);
        for (int64_t r = 0; r < n_a; ++r) va[r][i] = a_part[r], vb[r][i] = b_part[r];
      };
      if (nb == kGroup) {
#pragma GCC unroll 8
        for (int64_t i = 0; i < kGroup; ++i) one_block(i);
      } else {
        for (int64_t i = 0; i < nb; ++i) one_block(i);
        for (int64_t i = nb; i < kGroup; ++i) {
          for (int64_t r = 0; r < n_a; ++r) va[r][i] = vb[r][i] = hn::Zero(d32);
        }
      }
      for (int64_t r = 0; r < n_a; ++r) {
        HWY_ALIGN int32_t a_tot[kGroup];
        HWY_ALIGN int32_t b_tot[kGroup];
        ReduceGroup(va[r], a_tot);
        ReduceGroup(vb[r], b_tot);
        HWY_ALIGN float da[kGroup] = {};
        std::copy(g.a_scale + r * g.n_blocks + b0, g.a_scale + r * g.n_blocks + b0 + nb, da);
        for (int64_t i = 0; i < kGroup; i += kL) {
          // f16 -> f32 is exact on every target (F16C or Highway's emulation).
          const auto dv = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(d_bits + i)));
          const auto dminv = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(dmin_bits + i)));
          const auto dav = hn::Load(df, da + i);
          const auto term = (dv * dav) * hn::ConvertTo(df, hn::Load(di, a_tot + i)) -
                            (dminv * dav) * hn::ConvertTo(df, hn::Load(di, b_tot + i));
          hn::Store(hn::Load(df, acc[r] + i) + term, df, acc[r] + i);
        }
      }
    }
    for (int64_t r = 0; r < n_a; ++r) g.y[o + r * g.y_stride] = DotReduce(acc[r]);
  }
}

// int32 lanes whose total is `total` (a block_dot result computed as one integer).
HWY_INLINE V32 OneLane(int32_t total) {
  const D32 d32;
  return hn::IfThenElseZero(hn::FirstN(d32, 1), hn::Set(d32, total));
}

// sum_s sc[s] (sum q a - offset sums[s]) over the 16 sub-blocks of 16 of a
// 256-block, q unsigned, exact: the portable path of the K-quants with 16
// sub-blocks (q2_K with offset 0, q3_K, q6_K).
HWY_INLINE int32_t ScaledSums16(const uint8_t* q, const int8_t* a, const int32_t* sums, const int8_t* sc,
                                int32_t offset) {
  int32_t total = 0;
  for (int64_t s = 0; s < 16; ++s) total += sc[s] * (Dot16U8I8(q + 16 * s, a + 16 * s) - offset * sums[s]);
  return total;
}

#ifdef TRIT_X86_256
// The int16 sub-block scales of the K-quants laid out in halves (q2_K, q3_K,
// q6_K: element 128h + 32i + l of a 256-block, i < 4, l < 32, has scale
// 8h + 2i + l / 16), spread for madd against the maddubs pairs of group i of
// half h: with sc16 = sc[0..7] | sc[8..15] as int16, Group(Half(sc16, h), i)
// holds scale 8h + 2i in its low 128 bits (elements l < 16) and 8h + 2i + 1
// in its high 128 bits.
struct HalfGroupScales {
  __m256i pick[4];
  HalfGroupScales() {
    for (int i = 0; i < 4; ++i) {
      pick[i] = _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(((4 * i + 3) << 8) | (4 * i + 2))),
                                 _mm_set1_epi16(static_cast<int16_t>(((4 * i + 1) << 8) | (4 * i))));
    }
  }
  static __m256i Half(__m256i sc16, int h) {
    return h == 0 ? _mm256_permute2x128_si256(sc16, sc16, 0x00) : _mm256_permute2x128_si256(sc16, sc16, 0x11);
  }
  __m256i Group(__m256i half, int i) const { return _mm256_shuffle_epi8(half, pick[i]); }
};

// acc[r] += the pairs of q (32 unsigned quants) times activation row r's 32
// int8 at a + r * a_stride (maddubs), times the pairs' int16 scales (madd),
// for r < n_a. Exact while 2 q_max 127 < 32768 (q < 128).
HWY_INLINE void AddScaledPairs(__m256i q, __m256i scale, const int8_t* a, int64_t a_stride, int64_t n_a, V32* acc) {
  for (int64_t r = 0; r < n_a; ++r) {
    const __m256i pairs = _mm256_maddubs_epi16(q, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + r * a_stride)));
    acc[r] = acc[r] + V32{_mm256_madd_epi16(pairs, scale)};
  }
}
#endif

#ifdef TRIT_X86
using D16 = hn::RepartitionToWide<D8>;
using V16 = hn::VFromD<D16>;
// Pairwise q * a as int16 (q unsigned, a signed; the callers keep every sum
// of such pairs below 32768).
HWY_INLINE V16 MulPairsU8I8(VU8 q, VI8 a) {
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

#ifdef TRIT_X86_256
// E8M0HalfToFloat for the 8 uint16 exponents of e16 (QuantRows8's scales).
HWY_INLINE hn::VFromD<hn::CappedTag<float, 8>> E8M0HalfToFloat8(__m128i e16) {
  const __m256i e = _mm256_cvtepu16_epi32(e16);
  const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23);
  const __m256i subnormal = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), e);  // used for e < 2 only
  const __m256i small = _mm256_cmpgt_epi32(_mm256_set1_epi32(2), e);
  return hn::VFromD<hn::CappedTag<float, 8>>{_mm256_castsi256_ps(_mm256_blendv_epi8(normal, subnormal, small))};
}
#endif

#ifdef TRIT_X86_256
// Batches of 32-element formats, 8 weight rows at once: lane j of every
// vector belongs to weight row o + j. decode(b, w, scales, mins) gives
// block b of the 8 rows transposed by 4-byte groups in w[s], s < 8 (lane j
// holds row j's 4 quants of elements 4s..4s+3) and the rows' 8 f16 scales
// (and mins, with kMin). One dot-product step then covers 4 elements of 8
// rows against one broadcast group of activations, and a block's 8 integer
// sums come out already reduced (no horizontal adds). Per
// (row, block) the integers and the float steps are QuantRows's, so the bits
// are those of the one-row path. kSigned: w[s] holds signed quants (the
// sign trick of MulAddI8I8), else unsigned ones with the offset taken out as
// a_sum << kShift. kMin: the rows' f16 mins too (q4_1, q5_1), CombineGroup's
// second term. kMaxQ: the largest unsigned quant; without VNNI, as many
// maddubs steps as stay exact (no int16 pair sum past 32767) are added in
// int16 before one madd: fewer multiply-port operations, the same integers.
// kScale kE8M0: decode's scales are the rows' 8 E8M0 exponents as uint16
// (MXFP4), made into floats as CombineGroup makes them.
template <int64_t kRows, int kShift, bool kSigned, bool kMin, int kMaxQ, BlockScale kScale = BlockScale::kF16,
          class Decode>
HWY_INLINE void QuantRows8(const QuantDotArgs& g, const Decode& decode) {
  constexpr int kExact = 32767 / (2 * kMaxQ * 127);  // maddubs results whose sum fits int16
  constexpr int kInt16Steps = (kSigned || HWY_TARGET == HWY_AVX3_DL) ? 1 : kExact >= 8 ? 8 : kExact >= 4 ? 4 : 1;
  static_assert(kInt16Steps == 1 || kInt16Steps * 2 * kMaxQ * 127 <= 32767, "int16 sums must not wrap");
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D8 d8;
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  VF acc[kGroupRowTile][kGroup];
  for (int64_t r = 0; r < n_a; ++r) {
    for (int64_t k = 0; k < kGroup; ++k) acc[r][k] = hn::Zero(df);
  }
  auto one_block = [&](int64_t b, int64_t k) {
    __m256i w[8];
    __m128i scale_bits, min_bits = _mm_setzero_si128();  // the 8 rows' f16 scales (and mins)
    decode(b, w, scale_bits, min_bits);
    const VF ws = kScale == BlockScale::kE8M0 ? E8M0HalfToFloat8(scale_bits) : VF{_mm256_cvtph_ps(scale_bits)};  // exact
    const VF ms{_mm256_cvtph_ps(min_bits)};
    for (int64_t r = 0; r < n_a; ++r) {
      const int8_t* a = g.a + r * g.a_stride + b * 32;
      auto group = [&](int s) {  // activations 4s..4s+3, broadcast
        int32_t bits;
        std::memcpy(&bits, a + 4 * s, 4);
        return hn::BitCast(d8, hn::Set(d32, bits));
      };
      V32 isum;
      if constexpr (kInt16Steps > 1) {
        auto pairs = [&](int s) { return _mm256_maddubs_epi16(w[s], group(s).raw); };
        auto four = [&](int s) {
          return _mm256_add_epi16(_mm256_add_epi16(pairs(s), pairs(s + 1)), _mm256_add_epi16(pairs(s + 2), pairs(s + 3)));
        };
        const __m256i ones = _mm256_set1_epi16(1);
        if constexpr (kInt16Steps == 8) {
          isum = V32{_mm256_madd_epi16(_mm256_add_epi16(four(0), four(4)), ones)};
        } else {
          isum = V32{_mm256_add_epi32(_mm256_madd_epi16(four(0), ones), _mm256_madd_epi16(four(4), ones))};
        }
      } else {
        V32 s0 = hn::Zero(d32), s1 = hn::Zero(d32);
        for (int s = 0; s < 8; ++s) {
          V32& sum = (s & 1) != 0 ? s1 : s0;
          if constexpr (kSigned) {
            sum = MulAddI8I8(VI8{w[s]}, group(s), sum);
          } else {
            sum = MulAddU8I8(VU8{w[s]}, group(s), sum);
          }
        }
        isum = s0 + s1;
      }
      const int32_t a_sum = g.a_sum[r * g.n_blocks + b];
      if constexpr (kShift >= 0) isum = isum - hn::Set(d32, a_sum * (1 << kShift));
      const VF as = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      VF term = (ws * as) * hn::ConvertTo(df, isum);
      if constexpr (kMin) term = term + (ms * as) * hn::ConvertTo(df, hn::Set(d32, a_sum));
      acc[r][k] = acc[r][k] + term;
    }
  };
  for (int64_t b0 = 0; b0 < g.n_blocks; b0 += kGroup) {
    if (b0 + kGroup <= g.n_blocks) {
#pragma GCC unroll 8
      for (int64_t k = 0; k < kGroup; ++k) one_block(b0 + k, k);
    } else {
      for (int64_t k = 0; b0 + k < g.n_blocks; ++k) one_block(b0 + k, k);
    }
  }
  for (int64_t r = 0; r < n_a; ++r) {
    const VF* l = acc[r];
    hn::StoreU(((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])), df, g.y + r * g.y_stride);
  }
}

// Q4_0 nibbles of 4-byte groups t (w[t] low, elements 4t..; w[4 + t] high, 16 + 4t..).
HWY_INLINE void SplitNibbles(const __m256i* quad, __m256i* w) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  for (int t = 0; t < 4; ++t) {
    w[t] = _mm256_and_si256(quad[t], nibble);
    w[4 + t] = _mm256_and_si256(_mm256_srli_epi16(quad[t], 4), nibble);
  }
}

// Q5_0/Q5_1: bit 4 of every quant of w (DecodeNibbles8's order: byte i of
// w[u], lane j, is element 4u + i of row j) from bit 4u + i of lane j of qh.
// Byte u / 2 of the word goes to the lane's 4 bytes (one shuffle serves u =
// 2v and 2v + 1), each byte keeps its bit (a compare), 16 where it is set.
HWY_INLINE void FifthBits8(__m256i qh, __m256i* w) {
  const __m256i lanes = _mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0C0C0C0C, 0, 0x04040404, 0x08080808, 0x0C0C0C0C);
  const __m256i lo_bits = _mm256_set1_epi32(0x08040201), hi_bits = _mm256_set1_epi32(static_cast<int32_t>(0x80402010u));
  const __m256i sixteen = _mm256_set1_epi8(0x10);
  for (int v = 0; v < 4; ++v) {
    const __m256i bytes = _mm256_shuffle_epi8(qh, _mm256_add_epi8(lanes, _mm256_set1_epi8(static_cast<char>(v))));
    const __m256i lo = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, lo_bits), lo_bits);
    const __m256i hi = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, hi_bits), hi_bits);
    w[2 * v] = _mm256_or_si256(w[2 * v], _mm256_and_si256(lo, sixteen));
    w[2 * v + 1] = _mm256_or_si256(w[2 * v + 1], _mm256_and_si256(hi, sixteen));
  }
}

// The 16 bytes of 4-bit quants at qs of 8 rows (rb apart): w[t] low
// nibbles (elements 4t..), w[4 + t] high nibbles (16 + 4t..).
HWY_INLINE void DecodeNibbles8(const uint8_t* qs, int64_t rb, __m256i* w) {
  auto row = [&](int64_t j) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs + j * rb)); };
  auto pair = [&](int64_t j) { return _mm256_inserti128_si256(_mm256_castsi128_si256(row(j)), row(j + 4), 1); };
  const __m256i r04 = pair(0), r15 = pair(1), r26 = pair(2), r37 = pair(3);
  const __m256i t0 = _mm256_unpacklo_epi32(r04, r15), t1 = _mm256_unpacklo_epi32(r26, r37);
  const __m256i t2 = _mm256_unpackhi_epi32(r04, r15), t3 = _mm256_unpackhi_epi32(r26, r37);
  const __m256i quad[4] = {_mm256_unpacklo_epi64(t0, t1), _mm256_unpackhi_epi64(t0, t1),
                           _mm256_unpacklo_epi64(t2, t3), _mm256_unpackhi_epi64(t2, t3)};
  SplitNibbles(quad, w);
}

// The 8 rows' f16 scales at p + j * rb (scalar loads: a gather was slower on Zen 4).
HWY_INLINE __m128i ScalesOf8Rows(const uint8_t* p, int64_t rb) {
  HWY_ALIGN uint16_t bits[8];
  for (int64_t j = 0; j < 8; ++j) std::memcpy(&bits[j], p + j * rb, 2);
  return _mm_load_si128(reinterpret_cast<const __m128i*>(bits));
}

// The 8 rows' E8M0 exponent bytes at p + j * rb, as uint16 (MXFP4).
HWY_INLINE __m128i ExponentsOf8Rows(const uint8_t* p, int64_t rb) {
  HWY_ALIGN uint16_t bits[8];
  for (int64_t j = 0; j < 8; ++j) bits[j] = p[j * rb];
  return _mm_load_si128(reinterpret_cast<const __m128i*>(bits));
}

#endif  // TRIT_X86_256

// Row layout: batches of 32-element formats go 8 weight rows at a time where
// there is a transposing kernel (x86), the rest of the rows one at a time.
// For one activation row the one-row path is faster from row layout (q4_0
// 5632 x 2048 on Zen 4: 447 vs 1034 us: 8 strided streams); from the
// row-group layout (one stream) the 8-row kernel is. All give the same bits.
template <void (*kRows8One)(const QuantDotArgs&), void (*kRows8Tile)(const QuantDotArgs&),
          void (*kRows8Group)(const QuantDotArgs&), void (*kRows8Any)(const QuantDotArgs&)>
HWY_INLINE QuantDotArgs EightRowGroups(const QuantDotArgs& g) {
  QuantDotArgs rest = g;
  if (g.n_a > 1 || g.row_groups) {
    for (; rest.n_w >= 8; rest.n_w -= 8, rest.w += 8 * g.w_row_bytes, rest.y += 8) {
      g.n_a == 1 ? kRows8One(rest) : g.n_a == kRowTile ? kRows8Tile(rest) : g.n_a == kGroupRowTile ? kRows8Group(rest) : kRows8Any(rest);
    }
  }
  return rest;
}

#ifdef TRIT_X86_256
// The q4_K/q5_K row-group block's parts (repack.h) for 8 rows, lane j row
// j, by UnpackScalesK4's formulas lane by lane: the 6-bit scales sc[s] and
// mins mn[s] (s < 8, int32 per lane) from the three scale words at `words`.
HWY_INLINE void ScalesMinsK4Rows8(const uint8_t* words, __m256i* sc, __m256i* mn) {
  auto load = [&](int64_t w) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 32 * w)); };
  const __m256i low6 = _mm256_set1_epi32(0x3F3F3F3F), low4 = _mm256_set1_epi32(0x0F0F0F0F);
  const __m256i top2 = _mm256_set1_epi32(0x03030303), byte = _mm256_set1_epi32(0xFF);
  const __m256i w0 = load(0), w1 = load(1), w2 = load(2);
  const __m256i sc_lo = _mm256_and_si256(w0, low6);
  const __m256i sc_hi = _mm256_or_si256(_mm256_and_si256(w2, low4),
                                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(w0, 6), top2), 4));
  const __m256i mn_lo = _mm256_and_si256(w1, low6);
  const __m256i mn_hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(w2, 4), low4),
                                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(w1, 6), top2), 4));
  for (int s = 0; s < 4; ++s) {
    auto byte_of = [&](__m256i v) { return _mm256_and_si256(_mm256_srli_epi32(v, 8 * s), byte); };
    sc[s] = byte_of(sc_lo);
    sc[4 + s] = byte_of(sc_hi);
    mn[s] = byte_of(mn_lo);
    mn[4 + s] = byte_of(mn_hi);
  }
}

// The quants of qs unit `q` (8 rows x 4 bytes) of sub-blocks 2j (lo: low
// nibbles) and 2j + 1 (hi), with q5_K's fifth bits from bits 2j and 2j + 1
// of the matching qh unit (16 where set; qh unused for q4_K).
template <bool kFive>
HWY_INLINE void QuantsK4Rows8(__m256i q, const uint8_t* qh_unit, int64_t j, __m256i& lo, __m256i& hi) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  lo = _mm256_and_si256(q, nibble);
  hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble);
  if constexpr (kFive) {
    const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qh_unit));
    const __m256i bit_lo = _mm256_set1_epi8(static_cast<char>(1 << (2 * j)));
    const __m256i bit_hi = _mm256_set1_epi8(static_cast<char>(2 << (2 * j)));
    const __m256i sixteen = _mm256_set1_epi8(16);
    lo = _mm256_or_si256(lo, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, bit_lo), bit_lo), sixteen));
    hi = _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, bit_hi), bit_hi), sixteen));
  } else {
    (void)qh_unit, (void)j;
  }
}

// Row-group blocks stream from memory in decode; the hardware prefetcher
// alone left q8_0 decode at about 40% of the bus on Zen 5 (Qwen3-0.6B Q8_0,
// 2 threads, alternating: 30-32 tok/s, 44-47 with this). Reads the lines of the bytes
// kPrefetchAhead past the `bytes` at p into L1.
inline constexpr int64_t kPrefetchAhead = 2048;
HWY_INLINE void PrefetchAhead(const uint8_t* p, int64_t bytes) {
  for (int64_t l = 0; l < bytes; l += 64) _mm_prefetch(reinterpret_cast<const char*>(p + kPrefetchAhead + l), _MM_HINT_T0);
}
#endif

#ifdef TRIT_X86_256
// The frame of the 8-row kernels of 256-element blocks (one group of 8
// weight rows from the row-group layout; lane j of every vector belongs to
// row j): per activation row kGroup float accumulators, block b into
// accumulator b % kGroup as the one-row kernels fold theirs, then dot.h's
// tree into y. one_block(b, p, a_row, add) reads block b of the group at p
// (block_bytes per row), row r's activations of the block at a_row[r] (one
// pointer per row, so that unrolled steps address them by displacements),
// and adds each row's float term by add(r, term).
template <int64_t kRows, class OneBlock>
HWY_INLINE void Rows8Frame(const QuantDotArgs& g, int64_t block_bytes, const OneBlock& one_block) {
  static_assert(kGroup == 8, "dot.h's tree below folds 8 accumulators");
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  VF acc[kGroupRowTile][kGroup];
  for (int64_t r = 0; r < n_a; ++r) {
    for (int64_t k = 0; k < kGroup; ++k) acc[r][k] = hn::Zero(df);
  }
  for (int64_t b0 = 0; b0 < g.n_blocks; b0 += kGroup) {
    for (int64_t k = 0; k < kGroup && b0 + k < g.n_blocks; ++k) {
      const int64_t b = b0 + k;
      const int8_t* a_row[kGroupRowTile];
      for (int64_t r = 0; r < n_a; ++r) a_row[r] = g.a + r * g.a_stride + b * 256;
      PrefetchAhead(g.w + b * 8 * block_bytes, 8 * block_bytes);
      one_block(b, g.w + b * 8 * block_bytes, a_row, [&](int64_t r, VF term) { acc[r][k] = acc[r][k] + term; });
    }
  }
  for (int64_t r = 0; r < n_a; ++r) {
    const VF* l = acc[r];
    hn::StoreU(((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])), df, g.y + r * g.y_stride);
  }
}

// A row-group matrix (g.row_groups) one group of 8 weight rows at a time:
// rows8(rows, group) with rows an integral_constant of the activation row
// count (1 for decode, kGroupRowTile for full tiles, 0: read at run time).
template <class Rows8>
HWY_INLINE void EachRowGroup(const QuantDotArgs& g, const Rows8& rows8) {
  QuantDotArgs group = g;
  for (; group.n_w > 0; group.n_w -= 8, group.w += 8 * g.w_row_bytes, group.y += 8) {
    if (g.n_a == 1) {
      rows8(std::integral_constant<int64_t, 1>(), group);
    } else if (g.n_a == kGroupRowTile) {
      rows8(std::integral_constant<int64_t, kGroupRowTile>(), group);
    } else {
      rows8(std::integral_constant<int64_t, 0>(), group);
    }
  }
}
#endif

// Row-group layout on targets without an 8-row kernel: each group's rows
// restored to row layout, then the one-row kernel (the same bits).
template <void (*kRowKernel)(const QuantDotArgs&)>
HWY_INLINE void FromRowGroups(const QuantDotArgs& g, quant::GgmlType type) {
  thread_local std::vector<uint8_t> rows;
  rows.resize(static_cast<size_t>(8 * g.w_row_bytes));
  for (int64_t o = 0; o < g.n_w; o += 8) {
    UnpackGroupRows(type, g.w + o * g.w_row_bytes, g.n_blocks, g.w_row_bytes, rows.data());
    for (int64_t r = 0; r < g.n_a; r += kRowTile) {  // the one-row kernels take kRowTile rows at most
      QuantDotArgs part = g;
      part.w = rows.data();
      part.n_w = 8;
      part.row_groups = false;
      part.y = g.y + o + r * g.y_stride;
      part.n_a = std::min(kRowTile, g.n_a - r);
      part.a = g.a + r * g.a_stride;
      part.a_scale = g.a_scale + r * g.n_blocks;
      part.a_sum = g.a_sum + r * g.n_blocks;
      part.a_sum32 = g.a_sum32 + r * (g.a_stride / 32);
      part.a_sum16 = g.a_sum16 != nullptr ? g.a_sum16 + r * (g.a_stride / 16) : nullptr;
      kRowKernel(part);
    }
  }
}

// rows8 for RowLayoutOrGroups: the 8-row kernel template named (its row
// count first, then any further template arguments), where the target has
// one; elsewhere nothing (the name is not declared there).
#undef TRIT_ROWS8
#ifdef TRIT_X86_256
#define TRIT_ROWS8(kernel, ...) \
  [](auto rows, const QuantDotArgs& group) { kernel<decltype(rows)::value __VA_OPT__(, ) __VA_ARGS__>(group); }
#else
#define TRIT_ROWS8(kernel, ...) nullptr
#endif

// A kernel of a type with both layouts: row layout by the one-row kernel;
// row groups by the 8-row one (rows8 = TRIT_ROWS8(...)) where the target has
// it, else each group restored to rows on the fly. The same bits either way.
template <void (*kRowLayout)(const QuantDotArgs&), class Rows8>
HWY_INLINE void RowLayoutOrGroups(const QuantDotArgs& g, quant::GgmlType type, const Rows8& rows8) {
  if (!g.row_groups) {
    kRowLayout(g);
    return;
  }
#ifdef TRIT_X86_256
  (void)type;
  EachRowGroup(g, rows8);
#else
  (void)rows8;
  FromRowGroups<kRowLayout>(g, type);
#endif
}

// The exported kernels: one row (decode) and full tiles (batches) compiled
// with the row count known, a last partial tile with it read at run time.
// All do the same arithmetic per row.
template <class Rows>
HWY_INLINE void ByRowCount(int64_t n_a, const Rows& rows) {
  if (n_a == 1) {
    rows(std::integral_constant<int64_t, 1>());
  } else if (n_a == kRowTile) {
    rows(std::integral_constant<int64_t, kRowTile>());
  } else {
    rows(std::integral_constant<int64_t, 0>());
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels::simd
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#endif  // TRIT_KERNELS_MATMUL_SIMD_INL_H_
