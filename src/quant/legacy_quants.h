// Scalar reference (de)quantizers of GGML's 32-element "legacy" blocks:
// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0. Byte layouts in block_formats.h.
//
// Dequantizers compute the same float expressions as ggml's
// dequantize_row_*; quantizers follow ggml's quantize_row_*_ref step by step
// (same scale choice, same rounding), so their bytes equal ggml's for finite
// input. `n` must be a multiple of 32 (checked); input must be finite.
#pragma once

#include <cstdint>

namespace trit::quant {

void DequantizeRowQ4_0(const void* src, float* dst, int64_t n);
void DequantizeRowQ4_1(const void* src, float* dst, int64_t n);
void DequantizeRowQ5_0(const void* src, float* dst, int64_t n);
void DequantizeRowQ5_1(const void* src, float* dst, int64_t n);
void DequantizeRowQ8_0(const void* src, float* dst, int64_t n);

void QuantizeRowQ4_0(const float* src, void* dst, int64_t n);
void QuantizeRowQ4_1(const float* src, void* dst, int64_t n);
void QuantizeRowQ5_0(const float* src, void* dst, int64_t n);
void QuantizeRowQ5_1(const float* src, void* dst, int64_t n);
void QuantizeRowQ8_0(const float* src, void* dst, int64_t n);

// One row of `n` values with its importance weights (`importance[i]` for
// column i, non-negative), as ggml's quantize_row_*_impl: bytes equal
// llama-quantize's with --imatrix. The whole row is needed (its mean square
// enters every block's weights). Q8_0 takes no weights, in ggml too.
void QuantizeRowWeightedQ4_0(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedQ4_1(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedQ5_0(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedQ5_1(const float* src, void* dst, int64_t n, const float* importance);

}  // namespace trit::quant
