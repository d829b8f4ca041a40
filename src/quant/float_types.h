// Scalar reference conversions of the plain element types (F32, F16, BF16)
// to and from float32. Signatures match DequantizeFn / QuantizeFn (types.h):
// `n` is an element count; src and dst may have any alignment.
#pragma once

#include <cstdint>

namespace trit::quant {

void DequantizeRowF32(const void* src, float* dst, int64_t n);
void QuantizeRowF32(const float* src, void* dst, int64_t n);

// IEEE binary16, little-endian. Float -> half rounds to nearest even.
void DequantizeRowF16(const void* src, float* dst, int64_t n);
void QuantizeRowF16(const float* src, void* dst, int64_t n);

// bfloat16 (the top 16 bits of a float32), little-endian. Rounds to nearest
// even; NaN stays a quiet NaN (ggml_compute_fp32_to_bf16).
void DequantizeRowBF16(const void* src, float* dst, int64_t n);
void QuantizeRowBF16(const float* src, void* dst, int64_t n);

}  // namespace trit::quant
