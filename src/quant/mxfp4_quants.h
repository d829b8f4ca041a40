// Scalar reference (de)quantizer of GGML's MXFP4 (OCP microscaling FP4, the
// experts of gpt-oss): blocks of 32 E2M1 values sharing one E8M0 exponent.
// Byte layout in block_formats.h (BlockMxfp4: e, then qs[16] with element j
// in the low nibble of qs[j] and element j + 16 in the high one, as q4_0).
//
// Both follow ggml (ggml-quants.c dequantize_row_mxfp4 and
// quantize_row_mxfp4_ref) expression for expression, so files from
// llama-quantize are read bit for bit and trit writes the bytes it writes
// (tests/quant/weighted_quantize_test.cpp checks against ggml's own). `n`
// must be a multiple of 32 (checked); input must be finite.
#pragma once

#include <cstdint>
#include <cstring>

namespace trit::quant {

// GGML's kvalues_mxfp4: the 16 E2M1 codes as twice their value (so they
// are integers): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives (code 8 is
// -0, stored as 0). x = E8M0ToFloatHalf(e) * kMxfp4Values[q].
inline constexpr int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// Half the E8M0 scale 2^(e - 127), i.e. 2^(e - 128) (halved because the
// table is doubled), as ggml's GGML_E8M0_TO_FP32_HALF computes it: e = 0
// and 1 give the subnormals 2^-128 and 2^-127, e = 254 gives 2^126 and
// e = 255, which the OCP format reserves for NaN, gives 2^127 (ggml does not
// treat it apart, so neither does trit). Exact for every e.
// (Inline: the kernels convert one per block.)
inline float E8M0ToFloatHalf(uint8_t e) {
  const uint32_t bits = e < 2 ? uint32_t{0x00200000} << e : static_cast<uint32_t>(e - 1) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void DequantizeRowMXFP4(const void* src, float* dst, int64_t n);
void QuantizeRowMXFP4(const float* src, void* dst, int64_t n);

}  // namespace trit::quant
