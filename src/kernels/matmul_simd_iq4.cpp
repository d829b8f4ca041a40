// Highway kernels of matmul_simd.h for the 4-bit codebook formats (iq4_nl,
// iq4_xs, mxfp4), compiled once per target (foreach_target) like
// matmul_simd.cpp and dispatched at run time, with its frames and dot steps
// (matmul_simd-inl.h).
//
// Each indexes one 16-entry int8 table with 4-bit quants (quant::kIQ4NLValues
// for the i-quants, quant::kMxfp4Values, twice the E2M1 values, for mxfp4).
// A table fits one 128-bit register, so a byte shuffle (pshufb, Highway's
// TableLookupBytes) turns 16 nibbles (32 on 256-bit x86, one table copy per
// half) into their signed values, and the dot products are then exact int8
// ones (MulAddI8I8). Per block:
//   iq4_nl: isum_b = sum_k v[q_k] a_k                      (32 elements)
//   iq4_xs: isum_b = sum_i (ls_i - 32) sum_k v[q_k] a_k    (8 sub-blocks of 32)
//   mxfp4:  isum_b = sum_k v[q_k] a_k                      (32 elements), with
//           d_w = 2^(e - 128) from the block's E8M0 byte (BlockScale::kE8M0)
// exact (|isum_b| < 2^26), then QuantRows's float step, so every target, row
// count and layout returns the same bits. mxfp4's 8-row kernels look up
// v + 16 (4..28, unsigned) and take 16 a_sum out (kShift 4): the same
// integer, with q4_0's cheaper unsigned steps.
#include "kernels/matmul_simd.h"

#include <cstring>

#include "quant/iq_quants.h"
#include "quant/mxfp4_quants.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_simd_iq4.cpp"
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

// Block layouts (quant/block_formats.h).
constexpr int64_t kNlBytes = 18;   // iq4_nl: d, qs[16]
constexpr int64_t kXsBytes = 136;  // iq4_xs: d, scales_h[2], scales_l[4], qs[128]
constexpr int64_t kXsQs = 8;
constexpr int64_t kMxBytes = 17;   // mxfp4: e, qs[16]

// The 6-bit scale of sub-block i of an iq4_xs block, less 32 (-32..31).
HWY_INLINE int32_t XsScale(const uint8_t* block, int i) { return quant::IQ4XSScale(block + 2, block + 4, i) - 32; }

#ifdef TRIT_X86_256
// A 16-byte table in both 128-bit halves (pshufb looks up within a half).
HWY_INLINE __m256i Codebook(const void* table = quant::kIQ4NLValues) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(static_cast<const __m128i*>(table)));
}

// The 32 values of a group's 16 nibble bytes in element order: low nibbles
// (elements 0..15) in the low half, high nibbles (16..31) in the high half.
HWY_INLINE VI8 Values32(const uint8_t* qs, __m256i codebook) {
  const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
  const __m256i idx = _mm256_and_si256(_mm256_srlv_epi64(both, _mm256_set_epi64x(4, 4, 0, 0)), _mm256_set1_epi8(0x0F));
  return VI8{_mm256_shuffle_epi8(codebook, idx)};
}
#else
// The same into out[0..32) from `table`, 16 lookups at a time where vectors
// hold 16 bytes (SSE4, NEON, EMU128), else one at a time.
HWY_INLINE void Values32(const uint8_t* qs, const int8_t* table, int8_t* out) {
  const hn::CappedTag<int8_t, 16> d;
  if constexpr (hn::MaxLanes(d) == 16) {
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto codebook = hn::LoadU(d, table);
    const auto nibbles = hn::LoadU(du, qs);
    hn::StoreU(hn::TableLookupBytes(codebook, hn::BitCast(d, hn::And(nibbles, hn::Set(du, uint8_t{0x0F})))), d, out);
    hn::StoreU(hn::TableLookupBytes(codebook, hn::BitCast(d, hn::ShiftRight<4>(nibbles))), d, out + 16);
  } else {
    for (int j = 0; j < 16; ++j) {
      out[j] = table[qs[j] & 0x0F];
      out[j + 16] = table[qs[j] >> 4];
    }
  }
}
#endif

// v[r] (kAdd: v[r] +) int32 lanes totalling scale * sum_k v[q_k] a_r[k] for
// the group of 32 at qs against a + r * a_stride, r < n_a, v = table.
template <bool kAdd>
HWY_INLINE void Group32(const uint8_t* qs, const int8_t* a, int64_t a_stride, int64_t n_a, int32_t scale, V32* v,
                        const int8_t* table = quant::kIQ4NLValues) {
  const D8 d8;
  const D32 d32;
#ifdef TRIT_X86_256
  const VI8 w = Values32(qs, Codebook(table));
  const __m256i w_abs = _mm256_sign_epi8(w.raw, w.raw);
  // Pairs |w| (a with w's sign) <= 2 * 127 * 127, times the scale (both
  // int16 halves of each lane) summed in int32: exact.
  const __m256i s16 = _mm256_set1_epi16(static_cast<int16_t>(scale));
  for (int64_t r = 0; r < n_a; ++r) {
    const __m256i pairs = _mm256_maddubs_epi16(w_abs, _mm256_sign_epi8(hn::LoadU(d8, a + r * a_stride).raw, w.raw));
    const V32 t{_mm256_madd_epi16(pairs, s16)};
    v[r] = kAdd ? v[r] + t : t;
  }
#else
  HWY_ALIGN int8_t w[32];
  Values32(qs, table, w);
  const int64_t n = static_cast<int64_t>(hn::Lanes(d8));
  const V32 sv = hn::Set(d32, scale);
  for (int64_t r = 0; r < n_a; ++r) {
    V32 sum = hn::Zero(d32);
    for (int64_t p = 0; p < 32; p += n) sum = MulAddI8I8(hn::Load(d8, w + p), hn::LoadU(d8, a + r * a_stride + p), sum);
    v[r] = kAdd ? v[r] + sum * sv : sum * sv;
  }
#endif
}

// Row layout, up to kRowTile activation rows, one weight row at a time.
template <int64_t kRows>
void DotIQ4_NLRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  QuantRows<kRows, -1>(g, kNlBytes, 0, [&](const uint8_t* block, int64_t b, V32* v) {
    Group32<false>(block + 2, g.a + b * 32, g.a_stride, n_a, 1, v);
  });
}

template <int64_t kRows>
void DotIQ4_XSRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  QuantRows<kRows, -1>(g, kXsBytes, 0, [&](const uint8_t* block, int64_t b, V32* v) {
    const int8_t* a = g.a + b * 256;
    Group32<false>(block + kXsQs, a, g.a_stride, n_a, XsScale(block, 0), v);
    for (int i = 1; i < 8; ++i) Group32<true>(block + kXsQs + 16 * i, a + 32 * i, g.a_stride, n_a, XsScale(block, i), v);
  });
}

template <int64_t kRows>
void DotMXFP4Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  auto block_dot = [&](const uint8_t* block, int64_t b, V32* v) {
    Group32<false>(block + 1, g.a + b * 32, g.a_stride, n_a, 1, v, quant::kMxfp4Values);
  };
  QuantRows<kRows, -1, decltype(block_dot), -1, BlockScale::kE8M0>(g, kMxBytes, 0, block_dot);
}

void DotIQ4_NLRowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotIQ4_NLRows<decltype(rows)::value>(g); });
}
void DotIQ4_XSRowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotIQ4_XSRows<decltype(rows)::value>(g); });
}
void DotMXFP4RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotMXFP4Rows<decltype(rows)::value>(g); });
}

#ifdef TRIT_X86_256
// iq4_nl, 8 weight rows at once (QuantRows8, signed quants): the nibbles of
// 8 rows transposed by 4-byte groups as q4_0's, then looked up.
template <int64_t kRows>
void DotIQ4_NLRows8(const QuantDotArgs& g) {
  const __m256i codebook = Codebook();
  auto values = [&](__m256i* w) {
    for (int s = 0; s < 8; ++s) w[s] = _mm256_shuffle_epi8(codebook, w[s]);
  };
  if (g.row_groups) {
    QuantRows8<kRows, -1, true, false, 127>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
      const uint8_t* p = g.w + b * 8 * kNlBytes;
      PrefetchAhead(p, 8 * kNlBytes);
      scales = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m256i quad[4];
      for (int t = 0; t < 4; ++t) quad[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 16 + 32 * t));
      SplitNibbles(quad, w);
      values(w);
    });
    return;
  }
  QuantRows8<kRows, -1, true, false, 127>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
    const uint8_t* p = g.w + b * kNlBytes;
    DecodeNibbles8(p + 2, g.w_row_bytes, w);
    values(w);
    scales = ScalesOf8Rows(p, g.w_row_bytes);
  });
}

// mxfp4, 8 weight rows at once (QuantRows8, unsigned v + 16 with 16 a_sum
// taken out): the nibbles transposed as q4_0's, then looked up; the rows'
// E8M0 bytes (the first 8 bytes of a row-group block, repack.h) as scales.
template <int64_t kRows>
void DotMXFP4Rows8(const QuantDotArgs& g) {
  const __m256i table = _mm256_add_epi8(Codebook(quant::kMxfp4Values), _mm256_set1_epi8(16));  // 4..28
  auto values = [&](__m256i* w) {
    for (int s = 0; s < 8; ++s) w[s] = _mm256_shuffle_epi8(table, w[s]);
  };
  constexpr int kMaxQ = 28;
  if (g.row_groups) {
    QuantRows8<kRows, 4, false, false, kMaxQ, BlockScale::kE8M0>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
      const uint8_t* p = g.w + b * 8 * kMxBytes;
      PrefetchAhead(p, 8 * kMxBytes);
      scales = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
      __m256i quad[4];
      for (int t = 0; t < 4; ++t) quad[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8 + 32 * t));
      SplitNibbles(quad, w);
      values(w);
    });
    return;
  }
  QuantRows8<kRows, 4, false, false, kMaxQ, BlockScale::kE8M0>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
    const uint8_t* p = g.w + b * kMxBytes;
    DecodeNibbles8(p + 1, g.w_row_bytes, w);
    values(w);
    scales = ExponentsOf8Rows(p, g.w_row_bytes);
  });
}

// iq4_xs from the row-group layout (repack.h), one group of 8 weight rows:
// lane j of every vector belongs to row j. Per 4-byte unit u of the quants
// (sub-block u / 4) one step per activation row gives the 8 rows' partial
// sums, times the rows' sub-block scales (madd against ls - 32 in both int16
// halves of the lane: exact). Per (row, block) the integer is
// DotIQ4_XSRows's, and the float step QuantRows's, so the bits are too.
template <int64_t kRows>
void DotIQ4_XSRows8(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D8 d8;
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  const __m256i codebook = Codebook();
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  auto load = [](const uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); };
  Rows8Frame<kRows>(g, kXsBytes, [&](int64_t b, const uint8_t* p, const int8_t* const* a_row, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
    const __m256i high = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)));
    const __m256i low = load(p + 32);
    V32 total[kGroupRowTile];
    for (int64_t r = 0; r < n_a; ++r) total[r] = hn::Zero(d32);
    for (int i = 0; i < 8; ++i) {
      // ls - 32 of sub-block i per lane, in both int16 halves.
      const __m256i ls = _mm256_sub_epi32(
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(low, 4 * i), _mm256_set1_epi32(15)),
                          _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(high, 2 * i), _mm256_set1_epi32(3)), 4)),
          _mm256_set1_epi32(32));
      const __m256i ls16 = _mm256_or_si256(_mm256_and_si256(ls, _mm256_set1_epi32(0xFFFF)), _mm256_slli_epi32(ls, 16));
      for (int t = 0; t < 4; ++t) {
        const __m256i q = load(p + 64 + 32 * (4 * i + t));
        const __m256i lo = _mm256_shuffle_epi8(codebook, _mm256_and_si256(q, nibble));
        const __m256i hi = _mm256_shuffle_epi8(codebook, _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble));
        const __m256i lo_abs = _mm256_sign_epi8(lo, lo), hi_abs = _mm256_sign_epi8(hi, hi);
        for (int64_t r = 0; r < n_a; ++r) {
          const int8_t* a = a_row[r] + 32 * i + 4 * t;
          int32_t lo_group, hi_group;
          std::memcpy(&lo_group, a, 4);
          std::memcpy(&hi_group, a + 16, 4);
          const __m256i p_lo = _mm256_maddubs_epi16(lo_abs, _mm256_sign_epi8(_mm256_set1_epi32(lo_group), lo));
          const __m256i p_hi = _mm256_maddubs_epi16(hi_abs, _mm256_sign_epi8(_mm256_set1_epi32(hi_group), hi));
          total[r] = total[r] + V32{_mm256_madd_epi16(p_lo, ls16)} + V32{_mm256_madd_epi16(p_hi, ls16)};
          // Opaque to GCC 12's reassociation (see DotQ4_KRows8).
          asm("" : "+x"(total[r].raw));
        }
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
      const VF da = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      add(r, (d * da) * hn::ConvertTo(df, total[r]));
    }
  });
}
#endif

// iq4_nl: 8 rows at a time as EightRowGroups says, the rest by the one-row
// kernel; iq4_xs: row groups by the 8-row kernel, row layout by the one-row
// one (as q4_K). Targets without 8-row kernels restore groups on the fly.
void DotIQ4_NLKernel(const QuantDotArgs& g) {
#ifdef TRIT_X86_256
  const QuantDotArgs rest =
      EightRowGroups<DotIQ4_NLRows8<1>, DotIQ4_NLRows8<kRowTile>, DotIQ4_NLRows8<kGroupRowTile>, DotIQ4_NLRows8<0>>(g);
  if (rest.n_w > 0) DotIQ4_NLRowLayout(rest);
#else
  g.row_groups ? FromRowGroups<DotIQ4_NLRowLayout>(g, quant::GgmlType::kIQ4_NL) : DotIQ4_NLRowLayout(g);
#endif
}

void DotIQ4_XSKernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotIQ4_XSRowLayout>(g, quant::GgmlType::kIQ4_XS, TRIT_ROWS8(DotIQ4_XSRows8));
}

// mxfp4: as iq4_nl.
void DotMXFP4Kernel(const QuantDotArgs& g) {
#ifdef TRIT_X86_256
  const QuantDotArgs rest =
      EightRowGroups<DotMXFP4Rows8<1>, DotMXFP4Rows8<kRowTile>, DotMXFP4Rows8<kGroupRowTile>, DotMXFP4Rows8<0>>(g);
  if (rest.n_w > 0) DotMXFP4RowLayout(rest);
#else
  g.row_groups ? FromRowGroups<DotMXFP4RowLayout>(g, quant::GgmlType::kMXFP4) : DotMXFP4RowLayout(g);
#endif
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

HWY_EXPORT(DotIQ4_NLKernel);
HWY_EXPORT(DotIQ4_XSKernel);
HWY_EXPORT(DotMXFP4Kernel);

void DotIQ4_NL(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotIQ4_NLKernel)(args); }
void DotIQ4_XS(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotIQ4_XSKernel)(args); }
void DotMXFP4(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotMXFP4Kernel)(args); }

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
