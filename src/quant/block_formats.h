// Byte layouts of GGML's quantized blocks, exactly as GGUF stores them
// (ggml/src/ggml-common.h). Every field is a byte array so a block can be read
// from any address (a mapped file, an unaligned buffer) and multi-byte values
// are decoded explicitly as little-endian (GGUF's byte order) with the loaders
// below. The static_asserts pin each size to ggml's; the type table
// (types.cpp) takes its bytes-per-block from these structs.
#pragma once

#include <cstdint>
#include <cstring>

#include "base/half.h"

namespace trit::quant {

// Elements per super-block of the K-, IQ- and ternary formats.
inline constexpr int kQK_K = 256;
// Bytes of the 6-bit packed scales and mins of Q4_K/Q5_K (see GetScaleMinK4).
inline constexpr int kKScaleSize = 12;

// --- Legacy formats: 32 elements, one fp16 scale (and min) per block ---

inline constexpr int kQK4_0 = 32;
// x = d * (q - 8), q in 0..15. qs[j] holds element j (low nibble) and j + 16 (high nibble).
struct BlockQ4_0 {
  uint8_t d[2];  // fp16 scale
  uint8_t qs[kQK4_0 / 2];
};
static_assert(sizeof(BlockQ4_0) == 18);

inline constexpr int kQK4_1 = 32;
// x = d * q + m, q in 0..15; nibbles as Q4_0.
struct BlockQ4_1 {
  uint8_t d[2];  // fp16 scale
  uint8_t m[2];  // fp16 min
  uint8_t qs[kQK4_1 / 2];
};
static_assert(sizeof(BlockQ4_1) == 20);

inline constexpr int kQK5_0 = 32;
// x = d * (q - 16), q in 0..31: low 4 bits as Q4_0's nibbles, bit 4 of
// element j is bit j of the little-endian uint32 qh.
struct BlockQ5_0 {
  uint8_t d[2];  // fp16 scale
  uint8_t qh[4];
  uint8_t qs[kQK5_0 / 2];
};
static_assert(sizeof(BlockQ5_0) == 22);

inline constexpr int kQK5_1 = 32;
// x = d * q + m, q in 0..31; bits as Q5_0.
struct BlockQ5_1 {
  uint8_t d[2];  // fp16 scale
  uint8_t m[2];  // fp16 min
  uint8_t qh[4];
  uint8_t qs[kQK5_1 / 2];
};
static_assert(sizeof(BlockQ5_1) == 24);

inline constexpr int kQK8_0 = 32;
// x = d * q, q an int8.
struct BlockQ8_0 {
  uint8_t d[2];  // fp16 scale
  int8_t qs[kQK8_0];
};
static_assert(sizeof(BlockQ8_0) == 34);

inline constexpr int kQK8_1 = 32;
// As Q8_0 plus s = d * sum(qs): an activation format for dot products.
struct BlockQ8_1 {
  uint8_t d[2];  // fp16 scale
  uint8_t s[2];  // fp16 d * sum(qs)
  int8_t qs[kQK8_1];
};
static_assert(sizeof(BlockQ8_1) == 36);

// --- K-quants: 256-element super-blocks of 16 or 8 sub-blocks ---

// 16 sub-blocks of 16: x = d * (scales[i] & 15) * q - dmin * (scales[i] >> 4), q in 0..3.
struct BlockQ2_K {
  uint8_t scales[kQK_K / 16];
  uint8_t qs[kQK_K / 4];
  uint8_t d[2];     // fp16 scale of the scales
  uint8_t dmin[2];  // fp16 scale of the mins
};
static_assert(sizeof(BlockQ2_K) == 84);

// 16 sub-blocks of 16: x = d * (s - 32) * (q - 4), q in 0..7 (2 low bits in qs,
// high bit in hmask), s a 6-bit scale packed in 12 bytes.
struct BlockQ3_K {
  uint8_t hmask[kQK_K / 8];
  uint8_t qs[kQK_K / 4];
  uint8_t scales[12];
  uint8_t d[2];  // fp16
};
static_assert(sizeof(BlockQ3_K) == 110);

// 8 sub-blocks of 32: x = d * sc * q - dmin * m, q in 0..15, sc and m 6-bit.
struct BlockQ4_K {
  uint8_t d[2];     // fp16 scale of the scales
  uint8_t dmin[2];  // fp16 scale of the mins
  uint8_t scales[kKScaleSize];
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ4_K) == 144);

// As Q4_K with a fifth bit per element in qh: q in 0..31.
struct BlockQ5_K {
  uint8_t d[2];
  uint8_t dmin[2];
  uint8_t scales[kKScaleSize];
  uint8_t qh[kQK_K / 8];
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ5_K) == 176);

// 16 sub-blocks of 16: x = d * scales[i] * (q - 32), q in 0..63 (4 low bits in
// ql, 2 high bits in qh), scales int8.
struct BlockQ6_K {
  uint8_t ql[kQK_K / 2];
  uint8_t qh[kQK_K / 4];
  int8_t scales[kQK_K / 16];
  uint8_t d[2];  // fp16
};
static_assert(sizeof(BlockQ6_K) == 210);

// Activation format of the K-quant dot products: x = d * q, d a float32.
struct BlockQ8_K {
  uint8_t d[4];  // float32
  int8_t qs[kQK_K];
  uint8_t bsums[kQK_K / 16 * 2];  // int16 sums of each 16 quants
};
static_assert(sizeof(BlockQ8_K) == 292);

// --- Ternary formats (BitNet b1.58, TriLM): x = d * t, t in {-1, 0, 1} ---

// 240 trits packed 5 per byte in qs, 16 trits 4 per byte in qh (see
// ternary_quants.cpp for the base-3 fixed-point packing).
struct BlockTQ1_0 {
  uint8_t qs[(kQK_K - 4 * kQK_K / 64) / 5];
  uint8_t qh[kQK_K / 64];
  uint8_t d[2];  // fp16
};
static_assert(sizeof(BlockTQ1_0) == 54);

// 2 bits per trit, stored as t + 1.
struct BlockTQ2_0 {
  uint8_t qs[kQK_K / 4];
  uint8_t d[2];  // fp16
};
static_assert(sizeof(BlockTQ2_0) == 66);

// --- Microscaling FP4 ---

inline constexpr int kQKMxfp4 = 32;
// x = 2^(e - 128) * v, v an E2M1 value (times 2) from a 16-entry table.
struct BlockMxfp4 {
  uint8_t e;  // E8M0 exponent
  uint8_t qs[kQKMxfp4 / 2];
};
static_assert(sizeof(BlockMxfp4) == 17);

// --- i-quants (codebook formats; sizes only, except IQ4_NL and IQ4_XS) ---

struct BlockIQ2_XXS {
  uint8_t d[2];
  uint8_t qs[kQK_K / 8 * 2];
};
static_assert(sizeof(BlockIQ2_XXS) == 66);

struct BlockIQ2_XS {
  uint8_t d[2];
  uint8_t qs[kQK_K / 8 * 2];
  uint8_t scales[kQK_K / 32];
};
static_assert(sizeof(BlockIQ2_XS) == 74);

struct BlockIQ2_S {
  uint8_t d[2];
  uint8_t qs[kQK_K / 4];
  uint8_t qh[kQK_K / 32];
  uint8_t scales[kQK_K / 32];
};
static_assert(sizeof(BlockIQ2_S) == 82);

struct BlockIQ3_XXS {
  uint8_t d[2];
  uint8_t qs[3 * kQK_K / 8];
};
static_assert(sizeof(BlockIQ3_XXS) == 98);

struct BlockIQ3_S {
  uint8_t d[2];
  uint8_t qs[kQK_K / 4];
  uint8_t qh[kQK_K / 32];
  uint8_t signs[kQK_K / 8];
  uint8_t scales[kQK_K / 64];
};
static_assert(sizeof(BlockIQ3_S) == 110);

struct BlockIQ1_S {
  uint8_t d[2];
  uint8_t qs[kQK_K / 8];
  uint8_t qh[kQK_K / 32 * 2];
};
static_assert(sizeof(BlockIQ1_S) == 50);

struct BlockIQ1_M {
  uint8_t qs[kQK_K / 8];
  uint8_t qh[kQK_K / 16];
  uint8_t scales[kQK_K / 32];
};
static_assert(sizeof(BlockIQ1_M) == 56);

// The two 4-bit i-quants index one 16-entry int8 codebook (kIQ4NLValues,
// iq_quants.h) instead of a lattice; trit decodes and produces both.
inline constexpr int kQK4_NL = 32;
// x = d * kIQ4NLValues[q], q a nibble packed as in Q4_0.
struct BlockIQ4_NL {
  uint8_t d[2];
  uint8_t qs[kQK4_NL / 2];
};
static_assert(sizeof(BlockIQ4_NL) == 18);

// 8 sub-blocks of 32: x = d * (ls - 32) * kIQ4NLValues[q], ls a 6-bit scale
// (low 4 bits in scales_l[i / 2], low nibble for even i; high 2 bits at bit
// 2i of the little-endian uint16 scales_h); qs[16 i + j] holds element j of
// sub-block i (low nibble) and j + 16 (high nibble).
struct BlockIQ4_XS {
  uint8_t d[2];
  uint8_t scales_h[2];
  uint8_t scales_l[kQK_K / 64];
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockIQ4_XS) == 136);

// --- Little-endian field access ---

inline uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

inline uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline void StoreU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

inline void StoreU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline float LoadF16(const uint8_t* p) { return HalfToFloat(LoadU16(p)); }
inline void StoreF16(uint8_t* p, float v) { StoreU16(p, FloatToHalf(v)); }
inline float LoadF32(const uint8_t* p) { return BitsToFloat(LoadU32(p)); }

}  // namespace trit::quant
