// Scalar reference (de)quantizers of GGML's ternary formats TQ1_0 (1.6875
// bits per weight) and TQ2_0 (2.0625 bpw), for BitNet b1.58 / TriLM weights:
// x = d * t with t in {-1, 0, 1}, one fp16 d per 256 elements.
//
// Quantizers follow ggml's quantize_row_tq*_ref: d = max |x| of the block,
// t = round(x / d) (half away from zero). Values that are already in
// {-d, 0, +d} (with d exact in fp16) round-trip exactly. `n` must be a
// multiple of 256 (checked); input must be finite.
#pragma once

#include <cstdint>

namespace trit::quant {

void DequantizeRowTQ1_0(const void* src, float* dst, int64_t n);
void DequantizeRowTQ2_0(const void* src, float* dst, int64_t n);

void QuantizeRowTQ1_0(const float* src, void* dst, int64_t n);
void QuantizeRowTQ2_0(const float* src, void* dst, int64_t n);

}  // namespace trit::quant
