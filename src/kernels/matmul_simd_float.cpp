// Highway kernels of matmul_simd.h for float weights (f32, f16, bf16),
// compiled once per target (foreach_target) like matmul_simd.cpp and
// dispatched at run time.
//
// Every target keeps dot.h's order: element k of a row goes into lane k % 8
// with one fused multiply-add (acc = fma(x, w, acc): FusedMulAddV, one
// rounding, as dot.h's std::fma), the tail into lanes 0.., and the 8 lanes
// are summed in dot.h's fixed tree. So every output equals the reference
// MatMul bit for bit, whatever the target, the tile or the row count.
//
// The order has 8 lanes, so one row fills a 256-bit vector. On AVX-512 a
// 512-bit vector holds TWO weight rows (row v in lanes 0-7, row v + 1 in
// lanes 8-15) against the activation's 8 values copied into both halves:
// each row keeps its own 8 lanes and its own order, and one instruction does
// the work of two.
#include "kernels/matmul_simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/half.h"
#include "kernels/dot.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/matmul_simd_float.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/fused_mul_add-inl.h"

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#include <immintrin.h>
#endif

// GCC 12 reports zero-initialized accumulators as "maybe uninitialized" once
// the AVX3 copy is vectorized (a false positive, as in matmul_simd.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HWY_BEFORE_NAMESPACE();
namespace trit::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using trit::kernels::HWY_NAMESPACE::FusedMulAddV;

// Where a row's values are: row layout, or repack.h's row groups (rows
// 8G..8G+7 interleaved by 8 values: value k of row 8G + j at the group's
// start + (k / 8) * 64 * kE + j * 8 * kE + (k % 8) * kE, kE bytes a value).
template <int64_t kE>
struct FloatLayout {
  bool groups = false;
  // Row o's value 0.
  const uint8_t* Row(const FloatDotArgs& g, int64_t o) const {
    const uint8_t* base = static_cast<const uint8_t*>(g.w);
    if (!groups) return base + o * g.w_row_bytes;
    return base + (o / 8) * 8 * g.w_row_bytes + (o % 8) * 8 * kE;
  }
  // Value k of the row at `row` (k % 8 + the lanes read within 8).
  const uint8_t* At(const uint8_t* row, int64_t k) const {
    return groups ? row + (k / 8) * 64 * kE + (k % 8) * kE : row + k * kE;
  }
};

// rows(n) with n an integral_constant of the activation row count: 1
// (decode) and kTile (full tiles) compiled with it known, 0 read at run time
// (matmul_simd-inl.h's ByRowCount for kRowTile; that header needs the
// quantized kernels' definitions, which this file does not have).
template <int64_t kTile, class Rows>
HWY_INLINE void ByRowCount(int64_t n_a, const Rows& rows) {
  if (n_a == 1) {
    rows(std::integral_constant<int64_t, 1>());
  } else if (n_a == kTile) {
    rows(std::integral_constant<int64_t, kTile>());
  } else {
    rows(std::integral_constant<int64_t, 0>());
  }
}

// The rows of one call after the lanes: the tail elements (n_cols % 8; row
// layout only) into lanes 0.., then dot.h's tree. scalar(w, k) gives weight
// k of a row.
template <class Scalar>
HWY_INLINE float FinishRow(float* lanes, const float* x, const uint8_t* w, int64_t n8, int64_t n_cols,
                           const Scalar& scalar) {
  for (int64_t j = 0; n8 + j < n_cols; ++j) lanes[j] = std::fma(x[n8 + j], scalar(w, n8 + j), lanes[j]);
  return DotReduce(lanes);
}

// kW weight rows from o0 against the call's activation rows (kRows of them,
// 0: g.n_a read at run time) in vectors of up to 8 lanes. load(df, p) gives
// the values at p as floats.
template <int64_t kRows, int64_t kW, int64_t kMaxRows, int64_t kE, class Load, class Scalar>
HWY_INLINE void FloatRowsN(const FloatDotArgs& g, const FloatLayout<kE>& layout, int64_t o0, const Load& load,
                           const Scalar& scalar) {
  // A constant row count keeps the accumulators in registers: each lane is
  // one dependency chain (dot.h's order), so a round trip through memory
  // per step would double its latency. kW weight rows at once: more
  // independent chains (the FMAs' latency, not their throughput, bounds one
  // row), each weight vector widened once for all activation rows.
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const hn::CappedTag<float, 8> df;
  using VF = hn::VFromD<decltype(df)>;
  constexpr int64_t kL = static_cast<int64_t>(hn::MaxLanes(df));
  static_assert(kDotLanes % kL == 0, "the 8 lanes of dot.h in whole vectors");
  constexpr int64_t kG = kDotLanes / kL;
  const uint8_t* w[kW];
  for (int64_t v = 0; v < kW; ++v) w[v] = layout.Row(g, o0 + v);
  VF acc[kW][kMaxRows][kG];
  for (int64_t v = 0; v < kW; ++v) {
    for (int64_t r = 0; r < n_a; ++r) {
      for (int64_t i = 0; i < kG; ++i) acc[v][r][i] = hn::Zero(df);
    }
  }
  const int64_t n8 = g.n_cols - g.n_cols % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    for (int64_t i = 0; i < kG; ++i) {
      for (int64_t v = 0; v < kW; ++v) {
        const VF wv = load(df, layout.At(w[v], k + i * kL));
        for (int64_t r = 0; r < n_a; ++r) {
          acc[v][r][i] = FusedMulAddV(hn::LoadU(df, g.x + r * g.n_cols + k + i * kL), wv, acc[v][r][i]);
        }
      }
    }
  }
  for (int64_t v = 0; v < kW; ++v) {
    for (int64_t r = 0; r < n_a; ++r) {
      HWY_ALIGN float lanes[kDotLanes];
      for (int64_t i = 0; i < kG; ++i) hn::Store(acc[v][r][i], df, lanes + i * kL);
      g.y[o0 + v + r * g.y_stride] = FinishRow(lanes, g.x + r * g.n_cols, w[v], n8, g.n_cols, scalar);
    }
  }
}

// Up to kRowTile activation rows: one activation row runs 8 weight rows
// (8 chains); batches 3 (12 chains with 4 activation rows: 16 plus the
// weight vector would overflow AVX2's 16 registers, and a chain through the
// stack is as slow as one alone).
template <int64_t kRows, int64_t kE, class Load, class Scalar>
HWY_INLINE void FloatRowsAll(const FloatDotArgs& g, const FloatLayout<kE>& layout, const Load& load,
                             const Scalar& scalar) {
  constexpr int64_t kW = kRows == 1 ? 8 : kRows > 1 ? 3 : 1;
  int64_t o = 0;
  for (; o + kW <= g.n_w; o += kW) FloatRowsN<kRows, kW, kRowTile>(g, layout, o, load, scalar);
  for (; o < g.n_w; ++o) FloatRowsN<kRows, 1, kRowTile>(g, layout, o, load, scalar);
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define TRIT_FLOAT_PAIRS 1

// Decode's software prefetch distance in row layout, as the quantized
// kernels' kPrefetchAhead (matmul_simd-inl.h): f16 decode from memory, one
// core, 21.5 -> 24.4 GB/s (1 KiB the same, 4 KiB no gain).
constexpr int64_t kFloatPrefetchAhead = 2048;
// The same for row groups, one stream of 64 kE bytes a step. On Zen 5 the
// hardware prefetcher followed it alone (a software prefetch measured 2-5%
// slower there); on a Xeon (Emerald Rapids, KVM) it did not: kernels_bench
// f16 decode 32000 x 2048 from memory, 1 / 2 threads, 7.7 / 12.3 GB/s
// without, 9.7 / 16.3 at 1 KiB ahead, 10.6 / 17.7 at 4 KiB, 11.0 / 19.1-21.3
// at 8 KiB, 11.0 / 20.3 at 16 KiB. BitNet 2B4T's tied f16 LM head is more
// than half of its decode step.
constexpr int64_t kFloatGroupPrefetchAhead = 8192;

// kP pairs of weight rows from o0 (rows o0 + 2p and o0 + 2p + 1; the last
// row repeated in both halves for an odd count) against the call's
// activation rows. load2(a, b) gives the 8 values at a, then the 8 at b, as
// one 16-lane vector.
template <int64_t kRows, int64_t kP, int64_t kE, class Load2, class Scalar>
HWY_INLINE void FloatPairsN(const FloatDotArgs& g, const FloatLayout<kE>& layout, int64_t o0, int64_t n_rows,
                            const Load2& load2, const Scalar& scalar) {
  const int64_t n_a = kRows > 0 ? kRows : g.n_a;
  const uint8_t* w[2 * kP];
  for (int64_t v = 0; v < 2 * kP; ++v) w[v] = layout.Row(g, o0 + std::min(v, n_rows - 1));
  __m512 acc[kP][kFloatRowTile];
  for (int64_t p = 0; p < kP; ++p) {
    for (int64_t r = 0; r < n_a; ++r) acc[p][r] = _mm512_setzero_ps();
  }
  const int64_t n8 = g.n_cols - g.n_cols % kDotLanes;
  for (int64_t k = 0; k < n8; k += kDotLanes) {
    if (kRows == 1 && !layout.groups && (k * kE) % 64 == 0) {  // decode: each row's next lines into L1
      for (int64_t v = 0; v < 2 * kP; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(w[v] + k * kE + kFloatPrefetchAhead), _MM_HINT_T0);
      }
    }
    if (kRows == 1 && layout.groups && kP == 4) {  // decode over a whole group: one stream of 64 kE bytes a step
      const char* at = reinterpret_cast<const char*>(layout.At(w[0], k)) + kFloatGroupPrefetchAhead;
      for (int64_t line = 0; line < kE; ++line) _mm_prefetch(at + 64 * line, _MM_HINT_T0);
    }
    __m512 wv[kP];
    for (int64_t p = 0; p < kP; ++p) wv[p] = load2(layout.At(w[2 * p], k), layout.At(w[2 * p + 1], k));
    for (int64_t r = 0; r < n_a; ++r) {
      const __m512 xv = _mm512_broadcast_f32x8(_mm256_loadu_ps(g.x + r * g.n_cols + k));
      for (int64_t p = 0; p < kP; ++p) acc[p][r] = _mm512_fmadd_ps(xv, wv[p], acc[p][r]);
    }
  }
  for (int64_t p = 0; p < kP; ++p) {
    for (int64_t r = 0; r < n_a; ++r) {
      HWY_ALIGN float lanes[2 * kDotLanes];
      _mm512_store_ps(lanes, acc[p][r]);
      const float* x = g.x + r * g.n_cols;
      for (int64_t h = 0; h < 2 && 2 * p + h < n_rows; ++h) {
        g.y[o0 + 2 * p + h + r * g.y_stride] = FinishRow(lanes + h * kDotLanes, x, w[2 * p + h], n8, g.n_cols, scalar);
      }
    }
  }
}

// All of the call's weight rows: 4 pairs at a time (a row group; a 16-row
// block of matmul_optimized.cpp in two calls), then pairs one by one (the
// last one half used for an odd count). Measured on Zen 5 (kernels_bench,
// f16 rows, one core): a batch of 8 rows over 4 pairs ran 80-84 G MACs/s
// against 68 with 3 pairs (24 accumulators, no spill, but 16-row blocks left
// a pair over) and 71-72 with 2; decode over 1 or 2 pairs read 12-20 GB/s
// from memory against 22-24 (one chain per pair: the FMA's latency).
template <int64_t kRows, int64_t kE, class Load2, class Scalar>
HWY_INLINE void FloatPairsAll(const FloatDotArgs& g, const FloatLayout<kE>& layout, const Load2& load2,
                              const Scalar& scalar) {
  constexpr int64_t kP = 4;
  int64_t o = 0;
  for (; o + 2 * kP <= g.n_w; o += 2 * kP) FloatPairsN<kRows, kP>(g, layout, o, 2 * kP, load2, scalar);
  for (; o < g.n_w; o += 2) FloatPairsN<kRows, 1>(g, layout, o, std::min<int64_t>(2, g.n_w - o), load2, scalar);
}

// 8 16-bit values at a and 8 at b, a's in the low half (one load where a
// row group put them side by side).
HWY_INLINE __m256i Load16x2(const uint8_t* a, const uint8_t* b) {
  if (b == a + 16) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
#endif

// The call's activation rows (1..kFloatRowTile) in the tiles this target
// runs, for values of kE bytes.
template <int64_t kE, class Load, class Load2, class Scalar>
HWY_INLINE void FloatRows(const FloatDotArgs& g, const Load& load, [[maybe_unused]] const Load2& load2,
                          const Scalar& scalar) {
  FloatLayout<kE> layout;
  layout.groups = g.row_groups;
#ifdef TRIT_FLOAT_PAIRS
  ByRowCount<kFloatRowTile>(g.n_a, [&](auto rows) { FloatPairsAll<decltype(rows)::value>(g, layout, load2, scalar); });
#else
  for (int64_t r0 = 0; r0 < g.n_a; r0 += kRowTile) {
    FloatDotArgs part = g;
    part.n_a = std::min(kRowTile, g.n_a - r0);
    part.x = g.x + r0 * g.n_cols;
    part.y = g.y + r0 * g.y_stride;
    ByRowCount<kRowTile>(part.n_a, [&](auto rows) { FloatRowsAll<decltype(rows)::value>(part, layout, load, scalar); });
  }
#endif
}

void DotF32Kernel(const FloatDotArgs& g) {
  FloatRows<4>(
      g, [](auto df, const uint8_t* p) { return hn::LoadU(df, reinterpret_cast<const float*>(p)); },
#ifdef TRIT_FLOAT_PAIRS
      [](const uint8_t* a, const uint8_t* b) {
        return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(reinterpret_cast<const float*>(a))),
                                  _mm256_loadu_ps(reinterpret_cast<const float*>(b)), 1);
      },
#else
      nullptr,
#endif
      [](const uint8_t* w, int64_t k) { return reinterpret_cast<const float*>(w)[k]; });
}

void DotF16Kernel(const FloatDotArgs& g) {
  FloatRows<2>(
      g,
      [](auto df, const uint8_t* p) {
        const hn::Rebind<hwy::float16_t, decltype(df)> dh;
        return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
      },
#ifdef TRIT_FLOAT_PAIRS
      [](const uint8_t* a, const uint8_t* b) { return _mm512_cvtph_ps(Load16x2(a, b)); },
#else
      nullptr,
#endif
      [](const uint8_t* w, int64_t k) { return HalfToFloat(reinterpret_cast<const uint16_t*>(w)[k]); });
}

void DotBF16Kernel(const FloatDotArgs& g) {
  FloatRows<2>(
      g,
      [](auto df, const uint8_t* p) {
        const hn::Rebind<uint16_t, decltype(df)> du16;
        const hn::RebindToUnsigned<decltype(df)> du32;
        return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p)))));
      },
#ifdef TRIT_FLOAT_PAIRS
      [](const uint8_t* a, const uint8_t* b) {
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(Load16x2(a, b)), 16));
      },
#else
      nullptr,
#endif
      [](const uint8_t* w, int64_t k) { return Bf16ToFloat(reinterpret_cast<const uint16_t*>(w)[k]); });
}

// True when this target reads float row groups as one stream (AVX-512: a
// pair of rows is one load); the others read them value by value, correct
// but no faster than rows, so repack.h leaves float matrices as rows there.
bool HasFloatRowGroupKernelsImpl() {
#ifdef TRIT_FLOAT_PAIRS
  return true;
#else
  return false;
#endif
}

#undef TRIT_FLOAT_PAIRS

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels::simd
HWY_AFTER_NAMESPACE();
#pragma GCC diagnostic pop

#if HWY_ONCE
namespace trit::kernels::simd {

HWY_EXPORT(HasFloatRowGroupKernelsImpl);
HWY_EXPORT(DotF32Kernel);
HWY_EXPORT(DotF16Kernel);
HWY_EXPORT(DotBF16Kernel);

bool HasFloatRowGroupKernels() { return HWY_DYNAMIC_DISPATCH(HasFloatRowGroupKernelsImpl)(); }
void DotF32(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotF32Kernel)(args); }
void DotF16(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotF16Kernel)(args); }
void DotBF16(const FloatDotArgs& args) { HWY_DYNAMIC_DISPATCH(DotBF16Kernel)(args); }

}  // namespace trit::kernels::simd
#endif  // HWY_ONCE
