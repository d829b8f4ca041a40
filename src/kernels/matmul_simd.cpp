// Highway kernels of matmul_simd.h, compiled once per target (foreach_target)
// and dispatched at run time. Which targets are compiled is set in
// src/kernels/CMakeLists.txt (HWY_DISABLED_TARGETS); docs/KERNELS.md lists them.
//
// Integer sums of products are exact on every target, and the float steps
// are scalar or lane-wise with one rounding each (-ffp-contract=off: only
// the float dot's fused multiply-adds, written out as FusedMulAddV, fuse),
// so every target returns the same bits.
#include "kernels/matmul_simd.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "base/half.h"
#include "kernels/dot.h"
#include "kernels/repack.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/fused_mul_add-inl.h"
#include "kernels/matmul_simd-inl.h"

// GCC 12 reports zero-initialized accumulators as "maybe uninitialized" once
// the AVX3 copy is vectorized (a false positive; matmul_simd-inl.h too).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using trit::kernels::HWY_NAMESPACE::FusedMulAddV;

// TQ2_0 (66 bytes: qs[64], d): byte j + m (j in {0, 32}, m < 32) holds, in
// bits 2l..2l+1, trit + 1 of element 4j + 32l + m. sum (t+1) a - sum a.
template <int64_t kRows>
void DotTQ2_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
  const auto mask = hn::Set(du8, uint8_t{3});
  QuantRows<kRows, 0>(g, 66, 64, [&](const uint8_t* block, int64_t b, V32* v) {
#if defined(TRIT_X86) && HWY_TARGET != HWY_AVX3_DL
    // int16 sums: at most 16 pairs of 2 * 127 * 2 per lane, far below 32768.
    const D16 d16;
    V16 acc[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(d16);
#else
    // Two accumulators per row: shorter dependency chains.
    V32 acc[kRowTile];
    V32 acc2[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = acc2[r] = hn::Zero(d32);
#endif
    for (int64_t j = 0; j < 64; j += 32) {
      for (int64_t p = 0; p < 32; p += n) {
        const auto q = hn::LoadU(du8, block + j + p);
        const auto t0 = hn::And(q, mask);
#if HWY_TARGET == HWY_SCALAR
        const auto t1 = hn::And(hn::ShiftRight<2>(q), mask);
        const auto t2 = hn::And(hn::ShiftRight<4>(q), mask);
        const auto t3 = hn::ShiftRight<6>(q);
#else
        // Shifts in 16-bit lanes (bits crossing into a byte are masked off).
        const hn::RepartitionToWide<DU8> du16;
        const auto t1 = hn::And(hn::BitCast(du8, hn::ShiftRight<2>(hn::BitCast(du16, q))), mask);
        const auto t2 = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(du16, q))), mask);
        const auto t3 = hn::And(hn::BitCast(du8, hn::ShiftRight<6>(hn::BitCast(du16, q))), mask);
#endif
        for (int64_t r = 0; r < n_a; ++r) {
          const int8_t* a = g.a + r * g.a_stride + b * 256 + 4 * j + p;
#if defined(TRIT_X86) && HWY_TARGET != HWY_AVX3_DL
          acc[r] = acc[r] + ((MulPairsU8I8(t0, hn::LoadU(d8, a)) + MulPairsU8I8(t1, hn::LoadU(d8, a + 32))) +
                             (MulPairsU8I8(t2, hn::LoadU(d8, a + 64)) + MulPairsU8I8(t3, hn::LoadU(d8, a + 96))));
#else
          acc[r] = MulAddU8I8(t1, hn::LoadU(d8, a + 32), MulAddU8I8(t0, hn::LoadU(d8, a), acc[r]));
          acc2[r] = MulAddU8I8(t3, hn::LoadU(d8, a + 96), MulAddU8I8(t2, hn::LoadU(d8, a + 64), acc2[r]));
#endif
        }
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
#if defined(TRIT_X86) && HWY_TARGET != HWY_AVX3_DL
      v[r] = MulPairsI16(acc[r], hn::Set(d16, int16_t{1}));
      (void)d32;
#else
      v[r] = acc[r] + acc2[r];
#endif
    }
  });
}

#ifdef TRIT_X86_256
// Trits of 32 bytes y given with their top bit flipped (z = y ^ 0x80), each
// ((y * 3) >> 8) in {0, 1, 2}: 1 from y >= 86 and 1 more from y >= 171
// (signed compares of z). The thresholds are values GCC 12 cannot see into
// (an empty asm): with constants it rewrites z > -43 as z >= -42 and emits
// that as vpminsb and vpcmpeqb, two operations for one, in tq1_0's hot
// loops. The asm is loop-invariant, so it is hoisted; the compares read the
// thresholds from a register or the stack.
struct TritThresholds {
  __m256i low = _mm256_set1_epi8(-43), high = _mm256_set1_epi8(42);
  TritThresholds() { asm("" : "+x"(low), "+x"(high)); }
};
HWY_INLINE __m256i TritsOfFlipped(__m256i z, const TritThresholds& c) {
  return _mm256_abs_epi8(_mm256_add_epi8(_mm256_cmpgt_epi8(z, c.low), _mm256_cmpgt_epi8(z, c.high)));
}
HWY_INLINE VU8 TritsOfFlipped(VU8 z) { return VU8{TritsOfFlipped(z.raw, TritThresholds())}; }
HWY_INLINE VU8 Flip(VU8 y) { return hn::Xor(y, hn::Set(DU8(), uint8_t{0x80})); }
HWY_INLINE VU8 TritsOf(VU8 y) { return TritsOfFlipped(Flip(y)); }
HWY_INLINE VU8 Times3(VU8 y) { return y + y + y; }  // mod 256
#endif

// TQ1_0 (54 bytes: qs[48], qh[4], d). Trit k of a byte x is
// ((x * 3^k mod 256) * 3) >> 8:
//   qs[m], m < 32:       element 32k + m
//   qs[32 + m], m < 16:  element 160 + 16k + m
//   qh[j], j < 4, k < 4: element 240 + 4k + j
template <int64_t kRows>
void DotTQ1_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
#ifdef TRIT_X86_256
  // Powers of 3 by byte additions (mod 256), trits by compares: 32 trits per
  // vector. The last 16 bytes of qs and the 4 of qh fill three vectors:
  // [x | 3x], [9x | 27x], [81x | qh[j] * 3^k at byte 4k + j].
  const D8 d8;
  const DU8 du8;
  const hn::Half<DU8> du8h;
  const hn::Rebind<uint16_t, decltype(du8h)> du16;
  const hn::Rebind<int16_t, decltype(du8h)> di16;
  HWY_ALIGN static constexpr uint16_t kQhPow[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
  const auto qh_pow = hn::Load(du16, kQhPow);
  QuantRows<kRows, 0>(g, 54, 52, [&](const uint8_t* block, int64_t b, V32* v) {
    V32 acc[kRowTile];
    V32 acc2[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = acc2[r] = hn::Zero(D32());
#if HWY_TARGET == HWY_AVX3_DL
    // With VNNI (exact u8 x s8 products, no int16 saturation) the trits need
    // not be formed: for a byte y, 256 * ((3y) >> 8) = 3y - (3y mod 256), and
    // 3y mod 256 is the next power's byte y3. So sum t a = (3 sum y a -
    // sum y3 a) / 256, exact per lane (each element's term is a multiple of
    // 256): two dot steps per 32 trits instead of a 5-operation decode and one.
    // acc collects y a, acc2 y3 a. For one activation row only: with more,
    // the decode is shared and the dot steps are what costs (measured:
    // prefill 121 -> 96 tok/s the other way).
    constexpr bool kByIdentity = kRows == 1;
    constexpr bool kFlipped = false;
#else
    constexpr bool kByIdentity = false;
    // Without VNNI the bytes are kept with their top bit flipped from the
    // start (z = y ^ 0x80): 3z = 3y + 384 = (3y) ^ 0x80 (mod 256), so every
    // power stays flipped and the trit compares need no xor each. And the
    // maddubs pairs (at most 2 x 2 x 127) are summed in int16 over the
    // block's 8 vectors (|sum| <= 4064 per lane), one madd per block: the
    // same integers, 8 operations per 32 trits instead of 10.
    constexpr bool kFlipped = true;
    const D16 d16;
    V16 acc16[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc16[r] = hn::Zero(d16);
#endif
    auto dot = [&](VU8 y, int64_t first, bool second) {
      if constexpr (kByIdentity) {
        (void)second;
        const VU8 y3 = Times3(y);
        for (int64_t r = 0; r < n_a; ++r) {
          const auto a = hn::LoadU(d8, g.a + r * g.a_stride + b * 256 + first);
          acc[r] = MulAddU8I8(y, a, acc[r]);
          acc2[r] = MulAddU8I8(y3, a, acc2[r]);
        }
        return;
      }
#if HWY_TARGET != HWY_AVX3_DL
      if constexpr (kFlipped) {
        (void)second;
        const auto t = TritsOfFlipped(y);
        for (int64_t r = 0; r < n_a; ++r) {
          acc16[r] = acc16[r] + MulPairsU8I8(t, hn::LoadU(d8, g.a + r * g.a_stride + b * 256 + first));
        }
        return;
      }
#endif
      const auto t = TritsOf(y);
      for (int64_t r = 0; r < n_a; ++r) {
        const auto a = hn::LoadU(d8, g.a + r * g.a_stride + b * 256 + first);
        if (second) {
          acc2[r] = MulAddU8I8(t, a, acc2[r]);
        } else {
          acc[r] = MulAddU8I8(t, a, acc[r]);
        }
      }
    };
    auto y = hn::LoadU(du8, block);
    if constexpr (kFlipped) y = Flip(y);
    for (int64_t k = 0; k < 5; ++k) {
      if (k > 0) y = Times3(y);
      dot(y, 32 * k, (k & 1) != 0);
    }
    auto x = hn::LoadU(du8h, block + 32);
    if constexpr (kFlipped) x = hn::Xor(x, hn::Set(du8h, uint8_t{0x80}));
    auto y2 = hn::Combine(du8, x + x + x, x);  // [x | 3x]
    dot(y2, 160, true);
    y2 = Times3(Times3(y2));  // [9x | 27x]
    dot(y2, 192, false);
    y2 = Times3(Times3(y2));  // [81x | 243x]; the upper half is replaced by qh's trits
    uint32_t qh_bits;
    std::memcpy(&qh_bits, block + 48, 4);
    const auto qh = hn::BitCast(du8h, hn::Set(hn::Repartition<uint32_t, decltype(du8h)>(), qh_bits));
    const auto qh_pow3 = hn::And(hn::PromoteTo(du16, qh) * qh_pow, hn::Set(du16, uint16_t{0xFF}));
    auto qh_trits = hn::DemoteTo(du8h, hn::BitCast(di16, qh_pow3));
    if constexpr (kFlipped) qh_trits = hn::Xor(qh_trits, hn::Set(du8h, uint8_t{0x80}));
    dot(hn::Combine(du8, qh_trits, hn::LowerHalf(du8h, y2)), 224, true);
    for (int64_t r = 0; r < n_a; ++r) {
#if HWY_TARGET != HWY_AVX3_DL
      v[r] = MulPairsI16(acc16[r], hn::Set(d16, int16_t{1}));
#else
      v[r] = kByIdentity ? hn::ShiftRight<8>(acc[r] * hn::Set(D32(), 3) - acc2[r]) : acc[r] + acc2[r];
#endif
    }
  });
#else
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
  QuantRows<kRows, 0>(g, 54, 52, [&](const uint8_t* block, int64_t b, V32* v) {
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
    int32_t tail[kRowTile] = {};  // the 16 trits of qh, in the scalar unit
    for (int64_t k = 0; k < 4; ++k) {
      for (int64_t j = 0; j < 4; ++j) {
        const int32_t t = (static_cast<uint8_t>(block[48 + j] * kPow3[k]) * 3) >> 8;
        for (int64_t r = 0; r < n_a; ++r) tail[r] += t * g.a[r * g.a_stride + b * 256 + 240 + 4 * k + j];
      }
    }
    const D32 d32n;
    for (int64_t r = 0; r < n_a; ++r) {
      // Fold the int32 lanes to D32's width (they are the same bytes); the
      // tail goes into lane 0.
      v[r] = hn::BitCast(d32n, acc[r] + acc2[r]) +
             hn::IfThenElseZero(hn::FirstN(d32n, 1), hn::Set(d32n, tail[r]));
    }
  });
#endif
}

// The 32 quants of a 4- or 5-bit block (q4_0, q4_1, q5_0, q5_1) in element order:
// low nibbles of qs[0..15] (elements 0..15), high nibbles (16..31), bit 4 of
// element j from bit j of the little-endian qh when there is one.
#ifdef TRIT_X86_256
HWY_INLINE VU8 Quants32(const uint8_t* qs, const uint8_t* qh) {
  const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)));
  __m256i q = _mm256_and_si256(_mm256_srlv_epi64(both, _mm256_set_epi64x(4, 4, 0, 0)), _mm256_set1_epi8(0x0F));
  if (qh != nullptr) {
    int32_t bits;
    std::memcpy(&bits, qh, 4);
    // Byte j takes qh's byte j / 8, then keeps bit j % 8: 16 where it is set.
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(bits), _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
    const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    q = _mm256_or_si256(q, _mm256_and_si256(set, _mm256_set1_epi8(0x10)));
  }
  return VU8{q};
}
#endif

// The same one byte at a time, for the other targets.
HWY_INLINE void Quants32Scalar(const uint8_t* qs, const uint8_t* qh, uint8_t* out) {
  uint32_t bits = 0;
  if (qh != nullptr) std::memcpy(&bits, qh, 4);
  for (int j = 0; j < 16; ++j) {
    out[j] = static_cast<uint8_t>((qs[j] & 0x0F) | (((bits >> j) & 1) << 4));
    out[j + 16] = static_cast<uint8_t>((qs[j] >> 4) | (((bits >> (j + 16)) & 1) << 4));
  }
}

// One 32-quant block against the activation rows, the quants unsigned.
template <int64_t kRows>
HWY_INLINE void Dot32Unsigned(const QuantDotArgs& g, int64_t n_a, int64_t b, const uint8_t* qs, const uint8_t* qh,
                              V32* v) {
  const D8 d8;
  const D32 d32;
#ifdef TRIT_X86_256
  const VU8 q = Quants32(qs, qh);
  for (int64_t r = 0; r < n_a; ++r) v[r] = MulAddU8I8(q, hn::LoadU(d8, g.a + r * g.a_stride + b * 32), hn::Zero(d32));
#else
  const DU8 du8;
  HWY_ALIGN uint8_t q[32];
  Quants32Scalar(qs, qh, q);
  const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
  for (int64_t r = 0; r < n_a; ++r) v[r] = hn::Zero(d32);
  for (int64_t p = 0; p < 32; p += n) {
    const auto qv = hn::Load(du8, q + p);
    for (int64_t r = 0; r < n_a; ++r) v[r] = MulAddU8I8(qv, hn::LoadU(d8, g.a + r * g.a_stride + b * 32 + p), v[r]);
  }
#endif
}

// Q4_0 (18 bytes: d, qs[16]): qs[j] holds q + 8 of element j (low nibble) and
// j + 16 (high nibble). sum q a - 8 sum a.
template <int64_t kRows>
void DotQ4_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  QuantRows<kRows, 3>(g, 18, 0, [&](const uint8_t* block, int64_t b, V32* v) {
    Dot32Unsigned<kRows>(g, n_a, b, block + 2, nullptr, v);
  });
}

// The 4- and 5-bit formats of 32 elements: block bytes and the offsets of
// the f16 scale d (0), the f16 min, the 32 bits of qh (-1: none) and qs[16].
// In the row-group layout a part at row offset x starts at 8x of the group's
// block (repack.h: parts in order, each 8 rows wide).
template <int64_t kBytes_, int64_t kMin_, int64_t kQh_, int64_t kQs_>
struct Nibbles {
  static constexpr int64_t kBytes = kBytes_, kMin = kMin_, kQh = kQh_, kQs = kQs_;
  static constexpr int kMaxQ = kQh >= 0 ? 31 : 15;
};
using Q4_0Block = Nibbles<18, -1, -1, 2>;
using Q4_1Block = Nibbles<20, 2, -1, 4>;
using Q5_0Block = Nibbles<22, -1, 2, 6>;
using Q5_1Block = Nibbles<24, 2, 4, 8>;

#ifdef TRIT_X86_256
// Q8_0's 32 int8 quants (block offset 2) of 8 rows: an 8 x 8 transpose of
// 4-byte groups.
HWY_INLINE void DecodeQ8_0x8(const uint8_t* p, int64_t rb, __m256i* w) {
  __m256i r[8];
  for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j * rb + 2));
  __m256i u[8];
  for (int h = 0; h < 8; h += 4) {  // rows h..h+3
    const __m256i t0 = _mm256_unpacklo_epi32(r[h], r[h + 1]), t1 = _mm256_unpackhi_epi32(r[h], r[h + 1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[h + 2], r[h + 3]), t3 = _mm256_unpackhi_epi32(r[h + 2], r[h + 3]);
    u[h + 0] = _mm256_unpacklo_epi64(t0, t2);  // groups 0 | 4 of rows h..h+3
    u[h + 1] = _mm256_unpackhi_epi64(t0, t2);  // groups 1 | 5
    u[h + 2] = _mm256_unpacklo_epi64(t1, t3);  // groups 2 | 6
    u[h + 3] = _mm256_unpackhi_epi64(t1, t3);  // groups 3 | 7
  }
  for (int s = 0; s < 4; ++s) {
    w[s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x20);
    w[4 + s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x31);
  }
}

HWY_INLINE void OffsetQ8_0(__m256i* w) {
#if HWY_TARGET == HWY_AVX3_DL
  for (int s = 0; s < 8; ++s) w[s] = _mm256_xor_si256(w[s], _mm256_set1_epi8(static_cast<char>(0x80)));
#else
  (void)w;
#endif
}

// The 32 bits of qh at p + j * rb of 8 rows, row j in lane j.
HWY_INLINE __m256i WordsOf8Rows(const uint8_t* p, int64_t rb) {
  HWY_ALIGN uint32_t bits[8];
  for (int64_t j = 0; j < 8; ++j) std::memcpy(&bits[j], p + j * rb, 4);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(bits));
}

// 8 rows of a 4- or 5-bit format from the row layout (8 rows rb apart) or
// the row-group layout (repack.h). Unsigned quants; kShift takes the offset
// out (q4_0: 8 = 1 << 3, q5_0: 16 = 1 << 4; -1 for the formats with mins).
// (Lambdas, not function pointers: the decoder must be inlined.)
template <class F, int kShift, int64_t kRows>
void DotNibblesRows8(const QuantDotArgs& g) {
  constexpr bool kMin = F::kMin >= 0;
  const int64_t rb = g.w_row_bytes;
  if (g.row_groups) {
    QuantRows8<kRows, kShift, false, kMin, F::kMaxQ>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i& mins) {
      (void)mins;
      const uint8_t* p = g.w + b * 8 * F::kBytes;
      PrefetchAhead(p, 8 * F::kBytes);
      auto load = [&](int64_t at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + at)); };
      scales = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      if constexpr (kMin) mins = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8 * F::kMin));
      __m256i quad[4];
      for (int t = 0; t < 4; ++t) quad[t] = load(8 * F::kQs + 32 * t);
      SplitNibbles(quad, w);
      if constexpr (F::kQh >= 0) FifthBits8(load(8 * F::kQh), w);
    });
    return;
  }
  QuantRows8<kRows, kShift, false, kMin, F::kMaxQ>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i& mins) {
    (void)mins;
    const uint8_t* p = g.w + b * F::kBytes;
    DecodeNibbles8(p + F::kQs, rb, w);
    if constexpr (F::kQh >= 0) FifthBits8(WordsOf8Rows(p + F::kQh, rb), w);
    scales = ScalesOf8Rows(p, rb);
    if constexpr (kMin) mins = ScalesOf8Rows(p + F::kMin, rb);
  });
}
template <int64_t kRows>
void DotQ8_0Rows8(const QuantDotArgs& g) {
#if HWY_TARGET == HWY_AVX3_DL
  constexpr int kShift = 7;
  constexpr bool kSigned = false;
#else
  constexpr int kShift = -1;
  constexpr bool kSigned = true;
#endif
  const int64_t rb = g.w_row_bytes;
  if (g.row_groups) {
    QuantRows8<kRows, kShift, kSigned, false, 255>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
      const uint8_t* p = g.w + b * 8 * 34;
      PrefetchAhead(p, 8 * 34);
      scales = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      for (int s = 0; s < 8; ++s) w[s] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 16 + 32 * s));
      OffsetQ8_0(w);
    });
    return;
  }
  QuantRows8<kRows, kShift, kSigned, false, 255>(g, [&](int64_t b, __m256i* w, __m128i& scales, __m128i&) {
    const uint8_t* p = g.w + b * 34;
    DecodeQ8_0x8(p, rb, w);
    OffsetQ8_0(w);
    scales = ScalesOf8Rows(p, rb);
  });
}
#endif

// Q4_1 (20 bytes: d, m, qs[16]): x = d q + m, so per block
// (d d_a) sum q a + (m d_a) sum a.
template <int64_t kRows>
void DotQ4_1Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  auto block_dot = [&](const uint8_t* block, int64_t b, V32* v) { Dot32Unsigned<kRows>(g, n_a, b, block + 4, nullptr, v); };
  QuantRows<kRows, -1, decltype(block_dot), 2>(g, 20, 0, block_dot);
}

// Q5_0 (22 bytes: d, qh[4], qs[16]): x = d (q - 16), q in 0..31.
template <int64_t kRows>
void DotQ5_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  auto block_dot = [&](const uint8_t* block, int64_t b, V32* v) { Dot32Unsigned<kRows>(g, n_a, b, block + 6, block + 2, v); };
  QuantRows<kRows, 4>(g, 22, 0, block_dot);
}

// Q5_1 (24 bytes: d, m, qh[4], qs[16]): x = d q + m, q in 0..31.
template <int64_t kRows>
void DotQ5_1Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  auto block_dot = [&](const uint8_t* block, int64_t b, V32* v) { Dot32Unsigned<kRows>(g, n_a, b, block + 8, block + 4, v); };
  QuantRows<kRows, -1, decltype(block_dot), 2>(g, 24, 0, block_dot);
}

// Q8_0 (34 bytes: d, qs[32] int8). With VNNI the weights are offset to
// unsigned (w + 128, exact for every int8) and 128 sum a taken out.
template <int64_t kRows>
void DotQ8_0Rows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D8 d8;
  const D32 d32;
#if HWY_TARGET == HWY_AVX3_DL
  const DU8 du8;
  QuantRows<kRows, 7>(g, 34, 0, [&](const uint8_t* block, int64_t b, V32* v) {
    const auto u = hn::Xor(hn::LoadU(du8, block + 2), hn::Set(du8, uint8_t{0x80}));
    for (int64_t r = 0; r < n_a; ++r) v[r] = MulAddU8I8(u, hn::LoadU(d8, g.a + r * g.a_stride + b * 32), hn::Zero(d32));
  });
#else
  const int64_t n = static_cast<int64_t>(hn::Lanes(d8));
  QuantRows<kRows, -1>(g, 34, 0, [&](const uint8_t* block, int64_t b, V32* v) {
    const int8_t* w = reinterpret_cast<const int8_t*>(block + 2);
    for (int64_t r = 0; r < n_a; ++r) {
      const int8_t* a = g.a + r * g.a_stride + b * 32;
      V32 acc = hn::Zero(d32);
      for (int64_t p = 0; p < 32; p += n) acc = MulAddI8I8(hn::LoadU(d8, w + p), hn::LoadU(d8, a + p), acc);
      v[r] = acc;
    }
  });
#endif
}

// Q4_K (144 bytes: d, dmin, scales[12], qs[128]): 8 sub-blocks of 32 with a
// 6-bit scale sc and min m each (packed as quant::GetScaleMinK4 reads them);
// qs[32j + l] holds q of element 64j + l (low nibble) and 64j + 32 + l (high).
// x = d sc q - dmin m, so per block the integers A = sum_s sc_s sum q a and
// B = sum_s m_s sum a (exact) give (d d_a) A - (dmin d_a) B.
// Q5_K (176 bytes: d, dmin, scales[12], qh[32], qs[128]) is Q4_K with a
// fifth bit: bit s of qh[l] is bit 4 of element l of sub-block s (q < 32).
template <bool kFive>
struct KBlock {
  static constexpr int64_t kBytes = kFive ? 176 : 144;
  static constexpr int64_t kQs = kFive ? 48 : 16;  // offset of qs
  static constexpr int64_t kQh = 16;               // offset of qh (Q5_K)
};

// The 4-bit quants lo (sub-block 2j) and hi (2j + 1) of a 32-byte group,
// with their fifth bits from the matching qh bytes for Q5_K.
template <bool kFive, class DU, class V>
HWY_INLINE void FifthBits(DU du, const uint8_t* qh, int64_t j, V& lo, V& hi) {
  if constexpr (kFive) {
    const auto h = hn::LoadU(du, qh);
    const auto sixteen = hn::Set(du, uint8_t{16});
    lo = hn::Or(lo, hn::IfThenElseZero(hn::TestBit(h, hn::Set(du, static_cast<uint8_t>(1u << (2 * j)))), sixteen));
    hi = hn::Or(hi, hn::IfThenElseZero(hn::TestBit(h, hn::Set(du, static_cast<uint8_t>(2u << (2 * j)))), sixteen));
  } else {
    (void)du, (void)qh, (void)j, (void)lo, (void)hi;
  }
}

template <int64_t kRows, bool kFive>
void DotQ4_KRowsScalarFrame(const QuantDotArgs& g) {
  using K = KBlock<kFive>;
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const int64_t n = static_cast<int64_t>(hn::Lanes(du8));
  const auto mask = hn::Set(du8, uint8_t{0x0F});
  const int64_t sub_stride = g.a_stride / 32;
  for (int64_t o = 0; o < g.n_w; ++o) {
    float acc[kRowTile][kDotLanes] = {};
    for (int64_t b = 0; b < g.n_blocks; ++b) {
      const uint8_t* block = g.w + o * g.w_row_bytes + b * K::kBytes;
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
#ifdef TRIT_X86
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
          const auto v = hn::LoadU(du8, block + K::kQs + 32 * j + p);
          auto lo = hn::And(v, mask);
          auto hi = hn::ShiftRight<4>(v);
          FifthBits<kFive>(du8, block + K::kQh + p, j, lo, hi);
          for (int64_t r = 0; r < n_a; ++r) {
            const int8_t* a = g.a + r * g.a_stride + b * 256 + 64 * j + p;
#ifdef TRIT_X86
            // Pairs (<= 2 * 31 * 127) times the 6-bit scale, summed in int32.
            total[r] = total[r] + MulPairsI16(MulPairsU8I8(lo, hn::LoadU(d8, a)), sc16_lo) +
                       MulPairsI16(MulPairsU8I8(hi, hn::LoadU(d8, a + 32)), sc16_hi);
#else
            lo_sum[r] = MulAddU8I8(lo, hn::LoadU(d8, a), lo_sum[r]);
            hi_sum[r] = MulAddU8I8(hi, hn::LoadU(d8, a + 32), hi_sum[r]);
#endif
          }
        }
#ifndef TRIT_X86
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
    for (int64_t r = 0; r < n_a; ++r) g.y[o + r * g.y_stride] = DotReduce(acc[r]);
  }
}

// The 6-bit scales and mins of a Q4_K block (12 bytes, as
// quant::GetScaleMinK4 reads them) as 8 bytes each: with 32-bit words w0..w2,
// sc[0..3] = w0 & 63, mn[0..3] = w1 & 63 (per byte), sc[4..7] = (w2 & 15) |
// (w0 >> 6) << 4, mn[4..7] = (w2 >> 4 & 15) | (w1 >> 6) << 4.
HWY_INLINE void UnpackScalesK4(const uint8_t* packed, uint8_t* sc, uint8_t* mn) {
  uint32_t w[3];
  std::memcpy(w, packed, 12);
  const uint32_t low6 = 0x3F3F3F3Fu, low4 = 0x0F0F0F0Fu, top2 = 0x03030303u;
  const uint32_t words[4] = {w[0] & low6, (w[2] & low4) | (((w[0] >> 6) & top2) << 4), w[1] & low6,
                             ((w[2] >> 4) & low4) | (((w[1] >> 6) & top2) << 4)};
  std::memcpy(sc, words, 8);
  std::memcpy(mn, words + 2, 8);
}

template <int64_t kRows, bool kFive>
void DotQ4_KRows(const QuantDotArgs& g) {
#ifdef TRIT_X86_256
  using K = KBlock<kFive>;
  // Per block and row the 8 sub-block sums (one VNNI/maddubs step each,
  // reduced by horizontal adds) times the scales give A's 8 terms, the
  // activation sums per 32 times the mins B's; QuantRowsWithMins reduces
  // them and runs the float step on 8 blocks (lane b % 8) at once.
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const DU8 du8;
  const D8 d8;
  const D32 d32;
  const hn::Rebind<uint8_t, D32> du8_32;
  const auto mask = hn::Set(du8, uint8_t{0x0F});
  const int64_t sub_stride = g.a_stride / 32;
  QuantRowsWithMins<kRows>(g, K::kBytes, 0, [&](const uint8_t* block, int64_t b, V32* pa, V32* pb) {
    HWY_ALIGN uint8_t sc[8];
    HWY_ALIGN uint8_t mn[8];
    UnpackScalesK4(block + 4, sc, mn);
    const V32 scv = hn::PromoteTo(d32, hn::Load(du8_32, sc));
    const V32 mnv = hn::PromoteTo(d32, hn::Load(du8_32, mn));
    V32 sub[kRowTile][8];
    for (int64_t j = 0; j < 4; ++j) {
      const auto v = hn::LoadU(du8, block + K::kQs + 32 * j);
      auto lo = hn::And(v, mask);
      auto hi = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(D16(), v))), mask);
      FifthBits<kFive>(du8, block + K::kQh, j, lo, hi);
      for (int64_t r = 0; r < n_a; ++r) {
        const int8_t* a = g.a + r * g.a_stride + b * 256 + 64 * j;
        sub[r][2 * j] = MulAddU8I8(lo, hn::LoadU(d8, a), hn::Zero(d32));
        sub[r][2 * j + 1] = MulAddU8I8(hi, hn::LoadU(d8, a + 32), hn::Zero(d32));
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
      HWY_ALIGN int32_t sums[8];
      ReduceGroup(sub[r], sums);
      pa[r] = hn::Load(d32, sums) * scv;
      pb[r] = hn::LoadU(d32, g.a_sum32 + r * sub_stride + b * 8) * mnv;
    }
  });
#else
  DotQ4_KRowsScalarFrame<kRows, kFive>(g);
#endif
}

// Q6_K (210 bytes: ql[128], qh[64], scales[16] int8, d): 16 sub-blocks of
// 16, x = d sc (q - 32), q in 0..63. Per half h (128 elements) with
// ql = ql[64h..] and qh = qh[32h..], element 128h + 32i + l (i < 4, l < 32)
// has low bits (ql[l + 32 (i & 1)] >> 4 (i >> 1)) & 15, high bits
// (qh[l] >> 2i) & 3, and scale sc[8h + 2i + l / 16]. One term per block:
// isum = sum_s sc_s (sum q a - 32 sum a), the activation sums per 16 (s) in
// a_sum16.
template <int64_t kRows>
void DotQ6_KRows(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const int64_t sums_stride = g.a_stride / 16;
#ifdef TRIT_X86_256
  const D32 d32;
  auto load = [](const uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); };
  const __m256i m4 = _mm256_set1_epi8(0x0F), m3 = _mm256_set1_epi8(3);
  const HalfGroupScales spread;
  QuantRows<kRows, -1>(g, 210, 208, [&](const uint8_t* block, int64_t b, V32* v) {
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192));
    const __m256i sc16 = _mm256_cvtepi8_epi16(sc8);  // sc[0..7] | sc[8..15]
    V32 acc[kRowTile];
    for (int64_t r = 0; r < n_a; ++r) acc[r] = hn::Zero(d32);
    for (int h = 0; h < 2; ++h) {
      const __m256i sch = HalfGroupScales::Half(sc16, h);
      const __m256i ql0 = load(block + 64 * h), ql1 = load(block + 64 * h + 32), qh = load(block + 128 + 32 * h);
      auto high = [&](int shift) { return _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, shift), m3), 4); };
      const __m256i q[4] = {
          _mm256_or_si256(_mm256_and_si256(ql0, m4), high(0)),
          _mm256_or_si256(_mm256_and_si256(ql1, m4), high(2)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4), high(4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4), high(6)),
      };
      // Pairs <= 2 * 63 * 127 < 32768, then times the scale in int32.
      for (int i = 0; i < 4; ++i) {
        AddScaledPairs(q[i], spread.Group(sch, i), g.a + b * 256 + 128 * h + 32 * i, g.a_stride, n_a, acc);
      }
    }
    const V32 sc_lo{_mm256_cvtepi8_epi32(sc8)}, sc_hi{_mm256_cvtepi8_epi32(_mm_srli_si128(sc8, 8))};
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum16 + r * sums_stride + b * 16;
      v[r] = acc[r] - hn::ShiftLeft<5>(sc_lo * hn::LoadU(d32, sums) + sc_hi * hn::LoadU(d32, sums + 8));
    }
  });
#else
  // The block's quants, declared here and not in the lambda: declared in
  // the lambda, the SSE4 copy (GCC 12, -O3, full groups of 8 blocks, 4
  // activation rows) overwrote QuantRows's live sums of rows 0 and 1 with
  // quant bytes, as if the array shared their stack slot; not pinned down
  // further. RowsIndependentOfBatchAndThreads on every target catches it.
  HWY_ALIGN uint8_t q[256];
  QuantRows<kRows, -1>(g, 210, 208, [&](const uint8_t* block, int64_t b, V32* v) {
    for (int64_t h = 0; h < 2; ++h) {
      const uint8_t* ql = block + 64 * h;
      const uint8_t* qh = block + 128 + 32 * h;
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t l = 0; l < 32; ++l) {
          q[128 * h + 32 * i + l] = static_cast<uint8_t>(((ql[l + 32 * (i & 1)] >> (4 * (i >> 1))) & 15) |
                                                         (((qh[l] >> (2 * i)) & 3) << 4));
        }
      }
    }
    const int8_t* sc = reinterpret_cast<const int8_t*>(block + 192);
    for (int64_t r = 0; r < n_a; ++r) {
      v[r] = OneLane(ScaledSums16(q, g.a + r * g.a_stride + b * 256, g.a_sum16 + r * sums_stride + b * 16, sc, 32));
    }
  });
#endif
}

#if HWY_TARGET == HWY_AVX3_DL
// acc + sums of y * a in 512 bits (vpdpbusd: u8 x s8, exact), spelled out
// as MulAddU8I8 is: the target's flags name AVX-VNNI, not AVX512-VNNI.
HWY_INLINE __m512i MulAddU8I8x64(__m512i y, __m512i a, __m512i acc) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(y), "v"(a));
  return acc;
}

// The 4 activations of elements first..first+3 in the low half and of the
// next 4 in the high half: two units of a row group side by side.
HWY_INLINE __m512i TwoUnitActivations(const int8_t* first) {
  int32_t lo, hi;
  std::memcpy(&lo, first, 4);
  std::memcpy(&hi, first + 4, 4);
  return _mm512_mask_set1_epi32(_mm512_set1_epi32(lo), 0xFF00, hi);
}

// Lane j + lane j + 8 (row j of a group in both halves).
HWY_INLINE __m256i FoldHalves(__m512i v) {
  return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

// Decode (one activation row) over a ternary row group: block(units, a)
// gives the 8 rows' integer sums of a block (the d's come first, 16 bytes);
// the float step is Rows8Frame's, so the bits are the 8-row kernels'.
template <class Block>
HWY_INLINE void TernaryDecodeFrame(const QuantDotArgs& g, int64_t block_bytes, const Block& block) {
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  Rows8Frame<1>(g, block_bytes, [&](int64_t b, const uint8_t* p, const int8_t* const* a_row, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
    const V32 isum = V32{block(p + 16, a_row[0])} - hn::Set(D32(), g.a_sum[b]);
    add(0, (d * hn::Set(df, g.a_scale[b])) * hn::ConvertTo(df, isum));
  });
}

// True when the CPU has GFNI. Highway's AVX3_DL target does not require it
// (every CPU of that target so far has it, but a virtual machine may hide
// it), so the kernels that use it ask.
HWY_INLINE bool CpuHasGfni() {
  static const bool has = __builtin_cpu_supports("gfni");
  return has;
}

// One tq2_0 block of a group of 8 rows for one activation row (decode) with
// VNNI and GFNI, in 512-bit vectors: two units side by side. Each 2-bit
// field is moved to the low bits of its byte by one affine transform over
// GF(2) (vgf2p8affineqb: result bit i is the parity of matrix byte 7 - i
// and the byte), then one dot step per pair of units and field, exact in
// int32. The 256-bit kernel takes a shift, a mask, a step and an int16
// addition per unit (kernels_bench, from the caches, one core: 16.1-16.7 ->
// 26.8-28.7 GB/s). Returns sum (t + 1) a per row (lane j), the integers of
// DotTQ2_0Rows8.
HWY_INLINE __m256i TQ2_0Rows8DecodeBlock(const uint8_t* qs, const int8_t* a) {
  // An accumulator per shift and pair parity: short chains of dot steps.
  __m512i s[2][4];
  for (int p = 0; p < 2; ++p) {
    for (int l = 0; l < 4; ++l) s[p][l] = _mm512_setzero_si512();
  }
#pragma GCC unroll 8
  for (int64_t pair = 0; pair < 8; ++pair) {
    const int64_t half = pair / 4, u = 2 * (pair % 4);  // units 8 half + u and + 1
    const __m512i q = _mm512_loadu_si512(qs + 32 * (8 * half + u));
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) {
      // Bits 2l and 2l + 1 to bits 0 and 1 (matrix bytes 7 and 6). Spelled
      // out: the target's flags do not name GFNI.
      const __m512i select = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << (56 + 2 * l) | uint64_t{2} << (48 + 2 * l)));
      __m512i t;
      asm("vgf2p8affineqb $0, %2, %1, %0" : "=v"(t) : "v"(q), "v"(select));
      s[pair & 1][l] = MulAddU8I8x64(t, TwoUnitActivations(a + 128 * half + 32 * l + 4 * u), s[pair & 1][l]);
    }
  }
  __m512i t = _mm512_setzero_si512();
  for (int p = 0; p < 2; ++p) {
    for (int l = 0; l < 4; ++l) t = _mm512_add_epi32(t, s[p][l]);
  }
  return FoldHalves(t);
}
#endif

#ifdef TRIT_X86_256
// TQ2_0 from the row-group layout (repack.h: the 8 rows' d, then qs by
// 4-byte units), one group of 8 weight rows: lane j of every vector belongs
// to row j. Unit u holds bytes 4u..4u+3 of the rows' qs: at shift 2l, trits
// + 1 of elements 128 (u / 8) + 32 l + 4 (u % 8) + 0..3, one maddubs step per
// activation row against one broadcast group. The steps of a half block add
// up in int16 (32 * 2 * 2 * 127 = 16256), then one madd per row and half.
// The integer per (row, block) is DotTQ2_0Rows's sum (t + 1) a - sum a and
// the float step QuantRows's, so the bits are the one-row kernel's.
template <int64_t kRows>
void DotTQ2_0Rows8(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
#if HWY_TARGET == HWY_AVX3_DL
  // Decode: the same integers by TQ2_0Rows8DecodeBlock.
  if constexpr (kRows == 1) {
    if (CpuHasGfni()) {
      TernaryDecodeFrame(g, 66, [](const uint8_t* u, const int8_t* a) { return TQ2_0Rows8DecodeBlock(u, a); });
      return;
    }
  }
#endif
  const __m256i three = _mm256_set1_epi8(3);
  const __m256i ones = _mm256_set1_epi16(1);
  Rows8Frame<kRows>(g, 66, [&](int64_t b, const uint8_t* p, const int8_t* const* a_row, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
    const uint8_t* qs = p + 16;
    V32 total[kGroupRowTile];
    for (int64_t r = 0; r < n_a; ++r) total[r] = hn::Zero(d32);
#pragma GCC unroll 1
    for (int64_t half = 0; half < 2; ++half) {
      __m256i s16[kGroupRowTile];
      for (int64_t r = 0; r < n_a; ++r) s16[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
      for (int64_t u = 0; u < 8; ++u) {
        const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * (8 * half + u)));
#pragma GCC unroll 4
        for (int64_t l = 0; l < 4; ++l) {
          // 16-bit shifts: the bits that cross into a byte are masked off.
          const __m256i t = _mm256_and_si256(l == 0 ? q : _mm256_srli_epi16(q, static_cast<int>(2 * l)), three);
          for (int64_t r = 0; r < n_a; ++r) {
            int32_t bits;
            std::memcpy(&bits, a_row[r] + 128 * half + 32 * l + 4 * u, 4);
            s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(t, _mm256_set1_epi32(bits)));
            // Opaque to GCC 12's reassociation, which otherwise sums the
            // run as a tree and spills the maddubs results waiting for it.
            asm("" : "+x"(s16[r]));
          }
        }
      }
      for (int64_t r = 0; r < n_a; ++r) total[r] = total[r] + V32{_mm256_madd_epi16(s16[r], ones)};
    }
    for (int64_t r = 0; r < n_a; ++r) {
      const V32 isum = total[r] - hn::Set(d32, g.a_sum[r * g.n_blocks + b]);
      const VF da = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      add(r, (d * da) * hn::ConvertTo(df, isum));
    }
  });
}
#endif

void DotTQ2_0RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotTQ2_0Rows<decltype(rows)::value>(g); });
}
void DotTQ2_0Kernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotTQ2_0RowLayout>(g, quant::GgmlType::kTQ2_0, TRIT_ROWS8(DotTQ2_0Rows8));
}
#ifdef TRIT_X86_256
#if HWY_TARGET == HWY_AVX3_DL
HWY_INLINE __m512i Times3x64(__m512i y) { return _mm512_add_epi8(_mm512_add_epi8(y, y), y); }  // mod 256

// One tq1_0 block of a group of 8 rows for one activation row (decode) with
// VNNI, in 512-bit vectors: two units side by side. The trits are never
// formed: for a byte y, 256 * ((3y) >> 8) = 3y - (3y mod 256), and 3y mod
// 256 is the next power's byte, so 256 * sum t a = 3 sum y_k a - sum y_k+1
// a, exact per element. Per power and pair of units: two dot steps and the
// two additions of the next power, where the 256-bit kernel decodes the
// trits of each unit in four more operations (kernels_bench, from the
// caches, one core: 7.9 -> 20.8 GB/s). The sums are integers, so
// the order does not matter: lane j (and j + 8) is row j. Returns sum t a.
HWY_INLINE __m256i TQ1_0Rows8DecodeBlock(const uint8_t* units, const int8_t* a) {
  // One accumulator pair per power: the dot steps of a block are chains of
  // 6 or 7 (a step's latency is several cycles).
  __m512i s1[5], s2[5];
  for (int k = 0; k < 5; ++k) s1[k] = s2[k] = _mm512_setzero_si512();
  // Units u and u + 1: at power k elements first + step * k + 0..3 and the
  // 4 after them.
  auto pair = [&](int64_t u, const int8_t* first, int64_t step) {
    __m512i y = _mm512_loadu_si512(units + 32 * u);
#pragma GCC unroll 5
    for (int k = 0; k < 5; ++k) {
      const __m512i av = TwoUnitActivations(first + step * k);
      s1[k] = MulAddU8I8x64(y, av, s1[k]);
      y = Times3x64(y);
      s2[k] = MulAddU8I8x64(y, av, s2[k]);
    }
  };
#pragma GCC unroll 4
  for (int64_t u = 0; u < 8; u += 2) pair(u, a + 4 * u, 32);
  pair(8, a + 160, 16);
  pair(10, a + 168, 16);
  // The qh unit alone (4 powers, elements 240 + 4k + 0..3), in the low half.
  __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(units + 32 * 12));
  __m256i q1 = _mm256_setzero_si256(), q2 = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    int32_t bits;
    std::memcpy(&bits, a + 240 + 4 * k, 4);
    const __m256i av = _mm256_set1_epi32(bits);
    q1 = MulAddU8I8(VU8{y}, VI8{av}, V32{q1}).raw;
    y = Times3(VU8{y}).raw;
    q2 = MulAddU8I8(VU8{y}, VI8{av}, V32{q2}).raw;
  }
  const __m512i t1 = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(s1[0], s1[1]), _mm512_add_epi32(s1[2], s1[3])), s1[4]);
  const __m512i t2 = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(s2[0], s2[1]), _mm512_add_epi32(s2[2], s2[3])), s2[4]);
  const __m256i f1 = _mm256_add_epi32(FoldHalves(t1), q1);
  const __m256i f2 = _mm256_add_epi32(FoldHalves(t2), q2);
  // 3 f1 - f2 is 256 times the sum, exactly (|3 f1| < 2^31: 65 steps of at
  // most 4 * 255 * 128 each).
  return _mm256_srai_epi32(_mm256_sub_epi32(_mm256_add_epi32(_mm256_add_epi32(f1, f1), f1), f2), 8);
}
#endif

// TQ1_0 from the row-group layout (repack.h: the 8 rows' d, then qs by
// 4-byte units, then the rows' qh words), one group of 8 weight rows: lane j
// of every vector belongs to row j. The bytes of a unit, kept top-bit
// flipped through the powers of 3 as DotTQ1_0Rows does, give at power k the
// trits of 4 consecutive elements of the 8 rows: 32k + 4u (qs unit u < 8),
// 160 + 16k + 4 (u - 8) (u = 8..11), 240 + 4k (qh, k < 4). One maddubs step
// per power and activation row; the steps add up in int16 in two runs (40
// and 24 steps of at most 2 * 2 * 127), one madd each. The integer per (row,
// block) is DotTQ1_0Rows's sum t a - sum a and the float step QuantRows's,
// so the bits are the one-row kernel's.
template <int64_t kRows>
void DotTQ1_0Rows8(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (kRows == 1) {  // decode: the same integers by TQ1_0Rows8DecodeBlock
    TernaryDecodeFrame(g, 54, [](const uint8_t* u, const int8_t* a) { return TQ1_0Rows8DecodeBlock(u, a); });
    return;
  }
#endif
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  const __m256i ones = _mm256_set1_epi16(1);
  const TritThresholds thresholds;
  Rows8Frame<kRows>(g, 54, [&](int64_t b, const uint8_t* p, const int8_t* const* a_row, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
    const uint8_t* units = p + 16;  // 12 qs units, then the qh unit
    V32 total[kGroupRowTile];
    for (int64_t r = 0; r < n_a; ++r) total[r] = hn::Zero(d32);
    __m256i s16[kGroupRowTile];
    // Unit u's powers: trits of elements first + step * k + 0..3.
    auto unit = [&](int64_t u, int64_t n_powers, int64_t first, int64_t step) {
      VU8 y = Flip(VU8{_mm256_loadu_si256(reinterpret_cast<const __m256i*>(units + 32 * u))});
#pragma GCC unroll 5
      for (int64_t pw = 0; pw < n_powers; ++pw) {
        if (pw > 0) y = Times3(y);
        const __m256i t = TritsOfFlipped(y.raw, thresholds);
        for (int64_t r = 0; r < n_a; ++r) {
          int32_t bits;
          std::memcpy(&bits, a_row[r] + first + step * pw, 4);
          s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(t, _mm256_set1_epi32(bits)));
          // Opaque to GCC 12's reassociation (see DotQ4_KRows8).
          asm("" : "+x"(s16[r]));
        }
      }
    };
    auto fold = [&] {
      for (int64_t r = 0; r < n_a; ++r) total[r] = total[r] + V32{_mm256_madd_epi16(s16[r], ones)};
    };
    // Units u0..u1 - 1 of 5 powers, unit u0's first element first: unrolled
    // for decode (with a rolled loop GCC 12 kept the one row's running sum
    // on the stack), rolled for tiles (8 rows' steps per unit are plenty).
    auto run = [&](int64_t u0, int64_t u1, int64_t first, int64_t step) {
      if constexpr (kRows == 1) {
#pragma GCC unroll 8
        for (int64_t u = u0; u < u1; ++u) unit(u, 5, first + 4 * (u - u0), step);
      } else {
#pragma GCC unroll 1
        for (int64_t u = u0; u < u1; ++u) unit(u, 5, first + 4 * (u - u0), step);
      }
    };
    for (int64_t r = 0; r < n_a; ++r) s16[r] = _mm256_setzero_si256();
    run(0, 8, 0, 32);
    fold();
    for (int64_t r = 0; r < n_a; ++r) s16[r] = _mm256_setzero_si256();
    run(8, 12, 160, 16);
    unit(12, 4, 240, 4);
    fold();
    for (int64_t r = 0; r < n_a; ++r) {
      const V32 isum = total[r] - hn::Set(d32, g.a_sum[r * g.n_blocks + b]);
      const VF da = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      add(r, (d * da) * hn::ConvertTo(df, isum));
    }
  });
}
#endif

void DotTQ1_0RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotTQ1_0Rows<decltype(rows)::value>(g); });
}
void DotTQ1_0Kernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotTQ1_0RowLayout>(g, quant::GgmlType::kTQ1_0, TRIT_ROWS8(DotTQ1_0Rows8));
}
void DotQ4_0RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ4_0Rows<decltype(rows)::value>(g); });
}
void DotQ8_0RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ8_0Rows<decltype(rows)::value>(g); });
}

void DotQ4_1RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ4_1Rows<decltype(rows)::value>(g); });
}
void DotQ5_0RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ5_0Rows<decltype(rows)::value>(g); });
}
void DotQ5_1RowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ5_1Rows<decltype(rows)::value>(g); });
}

// q4_0, q4_1, q5_0, q5_1: 8 rows at a time as EightRowGroups says, the rest
// (and every row on targets without 8-row kernels) by the one-row kernel.
template <class F, int kShift, void (*kRowLayout)(const QuantDotArgs&)>
HWY_INLINE void DotNibbles(const QuantDotArgs& g, quant::GgmlType type) {
#ifdef TRIT_X86_256
  (void)type;
  const QuantDotArgs rest = EightRowGroups<DotNibblesRows8<F, kShift, 1>, DotNibblesRows8<F, kShift, kRowTile>,
                                           DotNibblesRows8<F, kShift, kGroupRowTile>, DotNibblesRows8<F, kShift, 0>>(g);
  if (rest.n_w > 0) kRowLayout(rest);
#else
  g.row_groups ? FromRowGroups<kRowLayout>(g, type) : kRowLayout(g);
#endif
}
void DotQ4_0Kernel(const QuantDotArgs& g) { DotNibbles<Q4_0Block, 3, DotQ4_0RowLayout>(g, quant::GgmlType::kQ4_0); }
void DotQ4_1Kernel(const QuantDotArgs& g) { DotNibbles<Q4_1Block, -1, DotQ4_1RowLayout>(g, quant::GgmlType::kQ4_1); }
void DotQ5_0Kernel(const QuantDotArgs& g) { DotNibbles<Q5_0Block, 4, DotQ5_0RowLayout>(g, quant::GgmlType::kQ5_0); }
void DotQ5_1Kernel(const QuantDotArgs& g) { DotNibbles<Q5_1Block, -1, DotQ5_1RowLayout>(g, quant::GgmlType::kQ5_1); }
void DotQ8_0Kernel(const QuantDotArgs& g) {
#ifdef TRIT_X86_256
  const QuantDotArgs rest = EightRowGroups<DotQ8_0Rows8<1>, DotQ8_0Rows8<kRowTile>, DotQ8_0Rows8<kGroupRowTile>, DotQ8_0Rows8<0>>(g);
  if (rest.n_w > 0) DotQ8_0RowLayout(rest);
#else
  g.row_groups ? FromRowGroups<DotQ8_0RowLayout>(g, quant::GgmlType::kQ8_0) : DotQ8_0RowLayout(g);
#endif
}

bool HasRowGroupKernelsImpl() {
#ifdef TRIT_X86_256
  return true;
#else
  return false;
#endif
}

#ifdef TRIT_X86_256
// Q4_K from the row-group layout (repack.h), one group of 8 weight rows:
// lane j of every vector belongs to row j. Per block the scale words of the
// 8 rows unpack in vectors (UnpackScalesK4's formulas, lane by lane); per
// 4-byte group of quants one dot-product step per activation row gives 8
// rows' partial sub-block sums, which the rows' sub-block scales multiply;
// B is the mins times the activation sums per 32. Per (row, block) A and B
// are exactly the integers of DotQ4_KRows, and the float step is the same,
// so the bits are too. kFive: Q5_K, the quants' fifth bits from the 8 rows'
// qh units (shared by all activation rows).
template <int64_t kRows, bool kFive>
void DotQ4_KRows8(const QuantDotArgs& g) {
  using K = KBlock<kFive>;
  // Offsets in the 8-row block: d, dmin, scales (3 x 32), [qh (8 x 32)], qs.
  constexpr int64_t kGroupQh = 128, kGroupQs = kFive ? 128 + 8 * 32 : 128;
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D8 d8;
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  const int64_t sub_stride = g.a_stride / 32;
  auto load = [](const uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); };
  Rows8Frame<kRows>(g, K::kBytes, [&](int64_t b, const uint8_t* p, const int8_t* const* block_a, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
    const VF dmin{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)))};
    __m256i sc_raw[8], mn_raw[8];
    ScalesMinsK4Rows8(p + 32, sc_raw, mn_raw);
    V32 sc[8], mn[8];
    for (int s = 0; s < 8; ++s) sc[s] = V32{sc_raw[s]}, mn[s] = V32{mn_raw[s]};
    V32 a_int[kGroupRowTile];
    for (int64_t r = 0; r < n_a; ++r) a_int[r] = hn::Zero(d32);
    // The quants of unit s of sub-blocks 2j (lo) and 2j + 1 (hi) of the 8 rows.
    auto quants = [&](int64_t j, int64_t s, VU8& lo, VU8& hi) {
      __m256i l, h;
      QuantsK4Rows8<kFive>(load(p + kGroupQs + 32 * (8 * j + s)), p + kGroupQh + 32 * s, j, l, h);
      lo = VU8{l};
      hi = VU8{h};
    };
    // Activations 4s.. of sub-block 2j (+ 32: 2j + 1) of row r, broadcast.
    auto group = [&](int64_t r, int64_t j, int64_t s, int64_t plus) {
      int32_t bits;
      std::memcpy(&bits, block_a[r] + 64 * j + 4 * s + plus, 4);
      return hn::BitCast(d8, hn::Set(d32, bits));
    };
#if HWY_TARGET == HWY_AVX3_DL
    // VNNI: one exact dot step per unit and row, then the scale multiply.
    for (int64_t j = 0; j < 4; ++j) {
      V32 s_lo[kGroupRowTile], s_hi[kGroupRowTile];
      for (int64_t r = 0; r < n_a; ++r) s_lo[r] = s_hi[r] = hn::Zero(d32);
      for (int64_t s = 0; s < 8; ++s) {
        VU8 lo, hi;
        quants(j, s, lo, hi);
        for (int64_t r = 0; r < n_a; ++r) {
          s_lo[r] = MulAddU8I8(lo, group(r, j, s, 0), s_lo[r]);
          s_hi[r] = MulAddU8I8(hi, group(r, j, s, 32), s_hi[r]);
        }
      }
      for (int64_t r = 0; r < n_a; ++r) a_int[r] = a_int[r] + s_lo[r] * sc[2 * j] + s_hi[r] * sc[2 * j + 1];
    }
#else
    // Per sub-block (2j + half) and activation row, the maddubs pairs of its
    // 8 units add up in int16 (4-bit: 8 * 2 * 15 * 128 = 30720; 5-bit: two
    // runs of 4 units, 4 * 2 * 31 * 128 = 31744: never past 32767, so the
    // integers are exact), then one madd against the rows' scale in both
    // int16 halves of each lane scales and sums them into int32. One half at
    // a time keeps the 8 rows' int16 sums and the quants in registers.
    // (Rolled over j, unrolled inside: a rolled unit loop kept a run-time
    // branch on the half.)
    constexpr int64_t kRun = kFive ? 4 : 8;
#pragma GCC unroll 1
    for (int64_t j = 0; j < 4; ++j) {
      // The rows' activations of sub-blocks 2j, 2j + 1: one pointer per row,
      // so that the unrolled units address them by displacements.
      const int8_t* a_row[kGroupRowTile];
      for (int64_t r = 0; r < n_a; ++r) a_row[r] = block_a[r] + 64 * j;
#pragma GCC unroll 2
      for (int64_t half = 0; half < 2; ++half) {
        const __m256i scale = _mm256_or_si256(sc[2 * j + half].raw, _mm256_slli_epi32(sc[2 * j + half].raw, 16));
#pragma GCC unroll 2
        for (int64_t s0 = 0; s0 < 8; s0 += kRun) {
          __m256i s16[kGroupRowTile];
          for (int64_t r = 0; r < n_a; ++r) s16[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
          for (int64_t s = s0; s < s0 + kRun; ++s) {
            VU8 lo, hi;
            quants(j, s, lo, hi);
            const __m256i q = half == 0 ? lo.raw : hi.raw;
            for (int64_t r = 0; r < n_a; ++r) {
              int32_t bits;
              std::memcpy(&bits, a_row[r] + 4 * s + 32 * half, 4);
              s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(q, _mm256_set1_epi32(bits)));
              // Opaque to GCC 12's reassociation, which otherwise sums the
              // run as a tree and spills the maddubs results waiting for it.
              asm("" : "+x"(s16[r]));
            }
          }
          for (int64_t r = 0; r < n_a; ++r) a_int[r] = a_int[r] + V32{_mm256_madd_epi16(s16[r], scale)};
        }
      }
    }
#endif
    // B by madds of the rows' min pairs (2t, 2t + 1 in the int16 halves of
    // each lane; mins < 64) against the activation sums' pairs (|sum| <=
    // 32 * 128, exact in int16): the same integer, 4 madds for 8 multiplies.
    __m256i mn_pair[4];
    for (int t = 0; t < 4; ++t) mn_pair[t] = _mm256_or_si256(mn[2 * t].raw, _mm256_slli_epi32(mn[2 * t + 1].raw, 16));
    for (int64_t r = 0; r < n_a; ++r) {
      const int32_t* sums = g.a_sum32 + r * sub_stride + b * 8;
      HWY_ALIGN int16_t sums16[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(sums16),
                      _mm_packs_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sums)),
                                      _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums + 4))));
      V32 b_int = hn::Zero(d32);
      for (int t = 0; t < 4; ++t) {
        int32_t pair;
        std::memcpy(&pair, sums16 + 2 * t, 4);
        b_int = b_int + V32{_mm256_madd_epi16(mn_pair[t], _mm256_set1_epi32(pair))};
      }
      const VF da = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      add(r, (d * da) * hn::ConvertTo(df, a_int[r]) - (dmin * da) * hn::ConvertTo(df, b_int));
    }
  });
}

// Per 32-bit lane L of each 128-bit half, bytes 4L + i[0..3]: a pshufb
// control that picks, within every lane, the bytes i of that lane.
HWY_INLINE __m256i InLaneBytes(int i0, int i1, int i2, int i3) {
  const int p = i0 | i1 << 8 | i2 << 16 | i3 << 24;
  constexpr int kStep = 0x04040404;
  return _mm256_setr_epi32(p, p + kStep, p + 2 * kStep, p + 3 * kStep, p, p + kStep, p + 2 * kStep, p + 3 * kStep);
}

#if HWY_TARGET == HWY_AVX3_DL
// The scaled quant sums of one q6_K block of a group of 8 rows for one
// activation row (decode), in 512-bit vectors: units t0 and t0 + 1 (the
// same sub-block, 96 bytes apart in the runs) side by side, so one maddubs
// and one madd against the sub-block's scales cover both, where the 256-bit
// loop takes two maddubs, an int16 addition and a madd. Pairs stay exact in
// int16 (2 * 63 * 127); the int32 sums are DotQ6_KRows8's. sc[s]: the rows'
// scale of sub-block s in both int16 halves of each lane. Returns sum sc q a
// per row (lane j), the -32 offset not applied.
HWY_INLINE __m256i Q6_KRows8DecodeQuants(const uint8_t* runs, const __m256i* sc, const int8_t* a) {
  const __m512i m4 = _mm512_set1_epi8(0x0F), m30 = _mm512_set1_epi8(0x30);
  auto two_units = [](const uint8_t* at) {  // a unit's 32 bytes and the next unit's, 96 bytes on
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + 96)), 1);
  };
  // Two accumulators: consecutive madds need not wait for each other.
  __m512i total[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 4
    for (int t0 = 0; t0 < 8; t0 += 2) {
      const uint8_t* run = runs + 96 * (8 * h + t0);
      const __m512i ql[2] = {two_units(run), two_units(run + 32)};
      const __m512i qh = two_units(run + 64);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const __m512i nib = _mm512_and_si512(i < 2 ? ql[i & 1] : _mm512_srli_epi16(ql[i & 1], 4), m4);
        const __m512i top = i == 0 ? _mm512_slli_epi16(qh, 4)
                            : i == 1 ? _mm512_slli_epi16(qh, 2)
                            : i == 2 ? qh
                                     : _mm512_srli_epi16(qh, 2);
        const __m512i q = _mm512_or_si512(nib, _mm512_and_si512(top, m30));
        const __m512i pairs = _mm512_maddubs_epi16(q, TwoUnitActivations(a + 128 * h + 32 * i + 4 * t0));
        const __m512i scale = _mm512_broadcast_i64x4(sc[8 * h + 2 * i + t0 / 4]);
        total[i & 1] = _mm512_add_epi32(total[i & 1], _mm512_madd_epi16(pairs, scale));
      }
    }
  }
  return FoldHalves(_mm512_add_epi32(total[0], total[1]));
}
#endif

// Q6_K from the row-group layout (repack.h: d by rows, the scales by 4-byte
// units, then ql and qh by 4-byte units in the order read here), one group
// of 8 weight rows: lane j of every vector
// belongs to row j. Per 4-byte unit t of a half h the quant vectors q[i]
// (DotQ6_KRows's formulas, lane by lane) hold elements 128h + 32i + 4t..+3
// of the 8 rows, which are in sub-block 8h + 2i + t / 4. Per activation row
// two units' maddubs pairs (same sub-block) add in int16, then one madd
// against the rows' scale of that sub-block (in both int16 halves of each
// lane) scales and sums them into int32: the scale multiply costs nothing.
// The -32 offset comes out per row as 32 sum_s sc_s a_sum16[s], 8 madds of
// the rows' scale pairs against the activation sums' pairs. The integer per
// (row, block) is DotQ6_KRows's isum and the float step QuantRows's, so the
// bits are the one-row kernel's.
template <int64_t kRows>
void DotQ6_KRows8(const QuantDotArgs& g) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const D32 d32;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  const int64_t sums_stride = g.a_stride / 16;
  const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
  auto load = [](const uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); };
  auto broadcast = [](const void* at) {
    int32_t bits;
    std::memcpy(&bits, at, 4);
    return _mm256_set1_epi32(bits);
  };
  // Offsets of the parts in a group's block of 8 x 210 bytes; the quants
  // come as 16 runs of 3 units (ql_a, ql_b, qh), unit t of half h in run 8h + t.
  constexpr int64_t kD = 0, kScales = 16, kRuns = kScales + 8 * 16;
  Rows8Frame<kRows>(g, 210, [&](int64_t b, const uint8_t* p, const int8_t* const* a_row, auto add) {
    const VF d{_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kD)))};
    // Scale word w holds the rows' scales 4w..4w+3 (int8). A byte moved to
    // the high half of an int16 and shifted back sign-extends it:
    // sc[s] = scale s in both halves, pair[m] = scales 2m, 2m + 1.
    __m256i sc[16], pair[8];
    for (int w = 0; w < 4; ++w) {
      const __m256i words = load(p + kScales + 32 * w);
      auto spread = [&](__m256i control) { return _mm256_srai_epi16(_mm256_shuffle_epi8(words, control), 8); };
      for (int c = 0; c < 4; ++c) sc[4 * w + c] = spread(InLaneBytes(c, c, c, c));
      pair[2 * w] = spread(InLaneBytes(0, 0, 1, 1));
      pair[2 * w + 1] = spread(InLaneBytes(2, 2, 3, 3));
    }
    V32 total[kGroupRowTile];
    for (int64_t r = 0; r < n_a; ++r) total[r] = hn::Zero(d32);
#if HWY_TARGET == HWY_AVX3_DL
    if constexpr (kRows == 1) {
      total[0] = V32{Q6_KRows8DecodeQuants(p + kRuns, sc, a_row[0])};
    } else
#endif
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 4
      for (int t0 = 0; t0 < 8; t0 += 2) {  // units t0 and t0 + 1: the same sub-blocks
        auto low = [&](__m256i v) { return _mm256_and_si256(v, m4); };
        auto high = [&](__m256i v) { return _mm256_and_si256(v, m30); };  // bits 4, 5
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          // Quants i of units t0, t0 + 1, made here from loads (the caches'
          // bytes again) so that only two quant vectors and the 8 rows'
          // sums are live.
          __m256i q[2];
          for (int u = 0; u < 2; ++u) {
            const uint8_t* run = p + kRuns + 96 * (8 * h + t0 + u);
            const __m256i ql = load(run + 32 * (i & 1)), qh = load(run + 64);
            const __m256i nib = i < 2 ? low(ql) : low(_mm256_srli_epi16(ql, 4));
            const __m256i top = i == 0 ? _mm256_slli_epi16(qh, 4)
                                : i == 1 ? _mm256_slli_epi16(qh, 2)
                                : i == 2 ? qh
                                         : _mm256_srli_epi16(qh, 2);
            q[u] = _mm256_or_si256(nib, high(top));
          }
          const __m256i scale = sc[8 * h + 2 * i + t0 / 4];
          for (int64_t r = 0; r < n_a; ++r) {
            const int8_t* a = a_row[r] + 128 * h + 32 * i + 4 * t0;
            // Two pairs' sums <= 2 * 2 * 63 * 127 < 32768: exact in int16.
            const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(q[0], broadcast(a)),
                                                   _mm256_maddubs_epi16(q[1], broadcast(a + 4)));
            total[r] = total[r] + V32{_mm256_madd_epi16(pairs, scale)};
            // Opaque to GCC 12's reassociation, which otherwise sums the
            // block as a tree and spills the madd results waiting for it.
            asm("" : "+x"(total[r].raw));
          }
        }
      }
    }
    for (int64_t r = 0; r < n_a; ++r) {
      // The activation sums per 16 as int16 (|sum| <= 16 * 127), in order.
      const int32_t* sums = g.a_sum16 + r * sums_stride + b * 16;
      HWY_ALIGN int16_t sums16[16];
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + 8));
      // packs interleaves by 128-bit halves (0-3, 8-11 | 4-7, 12-15); the permute restores the order.
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums16), _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8));
      V32 offset = hn::Zero(d32);
      for (int m = 0; m < 8; ++m) offset = offset + V32{_mm256_madd_epi16(pair[m], broadcast(sums16 + 2 * m))};
      const VF da = hn::Set(df, g.a_scale[r * g.n_blocks + b]);
      add(r, (d * da) * hn::ConvertTo(df, total[r] - hn::ShiftLeft<5>(offset)));
    }
  });
}
#endif

void DotQ4_KRowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ4_KRows<decltype(rows)::value, false>(g); });
}
void DotQ5_KRowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ4_KRows<decltype(rows)::value, true>(g); });
}
void DotQ6_KRowLayout(const QuantDotArgs& g) {
  ByRowCount(g.n_a, [&](auto rows) { DotQ6_KRows<decltype(rows)::value>(g); });
}

void DotQ4_KKernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotQ4_KRowLayout>(g, quant::GgmlType::kQ4_K, TRIT_ROWS8(DotQ4_KRows8, false));
}
void DotQ5_KKernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotQ5_KRowLayout>(g, quant::GgmlType::kQ5_K, TRIT_ROWS8(DotQ4_KRows8, true));
}
void DotQ6_KKernel(const QuantDotArgs& g) {
  RowLayoutOrGroups<DotQ6_KRowLayout>(g, quant::GgmlType::kQ6_K, TRIT_ROWS8(DotQ6_KRows8));
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

HWY_EXPORT(HasRowGroupKernelsImpl);
HWY_EXPORT(DotTQ2_0Kernel);
HWY_EXPORT(DotTQ1_0Kernel);
HWY_EXPORT(DotQ4_0Kernel);
HWY_EXPORT(DotQ8_0Kernel);
HWY_EXPORT(DotQ4_1Kernel);
HWY_EXPORT(DotQ5_0Kernel);
HWY_EXPORT(DotQ5_1Kernel);
HWY_EXPORT(DotQ4_KKernel);
HWY_EXPORT(DotQ5_KKernel);
HWY_EXPORT(DotQ6_KKernel);

bool HasRowGroupKernels() { return HWY_DYNAMIC_DISPATCH(HasRowGroupKernelsImpl)(); }
void DotTQ2_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotTQ2_0Kernel)(args); }
void DotTQ1_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotTQ1_0Kernel)(args); }
void DotQ4_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ4_0Kernel)(args); }
void DotQ8_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ8_0Kernel)(args); }
void DotQ4_1(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ4_1Kernel)(args); }
void DotQ5_0(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ5_0Kernel)(args); }
void DotQ5_1(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ5_1Kernel)(args); }
void DotQ4_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ4_KKernel)(args); }
void DotQ5_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ5_KKernel)(args); }
void DotQ6_K(const QuantDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotQ6_KKernel)(args); }

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
