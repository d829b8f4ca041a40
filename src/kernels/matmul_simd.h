// The per-CPU-target dot-product kernels behind MatMulOptimized
// (matmul_optimized.h), compiled once per Highway target in matmul_simd.cpp
// (q2_K, q3_K: matmul_simd_kquants_low.cpp; iq4_nl, iq4_xs, mxfp4:
// matmul_simd_iq4.cpp; f32, f16, bf16: matmul_simd_float.cpp) and chosen at run time
// (HWY_DYNAMIC_DISPATCH). Internal to kernels/.
//
// Every kernel computes, for n_w consecutive weight rows and up to kRowTile
// activation rows (kGroupRowTile from row groups, kFloatRowTile for the
// float types), each result with the same arithmetic sequence whatever the
// number of rows it is given and whatever the target:
//   quantized types: per weight block b an exact integer dot product
//     isum_b = sum q_w * q_a (with the type's offset taken out through the
//     activation block sum), then acc[b % 8] += (d_w(b) * d_a(b)) * isum_b
//     in increasing b (8 blocks at a time, lane b % 8 of a float vector),
//     and the 8 lanes summed in dot.h's fixed tree (Q4_K:
//     acc[b % 8] += (d * d_a) * A_b - (dmin * d_a) * B_b, A_b = sum over
//     sub-blocks of scale * isum, B_b = sum of min * activation sums; Q5_K
//     the same, and Q2_K with sub-blocks of 16; Q6_K one term, isum = sum
//     over sub-blocks of scale * (sum q a - 32 * activation sum), Q3_K the
//     same with q3 + 4 and 4; IQ4_NL isum = sum v[q] a over the codebook
//     values v, IQ4_XS isum = sum over sub-blocks of (ls - 32) sum v[q] a,
//     MXFP4 isum = sum v[q] a over the doubled E2M1 values v, with
//     d_w = 2^(e - 128) from the block's E8M0 byte);
//   float types (f32, f16, bf16): dot.h's order exactly (element k into lane
//     k % 8, lanes summed in the fixed tree), so they equal the reference
//     MatMul bit for bit.
#pragma once

#include <cstdint>

namespace trit::kernels::simd {

// Activation rows one kernel call handles at once, each weight block decoded
// once for all of them.
inline constexpr int64_t kRowTile = 4;
// The same for row-group matrices (repack.h): their kernels cost less per
// activation row, so sharing each decoded block among more rows pays.
inline constexpr int64_t kGroupRowTile = 8;
// The same for float weights (matmul_simd_float.cpp): AVX-512 runs this
// many activation rows against 4 pairs of weight rows; other targets take
// them kRowTile at a time.
inline constexpr int64_t kFloatRowTile = 8;

struct QuantDotArgs {
  const uint8_t* w = nullptr;        // n_w weight rows of n_blocks blocks, w_row_bytes apart
  int64_t n_w = 1;
  int64_t w_row_bytes = 0;
  int64_t n_blocks = 0;
  const int8_t* a = nullptr;         // (n_a, a_stride) activations quantized per row (activation_quant.h)
  const float* a_scale = nullptr;    // (n_a, n_blocks) activation block scales
  const int32_t* a_sum = nullptr;    // (n_a, n_blocks) activation block sums of q
  const int32_t* a_sum32 = nullptr;  // (n_a, a_stride / 32) sums of q per 32 elements (Q4_K, Q5_K)
  const int32_t* a_sum16 = nullptr;  // (n_a, a_stride / 16) sums of q per 16 elements (Q2_K, Q3_K, Q6_K; null for 32-element blocks)
  int64_t a_stride = 0;              // elements between activation rows (= row length)
  int64_t n_a = 0;                   // 1..kRowTile (1..kGroupRowTile with row_groups)
  float* y = nullptr;                // weight row o, activation row r: y[o + r * y_stride]
  int64_t y_stride = 0;
  bool row_groups = false;           // w is in repack.h's row-group layout (n_w a multiple of 8; repack.h's types)
};

struct FloatDotArgs {
  const void* w = nullptr;    // n_w weight rows of n_cols f32, f16 or bf16 values, w_row_bytes apart
  int64_t n_w = 1;
  int64_t w_row_bytes = 0;
  int64_t n_cols = 0;
  const float* x = nullptr;   // (n_a, n_cols)
  int64_t n_a = 0;            // 1..kFloatRowTile
  float* y = nullptr;         // weight row o, activation row r: y[o + r * y_stride]
  int64_t y_stride = 0;
  bool row_groups = false;    // w is in repack.h's row-group layout (n_w a multiple of 8, n_cols of 8; f16, bf16)
};

// True when the dispatched target has kernels reading the row-group layout
// directly (x86 with 256-bit vectors); the others restore rows on the fly.
bool HasRowGroupKernels();
// True when the dispatched target reads f16/bf16 row groups faster than rows
// (x86 with AVX-512).
bool HasFloatRowGroupKernels();

// Weight block formats (quant/block_formats.h) with a kernel here.
void DotTQ2_0(const QuantDotArgs& args);  // 256-element activation blocks
void DotTQ1_0(const QuantDotArgs& args);  // 256-element activation blocks
void DotQ4_0(const QuantDotArgs& args);   // 32-element activation blocks
void DotQ8_0(const QuantDotArgs& args);   // 32-element activation blocks
void DotQ4_1(const QuantDotArgs& args);   // 32-element activation blocks
void DotQ5_0(const QuantDotArgs& args);   // 32-element activation blocks
void DotQ5_1(const QuantDotArgs& args);   // 32-element activation blocks
void DotQ2_K(const QuantDotArgs& args);   // 256-element activation blocks, with a_sum16
void DotQ3_K(const QuantDotArgs& args);   // 256-element activation blocks, with a_sum16
void DotQ4_K(const QuantDotArgs& args);   // 256-element activation blocks, with a_sum32
void DotQ5_K(const QuantDotArgs& args);   // 256-element activation blocks, with a_sum32
void DotQ6_K(const QuantDotArgs& args);   // 256-element activation blocks, with a_sum16
void DotIQ4_NL(const QuantDotArgs& args);  // 32-element activation blocks
void DotIQ4_XS(const QuantDotArgs& args);  // 256-element activation blocks
void DotMXFP4(const QuantDotArgs& args);   // 32-element activation blocks
void DotF32(const FloatDotArgs& args);
void DotF16(const FloatDotArgs& args);
void DotBF16(const FloatDotArgs& args);

}  // namespace trit::kernels::simd
