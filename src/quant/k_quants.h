// Scalar reference (de)quantizers of GGML's K-quants: 256-element
// super-blocks made of 16 or 8 sub-blocks, each with its own quantized scale
// (and min). Byte layouts in block_formats.h.
//
// Dequantizers compute the same float expressions as ggml's
// dequantize_row_*. QuantizeRow* follow ggml's quantize_row_*_ref (the path
// `llama-quantize` takes without --imatrix) and QuantizeRowWeighted* its
// quantize_row_*_impl (the path with one): same scale searches, same float
// operation order, same rounding, so their bytes equal ggml's for finite
// input. `n` must be a multiple of 256 (checked).
#pragma once

#include <cstdint>

namespace trit::quant {

void DequantizeRowQ2_K(const void* src, float* dst, int64_t n);
void DequantizeRowQ3_K(const void* src, float* dst, int64_t n);
void DequantizeRowQ4_K(const void* src, float* dst, int64_t n);
void DequantizeRowQ5_K(const void* src, float* dst, int64_t n);
void DequantizeRowQ6_K(const void* src, float* dst, int64_t n);
void DequantizeRowQ8_K(const void* src, float* dst, int64_t n);

void QuantizeRowQ4_K(const float* src, void* dst, int64_t n);
void QuantizeRowQ5_K(const float* src, void* dst, int64_t n);
void QuantizeRowQ6_K(const float* src, void* dst, int64_t n);

// One row of `n` values with its importance weights (`importance[i]` for
// column i: the mean squared activation that column's input saw, from an
// importance matrix; non-negative). The searches then minimise the error
// the weights say the model feels rather than the plain squared error.
void QuantizeRowWeightedQ4_K(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedQ5_K(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedQ6_K(const float* src, void* dst, int64_t n, const float* importance);

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block, from
// its 12 packed bytes: sub-blocks 0..3 keep theirs in the low 6 bits of bytes
// j (scale) and j + 4 (min); sub-blocks 4..7 keep their low 4 bits in byte
// j + 4 (scale low nibble, min high nibble) and their top 2 bits in the top
// bits of bytes j - 4 (scale) and j (min).
void GetScaleMinK4(int j, const uint8_t* packed, uint8_t* scale, uint8_t* min);

}  // namespace trit::quant
