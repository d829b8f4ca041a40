// Scalar reference (de)quantizers of GGML's non-linear 4-bit formats, IQ4_NL
// and IQ4_XS: 4-bit indices into one fixed 16-entry int8 codebook, times a
// scale. Byte layouts in block_formats.h.
//
// Dequantizers compute the same float expressions as ggml's
// dequantize_row_iq4_nl / dequantize_row_iq4_xs, so files from llama-quantize
// are read bit for bit. The quantizers are trit's own (a weighted
// least-squares scale search, docs/QUANT_FORMATS.md), not ggml's: their
// blocks are valid IQ4 blocks any GGML reader decodes, but their bytes
// differ from llama-quantize's. With importance weights they weigh the error
// as ggml does with an importance matrix. `n` must be a multiple of 32 (IQ4_NL) / 256 (IQ4_XS)
// (checked); input must be finite.
#pragma once

#include <cstdint>

namespace trit::quant {

// GGML's kvalues_iq4nl: the value of each 4-bit index (ascending, not
// symmetric: -127 .. 113). x = d * kIQ4NLValues[q].
inline constexpr int8_t kIQ4NLValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

void DequantizeRowIQ4_NL(const void* src, float* dst, int64_t n);
void DequantizeRowIQ4_XS(const void* src, float* dst, int64_t n);

void QuantizeRowIQ4_NL(const float* src, void* dst, int64_t n);
void QuantizeRowIQ4_XS(const float* src, void* dst, int64_t n);

// One row of `n` values with its importance weights (`importance[i]` for
// column i, non-negative).
void QuantizeRowWeightedIQ4_NL(const float* src, void* dst, int64_t n, const float* importance);
void QuantizeRowWeightedIQ4_XS(const float* src, void* dst, int64_t n, const float* importance);

// The 6-bit scale (0..63; the sub-block's scale is d * (ls - 32)) of
// sub-block ib (0..7) of an IQ4_XS block: low 4 bits in scales_l[ib / 2]
// (low nibble for even ib), high 2 bits at bit 2 ib of the little-endian
// uint16 scales_h.
// (Inline: the kernels read it per sub-block.)
inline int IQ4XSScale(const uint8_t* scales_h, const uint8_t* scales_l, int ib) {
  const int low = (scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0F;
  const int high = ((scales_h[0] | (scales_h[1] << 8)) >> (2 * ib)) & 3;
  return low | (high << 4);
}

}  // namespace trit::quant
