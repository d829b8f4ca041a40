// The panel kernels of matmul_panel.h, compiled once per Highway target
// (foreach_target) like matmul_simd.cpp; only AVX3_DL (AVX-512 with VNNI)
// has them: its 64-byte vpdpbusd covers 4 elements of a whole panel of 16
// rows against one broadcast activation group. Other targets report none
// and the caller keeps the 8-row kernels.
//
// Decoding follows the 8-row kernels' formulas lane by lane (DotQ4_KRows8,
// DotQ6_KRows8, DotIQ4_XSRows8, over repack.h's layout); the integers are
// exact and the float steps are written as separate multiplies and adds
// (one rounding each), so the results are theirs bit for bit.
#include "kernels/matmul_panel.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "quant/iq_quants.h"
#include "quant/mxfp4_quants.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_panel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/matmul_simd-inl.h"

HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL

// One decoded block of a panel (16 rows: group 0 in lanes 0..7, group 1 in
// 8..15), 64-byte aligned parts:
//   quants: unit u (elements 4u..4u+3) as 16 rows x 4 unsigned bytes;
//   sub-block scales (16 of q6_K, 8 of the others) and q4_K's mins, int32
//   per row; the rows' block scale d and q4_K's dmin as floats.
constexpr int64_t kUnits = 64;
constexpr int64_t kQuantBytes = kUnits * 64;
constexpr int64_t kScaleOff = kQuantBytes;           // 16 x 64 bytes
constexpr int64_t kMinOff = kScaleOff + 16 * 64;     // 8 x 64 bytes
constexpr int64_t kDOff = kMinOff + 8 * 64;          // 64 bytes
constexpr int64_t kDminOff = kDOff + 64;             // 64 bytes
constexpr int64_t kBlockBytes = kDminOff + 64;
// The same for the formats of 32-element blocks (q4_0, q4_1, q5_0, q5_1,
// q8_0, iq4_nl, mxfp4): 8 units, d, and the min m of q4_1/q5_1.
constexpr int64_t kSmallDOff = 8 * 64;
constexpr int64_t kSmallMinOff = kSmallDOff + 64;
constexpr int64_t kSmallBlockBytes = kSmallMinOff + 64;

// Writes 8 rows' parts into half `g` of a decoded block.
struct DecodedHalf {
  uint8_t* block;
  int64_t g;
  void Quants(int64_t unit, __m256i q) const {
    _mm256_store_si256(reinterpret_cast<__m256i*>(block + unit * 64 + 32 * g), q);
  }
  void Scale(int64_t s, __m256i v) const {
    _mm256_store_si256(reinterpret_cast<__m256i*>(block + kScaleOff + s * 64 + 32 * g), v);
  }
  void Min(int64_t s, __m256i v) const {
    _mm256_store_si256(reinterpret_cast<__m256i*>(block + kMinOff + s * 64 + 32 * g), v);
  }
  void D(int64_t off, const uint8_t* f16x8) const {
    _mm256_store_ps(reinterpret_cast<float*>(block + off + 32 * g),
                    _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(f16x8))));
  }
  // The same from the 8 rows' E8M0 bytes (mxfp4: 2^(e - 128), QuantRows8's conversion).
  void DE8M0(int64_t off, const uint8_t* e8) const {
    _mm256_store_ps(reinterpret_cast<float*>(block + off + 32 * g),
                    E8M0HalfToFloat8(_mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(e8)))).raw);
  }
};

HWY_INLINE __m256i Load256(const uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); }

// Q6_K, one group's block (repack.h: d, scales by 4-byte units, then runs
// of ql_a, ql_b, qh units): unit t of half h gives elements 128h + 32i +
// 4t.. for i < 4 (DotQ6_KRows8), i.e. unit 32h + 8i + t.
HWY_INLINE void DecodeQ6_K(const uint8_t* p, const DecodedHalf& out) {
  constexpr int64_t kScales = 16, kRuns = kScales + 8 * 16;
  out.D(kDOff, p);
  for (int w = 0; w < 4; ++w) {
    const __m256i words = Load256(p + kScales + 32 * w);
    for (int c = 0; c < 4; ++c) {
      out.Scale(4 * w + c, _mm256_srai_epi32(_mm256_slli_epi32(words, 24 - 8 * c), 24));  // int8, sign-extended
    }
  }
  const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
  for (int h = 0; h < 2; ++h) {
    for (int t = 0; t < 8; ++t) {
      const uint8_t* run = p + kRuns + 96 * (8 * h + t);
      const __m256i ql_a = Load256(run), ql_b = Load256(run + 32), qh = Load256(run + 64);
      const __m256i top[4] = {_mm256_slli_epi16(qh, 4), _mm256_slli_epi16(qh, 2), qh, _mm256_srli_epi16(qh, 2)};
      for (int i = 0; i < 4; ++i) {
        const __m256i ql = (i & 1) != 0 ? ql_b : ql_a;
        const __m256i nib = _mm256_and_si256(i < 2 ? ql : _mm256_srli_epi16(ql, 4), m4);
        out.Quants(32 * h + 8 * i + t, _mm256_or_si256(nib, _mm256_and_si256(top[i], m30)));
      }
    }
  }
}

// Q4_K (kFive: Q5_K), one group's block (repack.h: d, dmin, the scale words,
// [qh units], qs units): UnpackScalesK4's formulas per lane; qs unit s of
// sub-block pair j gives elements 64j + 4s.. (low nibbles, unit 16j + s)
// and 64j + 32 + 4s.. (high, unit 16j + 8 + s), the fifth bits from qh unit s.
template <bool kFive>
HWY_INLINE void DecodeQ4_K(const uint8_t* p, const DecodedHalf& out) {
  constexpr int64_t kGroupQh = 128, kGroupQs = kFive ? 128 + 8 * 32 : 128;
  out.D(kDOff, p);
  out.D(kDminOff, p + 16);
  __m256i sc[8], mn[8];
  ScalesMinsK4Rows8(p + 32, sc, mn);
  for (int s = 0; s < 8; ++s) {
    out.Scale(s, sc[s]);
    out.Min(s, mn[s]);
  }
  for (int j = 0; j < 4; ++j) {
    for (int s = 0; s < 8; ++s) {
      __m256i lo, hi;
      QuantsK4Rows8<kFive>(Load256(p + kGroupQs + 32 * (8 * j + s)), p + kGroupQh + 32 * s, j, lo, hi);
      out.Quants(16 * j + s, lo);
      out.Quants(16 * j + 8 + s, hi);
    }
  }
}

// IQ4_XS, one group's block (repack.h: d, scales_h, scales_l words, qs
// units): sub-block i's scale ls - 32, and qs unit 4i + t's codebook values
// + 128 (unsigned) for elements 32i + 4t.. (unit 8i + t) and 32i + 16 + 4t..
// (unit 8i + 4 + t).
HWY_INLINE void DecodeIQ4_XS(const uint8_t* p, const DecodedHalf& out) {
  out.D(kDOff, p);
  const __m256i high = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)));
  const __m256i low = Load256(p + 32);
  const __m256i codebook =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(quant::kIQ4NLValues)));
  const __m256i nibble = _mm256_set1_epi8(0x0F), flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (int i = 0; i < 8; ++i) {
    out.Scale(i, _mm256_sub_epi32(
                     _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(low, 4 * i), _mm256_set1_epi32(15)),
                                     _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(high, 2 * i), _mm256_set1_epi32(3)), 4)),
                     _mm256_set1_epi32(32)));
    for (int t = 0; t < 4; ++t) {
      const __m256i q = Load256(p + 64 + 32 * (4 * i + t));
      const __m256i lo = _mm256_shuffle_epi8(codebook, _mm256_and_si256(q, nibble));
      const __m256i hi = _mm256_shuffle_epi8(codebook, _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble));
      out.Quants(8 * i + t, _mm256_xor_si256(lo, flip));
      out.Quants(8 * i + 4 + t, _mm256_xor_si256(hi, flip));
    }
  }
}

// TQ2_0, one group's block (repack.h: d, then qs by 4-byte units): at
// shift 2l, unit u holds trit + 1 of elements 128 (u / 8) + 32 l + 4 (u %
// 8).. (DotTQ2_0Rows8), i.e. unit 32 (u / 8) + 8 l + u % 8. No sub-block
// scales: the panel sums its 8 sub-blocks of 32 unscaled.
HWY_INLINE void DecodeTQ2_0(const uint8_t* p, const DecodedHalf& out) {
  out.D(kDOff, p);
  const __m256i three = _mm256_set1_epi8(3);
  for (int u = 0; u < 16; ++u) {
    const __m256i q = Load256(p + 16 + 32 * u);
    for (int l = 0; l < 4; ++l) {
      // 16-bit shifts: the bits that cross into a byte are masked off.
      out.Quants(32 * (u / 8) + 8 * l + u % 8, _mm256_and_si256(_mm256_srli_epi16(q, 2 * l), three));
    }
  }
}

// The 32-element formats, one group's block (repack.h): d (and m), then
// the 8 units of quants (unit s: elements 4s..4s+3), unsigned; kFlip: signed
// values stored + 128 (q8_0, iq4_nl's codebook values).
HWY_INLINE void StoreSmall(const DecodedHalf& out, const uint8_t* p, int64_t min_off, __m256i* w, bool flip) {
  out.D(kSmallDOff, p);
  if (min_off >= 0) out.D(kSmallMinOff, p + min_off);
  for (int s = 0; s < 8; ++s) {
    out.Quants(s, flip ? _mm256_xor_si256(w[s], _mm256_set1_epi8(static_cast<char>(0x80))) : w[s]);
  }
}

// q4_0, q4_1, q5_0, q5_1: the nibbles of the 4 quant units (SplitNibbles:
// low nibbles elements 4t.., high 16 + 4t..) with q5's fifth bits.
template <int64_t kMinPart, int64_t kQhPart, int64_t kQsPart>
HWY_INLINE void DecodeNibbles(const uint8_t* p, const DecodedHalf& out) {
  __m256i quad[4], w[8];
  for (int t = 0; t < 4; ++t) quad[t] = Load256(p + 8 * kQsPart + 32 * t);
  SplitNibbles(quad, w);
  if constexpr (kQhPart >= 0) FifthBits8(Load256(p + 8 * kQhPart), w);
  StoreSmall(out, p, kMinPart >= 0 ? 8 * kMinPart : -1, w, false);
}

HWY_INLINE void DecodeIQ4_NL(const uint8_t* p, const DecodedHalf& out) {
  const __m256i codebook =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(quant::kIQ4NLValues)));
  __m256i quad[4], w[8];
  for (int t = 0; t < 4; ++t) quad[t] = Load256(p + 16 + 32 * t);
  SplitNibbles(quad, w);
  for (int s = 0; s < 8; ++s) w[s] = _mm256_shuffle_epi8(codebook, w[s]);
  StoreSmall(out, p, -1, w, true);
}

// mxfp4 (repack.h: the 8 rows' e, then the quants as q4_0's): the table
// values + 16 (4..28, DotMXFP4Rows8's), the start -16 sum a.
HWY_INLINE void DecodeMXFP4(const uint8_t* p, const DecodedHalf& out) {
  const __m256i table = _mm256_add_epi8(
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(quant::kMxfp4Values))),
      _mm256_set1_epi8(16));
  __m256i quad[4], w[8];
  for (int t = 0; t < 4; ++t) quad[t] = Load256(p + 8 + 32 * t);
  SplitNibbles(quad, w);
  out.DE8M0(kSmallDOff, p);
  for (int s = 0; s < 8; ++s) out.Quants(s, _mm256_shuffle_epi8(table, w[s]));
}

HWY_INLINE void DecodeQ8_0(const uint8_t* p, const DecodedHalf& out) {
  __m256i w[8];
  for (int s = 0; s < 8; ++s) w[s] = Load256(p + 16 + 32 * s);
  StoreSmall(out, p, -1, w, true);
}

// acc += the 4-byte dot products of w's 16 rows with the broadcast group at
// `a` (unsigned x signed, exact). Highway 1.0's AVX3_DL target enables
// AVX-VNNI (VEX, 256-bit) rather than AVX512-VNNI, so it is spelled out.
HWY_INLINE void DotStep(__m512i& acc, __m512i w, const int32_t* a) {
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(w), "m"(*a));
}

// Prefetches into L2 the share of the next panel's bytes (g.next) that
// step `step` of `n_steps` (tile x block) owns: the next decode then reads
// the caches, not memory, and the reads spread over this panel's compute
// (decoding a panel straight from memory stalled on it: 5632 x 2048 q6_K,
// one core, 138 G MACs/s from memory against 210 from the caches).
struct NextPanel {
  const uint8_t* bytes;
  int64_t lines;
  int64_t n_steps;
  void Step(int64_t step) const {
    if (bytes == nullptr) return;
    for (int64_t l = step * lines / n_steps; l < (step + 1) * lines / n_steps; ++l) {
      _mm_prefetch(reinterpret_cast<const char*>(bytes + 64 * l), _MM_HINT_T1);
    }
  }
};

HWY_INLINE NextPanel NextPanelOf(const PanelArgs& g) {
  return NextPanel{g.next, g.next_bytes / 64, std::max<int64_t>(1, g.a->n_tiles * g.n_blocks)};
}

// lane[b % 8] += term, where the lanes start at +0: the first 8 blocks add
// the term to a +0 in a register (the same bits as the sum in memory would
// be, -0 terms included, and no zeroing of 8 x 8 vectors per tile).
HWY_INLINE void AddTerm(__m512* lanes, int64_t b, __m512 term) {
  lanes[b % 8] = _mm512_add_ps(b < 8 ? _mm512_setzero_ps() : lanes[b % 8], term);
}

// dot.h's tree of each row's 8 accumulators into y, for the tile's real
// rows (the last tile is padded) and the panel's 16 or 8 weight rows.
HWY_INLINE void StoreTile(const PanelArgs& g, int64_t t, const __m512 (*acc)[8]) {
  const int64_t n_a = std::min(kPanelTile, g.a->n_rows - t * kPanelTile);
  for (int64_t r = 0; r < n_a; ++r) {
    __m512 l[8];  // lanes no block reached hold +0 (what they started at)
    for (int64_t k = 0; k < 8; ++k) l[k] = k < g.n_blocks ? acc[r][k] : _mm512_setzero_ps();
    const __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(l[0], l[1]), _mm512_add_ps(l[2], l[3])),
                                     _mm512_add_ps(_mm512_add_ps(l[4], l[5]), _mm512_add_ps(l[6], l[7])));
    float* y = g.y + (t * kPanelTile + r) * g.y_stride;
    if (g.n_groups == 2) {
      _mm512_storeu_ps(y, sum);
    } else {
      _mm256_storeu_ps(y, _mm512_castps512_ps256(sum));
    }
  }
}

// out[i] = -(sums[i] << kShift) for i < n (a multiple of 8): the starting
// integers of the sub-blocks whose quants are stored with an unsigned
// offset (q6_K's 32 = 1 << 5, the 128 = 1 << 7 of the signed values),
// made from the activation sums of a tile's rows, 8 at a time.
template <int kShift>
HWY_INLINE void OffsetStarts(const int32_t* sums, int64_t n, int32_t* out) {
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(s, kShift)));
  }
}

// Every tile of activation rows over a decoded panel. kSubs sub-blocks a
// block (of 256 / kSubs elements: the activation sums per 16 or per 32),
// each starting from -(its activation sum << kShift) (kShift < 0: zero) and
// times its scale (!kScaled: added as it is, tq2_0's sum (t + 1) a - sum a
// by sub-blocks); kMins: q4_K's second integer B = sum_s m_s sum32_s and
// float term.
template <int kSubs, int kShift, bool kMins, bool kScaled = true>
HWY_NOINLINE void PanelTiles(const PanelArgs& g, const uint8_t* panel) {
  constexpr int64_t kN = kPanelTile;
  constexpr int64_t kUnitsPerSub = kUnits / kSubs;
  const PanelActivations& a = *g.a;
  const int64_t n_units = a.n_cols / 4, n_subs = a.n_cols / (256 / kSubs), n32 = a.n_cols / 32;
  const int32_t* sub_sums = kSubs == 16 ? a.sum16.data() : a.sum32.data();  // [t][n_subs][r]
  const NextPanel next = NextPanelOf(g);
  thread_local std::vector<int32_t> tile_starts;  // [n_subs][r]: one tile's starting integers
  tile_starts.resize(static_cast<size_t>(n_subs * kN));
  for (int64_t t = 0; t < a.n_tiles; ++t) {
    if constexpr (kShift >= 0) OffsetStarts<kShift>(sub_sums + t * n_subs * kN, n_subs * kN, tile_starts.data());
    __m512 acc[kN][8];  // lanes b % 8; the first 8 blocks start them (AddTerm)
    for (int64_t b = 0; b < g.n_blocks; ++b) {
      next.Step(t * g.n_blocks + b);
      const uint8_t* block = panel + b * kBlockBytes;
      const int32_t* units = a.units.data() + (t * n_units + b * kUnits) * kN;
      __m512i total[kN];
      for (int64_t r = 0; r < kN; ++r) total[r] = _mm512_setzero_si512();
      const int32_t* starts = tile_starts.data() + b * kSubs * kN;  // [s][r]
#pragma GCC unroll 1
      for (int64_t s = 0; s < kSubs; ++s) {
        __m512i sub[kN];
        if constexpr (kShift >= 0) {
          for (int64_t r = 0; r < kN; ++r) sub[r] = _mm512_set1_epi32(starts[s * kN + r]);
        } else {
          for (int64_t r = 0; r < kN; ++r) sub[r] = _mm512_setzero_si512();
        }
#pragma GCC unroll 8
        for (int64_t k = 0; k < kUnitsPerSub; ++k) {
          const int64_t u = s * kUnitsPerSub + k;
          const __m512i w = _mm512_load_si512(block + u * 64);
          for (int64_t r = 0; r < kN; ++r) DotStep(sub[r], w, units + u * kN + r);
        }
        if constexpr (kScaled) {
          const __m512i scale = _mm512_load_si512(block + kScaleOff + s * 64);
          for (int64_t r = 0; r < kN; ++r) total[r] = _mm512_add_epi32(total[r], _mm512_mullo_epi32(sub[r], scale));
        } else {
          for (int64_t r = 0; r < kN; ++r) total[r] = _mm512_add_epi32(total[r], sub[r]);
        }
      }
      const __m512 d = _mm512_load_ps(reinterpret_cast<const float*>(block + kDOff));
      const float* da_of = a.scale.data() + (t * g.n_blocks + b) * kN;
      if constexpr (kMins) {
        __m512i mins[kN];
        for (int64_t r = 0; r < kN; ++r) mins[r] = _mm512_setzero_si512();
        const int32_t* sums = a.sum32.data() + (t * n32 + b * 8) * kN;
        for (int64_t s = 0; s < 8; ++s) {
          const __m512i m = _mm512_load_si512(block + kMinOff + s * 64);
          for (int64_t r = 0; r < kN; ++r) {
            mins[r] = _mm512_add_epi32(mins[r], _mm512_mullo_epi32(m, _mm512_set1_epi32(sums[s * kN + r])));
          }
        }
        const __m512 dmin = _mm512_load_ps(reinterpret_cast<const float*>(block + kDminOff));
        for (int64_t r = 0; r < kN; ++r) {
          const __m512 da = _mm512_set1_ps(da_of[r]);
          const __m512 term = _mm512_sub_ps(_mm512_mul_ps(_mm512_mul_ps(d, da), _mm512_cvtepi32_ps(total[r])),
                                            _mm512_mul_ps(_mm512_mul_ps(dmin, da), _mm512_cvtepi32_ps(mins[r])));
          AddTerm(acc[r], b, term);
        }
      } else {
        for (int64_t r = 0; r < kN; ++r) {
          const __m512 da = _mm512_set1_ps(da_of[r]);
          const __m512 term = _mm512_mul_ps(_mm512_mul_ps(d, da), _mm512_cvtepi32_ps(total[r]));
          AddTerm(acc[r], b, term);
        }
      }
    }
    StoreTile(g, t, acc);
  }
}

// The formats of 32-element blocks, one float step per block: the integer
// starts at -(sum a << kShift) (the unsigned offset: q4_0 8, q5_0 and
// mxfp4 16, q8_0 and iq4_nl 128; kShift < 0: none), then QuantRows8's step
// (ws * as) * isum, plus (ms * as) * sum a with kMin (q4_1, q5_1).
template <int kShift, bool kMin>
HWY_NOINLINE void PanelTilesSmall(const PanelArgs& g, const uint8_t* panel) {
  constexpr int64_t kN = kPanelTile;
  const PanelActivations& a = *g.a;
  const int64_t n_units = a.n_cols / 4;
  const NextPanel next = NextPanelOf(g);
  thread_local std::vector<int32_t> tile_starts;  // [b][r]: one tile's starting integers
  tile_starts.resize(static_cast<size_t>(g.n_blocks * kN));
  for (int64_t t = 0; t < a.n_tiles; ++t) {
    if constexpr (kShift >= 0) OffsetStarts<kShift>(a.sum32.data() + t * g.n_blocks * kN, g.n_blocks * kN, tile_starts.data());
    __m512 acc[kN][8];  // lanes b % 8; the first 8 blocks start them (AddTerm)
    for (int64_t b = 0; b < g.n_blocks; ++b) {
      next.Step(t * g.n_blocks + b);
      const uint8_t* block = panel + b * kSmallBlockBytes;
      const int32_t* units = a.units.data() + (t * n_units + b * 8) * kN;
      const int32_t* sums = a.sum32.data() + (t * g.n_blocks + b) * kN;  // the tile's 8 rows' block sums
      __m512i isum[kN];
      if constexpr (kShift >= 0) {
        const int32_t* starts = tile_starts.data() + b * kN;
        for (int64_t r = 0; r < kN; ++r) isum[r] = _mm512_set1_epi32(starts[r]);
      } else {
        for (int64_t r = 0; r < kN; ++r) isum[r] = _mm512_setzero_si512();
      }
#pragma GCC unroll 8
      for (int64_t u = 0; u < 8; ++u) {
        const __m512i w = _mm512_load_si512(block + u * 64);
        for (int64_t r = 0; r < kN; ++r) DotStep(isum[r], w, units + u * kN + r);
      }
      const __m512 d = _mm512_load_ps(reinterpret_cast<const float*>(block + kSmallDOff));
      const float* da_of = a.scale.data() + (t * g.n_blocks + b) * kN;
      for (int64_t r = 0; r < kN; ++r) {
        const __m512 da = _mm512_set1_ps(da_of[r]);
        __m512 term = _mm512_mul_ps(_mm512_mul_ps(d, da), _mm512_cvtepi32_ps(isum[r]));
        if constexpr (kMin) {
          const __m512 m = _mm512_load_ps(reinterpret_cast<const float*>(block + kSmallMinOff));
          term = _mm512_add_ps(term, _mm512_mul_ps(_mm512_mul_ps(m, da), _mm512_cvtepi32_ps(_mm512_set1_epi32(sums[r]))));
        }
        AddTerm(acc[r], b, term);
      }
    }
    StoreTile(g, t, acc);
  }
}

// The block size of a type's panel kernel: 256 (K-quants, iq4_xs), 32
// (the 32-element formats), 0 for a type without one.
HWY_INLINE int PanelKind(quant::GgmlType type) {
  using quant::GgmlType;
  switch (type) {
    case GgmlType::kQ4_K:
    case GgmlType::kQ5_K:
    case GgmlType::kQ6_K:
    case GgmlType::kIQ4_XS:
    case GgmlType::kTQ2_0: return 256;
    case GgmlType::kQ4_0:
    case GgmlType::kQ4_1:
    case GgmlType::kQ5_0:
    case GgmlType::kQ5_1:
    case GgmlType::kQ8_0:
    case GgmlType::kIQ4_NL:
    case GgmlType::kMXFP4: return 32;
    default: return 0;
  }
}

bool HasPanelKernelImpl(quant::GgmlType type) { return PanelKind(type) != 0; }

// Decodes one group's block at p (8 rows, repack.h) into its half of a decoded block.
HWY_INLINE void DecodeBlock(quant::GgmlType type, const uint8_t* p, const DecodedHalf& out) {
  using quant::GgmlType;
  switch (type) {
    case GgmlType::kQ4_K: DecodeQ4_K<false>(p, out); break;
    case GgmlType::kQ5_K: DecodeQ4_K<true>(p, out); break;
    case GgmlType::kQ6_K: DecodeQ6_K(p, out); break;
    case GgmlType::kIQ4_XS: DecodeIQ4_XS(p, out); break;
    case GgmlType::kTQ2_0: DecodeTQ2_0(p, out); break;
    // Part offsets in bytes per row (repack.h): d 0, then m, qh, qs.
    case GgmlType::kQ4_0: DecodeNibbles<-1, -1, 2>(p, out); break;
    case GgmlType::kQ4_1: DecodeNibbles<2, -1, 4>(p, out); break;
    case GgmlType::kQ5_0: DecodeNibbles<-1, 2, 6>(p, out); break;
    case GgmlType::kQ5_1: DecodeNibbles<2, 4, 8>(p, out); break;
    case GgmlType::kQ8_0: DecodeQ8_0(p, out); break;
    case GgmlType::kIQ4_NL: DecodeIQ4_NL(p, out); break;
    case GgmlType::kMXFP4: DecodeMXFP4(p, out); break;
    default: TRIT_CHECK(false && "no panel kernel for this type");
  }
}

void GemmPanelImpl(quant::GgmlType type, const PanelArgs& g) {
  using quant::GgmlType;
  TRIT_CHECK(g.n_groups == 1 || g.n_groups == 2);
  const int kind = PanelKind(type);
  TRIT_CHECK(kind != 0);
  const int64_t decoded_bytes = kind == 256 ? kBlockBytes : kSmallBlockBytes;
  thread_local std::vector<uint8_t> scratch;
  scratch.resize(static_cast<size_t>(g.n_blocks * decoded_bytes + 64));
  uint8_t* panel = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  if (g.n_groups == 1) std::memset(panel, 0, static_cast<size_t>(g.n_blocks * decoded_bytes));  // lanes 8..15: zeros
  const int64_t block_bytes = static_cast<int64_t>(quant::GetType(type).type_size);
  for (int64_t grp = 0; grp < g.n_groups; ++grp) {
    const uint8_t* w = g.w + grp * 8 * g.w_row_bytes;
    for (int64_t b = 0; b < g.n_blocks; ++b) DecodeBlock(type, w + b * 8 * block_bytes, DecodedHalf{panel + b * decoded_bytes, grp});
  }
  switch (type) {
    case GgmlType::kQ4_K:
    case GgmlType::kQ5_K: PanelTiles<8, -1, true>(g, panel); break;
    case GgmlType::kQ6_K: PanelTiles<16, 5, false>(g, panel); break;
    case GgmlType::kIQ4_XS: PanelTiles<8, 7, false>(g, panel); break;
    case GgmlType::kTQ2_0: PanelTiles<8, 0, false, false>(g, panel); break;
    case GgmlType::kQ4_0: PanelTilesSmall<3, false>(g, panel); break;
    case GgmlType::kQ5_0:
    case GgmlType::kMXFP4: PanelTilesSmall<4, false>(g, panel); break;
    case GgmlType::kQ4_1:
    case GgmlType::kQ5_1: PanelTilesSmall<-1, true>(g, panel); break;
    case GgmlType::kQ8_0:
    case GgmlType::kIQ4_NL: PanelTilesSmall<7, false>(g, panel); break;
    default: break;
  }
}

#else  // no panel kernels on this target

bool HasPanelKernelImpl(quant::GgmlType) { return false; }
void GemmPanelImpl(quant::GgmlType, const PanelArgs&) { TRIT_CHECK(false && "no panel kernels on this target"); }

#endif

#undef TRIT_X86
#undef TRIT_X86_256
#undef TRIT_ROWS8

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace trit::kernels::simd {

HWY_EXPORT(HasPanelKernelImpl);
HWY_EXPORT(GemmPanelImpl);

bool HasPanelKernel(quant::GgmlType type) { return HWY_DYNAMIC_DISPATCH(HasPanelKernelImpl)(type); }
void GemmPanel(quant::GgmlType type, const PanelArgs& args) { HWY_DYNAMIC_DISPATCH(GemmPanelImpl)(type, args); }

void PreparePanelActivations(const QuantizedRows& a, PanelActivations& out, ThreadPool& pool) {
  TRIT_CHECK((a.block == 256 || a.block == 32) && a.n_cols % a.block == 0);
  const bool large = a.block == 256;
  TRIT_CHECK(!large || !a.sum16.empty());
  constexpr int64_t kN = kPanelTile;
  out.n_rows = a.n_rows;
  out.n_cols = a.n_cols;
  out.block = a.block;
  out.n_tiles = (a.n_rows + kN - 1) / kN;
  const int64_t n_units = a.n_cols / 4, n16 = large ? a.n_cols / 16 : 0, n32 = a.n_cols / 32, nb = a.n_cols / a.block;
  const size_t padded = static_cast<size_t>(out.n_tiles * kN);
  out.units.resize(padded * n_units);
  out.scale.resize(padded * nb);
  out.sum16.resize(padded * n16);
  out.sum32.resize(padded * n32);
  // Row `row`'s entries (row >= n_rows: the last tile's padding, zeros).
  auto fill = [&](int64_t row) {
    const int64_t t = row / kN, r = row % kN;
    const bool real = row < a.n_rows;
    const int8_t* q = a.q.data() + (real ? row : 0) * a.n_cols;
    for (int64_t k = 0; k < n_units; ++k) {
      int32_t unit = 0;
      if (real) std::memcpy(&unit, q + 4 * k, 4);
      out.units[(t * n_units + k) * kN + r] = unit;
    }
    for (int64_t k = 0; k < nb; ++k) out.scale[(t * nb + k) * kN + r] = real ? a.scale[row * nb + k] : 0.0f;
    for (int64_t k = 0; k < n16; ++k) out.sum16[(t * n16 + k) * kN + r] = real ? a.sum16[row * n16 + k] : 0;
    for (int64_t k = 0; k < n32; ++k) out.sum32[(t * n32 + k) * kN + r] = real ? a.sum32[row * n32 + k] : 0;
  };
  pool.ParallelFor(static_cast<int64_t>(padded), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) fill(row);
  });
}

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
