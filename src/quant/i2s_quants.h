// BitNet's I2_S (GGML type 36 in bitnet.cpp's llama.cpp fork; not in
// upstream ggml), as bitnet.cpp's x86 quantize_i2_s writes it and its
// converter (utils/convert-hf-to-gguf-bitnet.py, quantize_to_i2_s) does too:
//
//   packed:  n / 4 bytes, 128 values per 32-byte block. Byte 32 i + p holds
//            values 128 i + 32 g + p (g = 0..3) in bits 6 - 2g .. 7 - 2g,
//            i.e. the first 32 values in the top two bits of the 32 bytes.
//            Codes 0, 1, 2 are -1, 0, +1 (code 3, never written, reads as
//            +2, as bitnet.cpp's kernels and TQ2_0 read it).
//   trailer: 32 bytes after the packed values, once per tensor: the float32
//            scale in the first 4, then padding (bitnet.cpp's converter
//            writes zeros there; trit does too, and never reads it).
//   value:   x = scale * t, one scale for the whole tensor.
//
// So a tensor of n elements takes n / 4 + 32 bytes (bitnet.cpp's ggml_nbytes
// special case), and row r of a matrix with n_cols values (n_cols % 128 ==
// 0) is the n_cols / 4 bytes from r * n_cols / 4. ARM builds of bitnet.cpp
// pack 64-value blocks instead (QK_I2_S 64); those files are not this layout
// and nothing in the file tells them apart, so trit documents x86's, which is
// what Microsoft's published GGUF files use. Full account with sources:
// docs/QUANT_FORMATS.md.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"

namespace trit::quant {

inline constexpr int64_t kQKI2S = 128;
inline constexpr uint64_t kI2STrailerBytes = 32;

// Bytes of an I2_S tensor of n elements (n a multiple of 128): n / 4 + 32.
uint64_t I2SBytes(int64_t n);

// The n ternary codes' values t in {-1, 0, 1} (2 for code 3) of the packed
// bytes (n / 4 of them; n a multiple of 128) into t.
void UnpackI2S(const uint8_t* packed, int8_t* t, int64_t n);
// The inverse: packs t (each -1, 0 or 1) into n / 4 bytes.
void PackI2S(const int8_t* t, uint8_t* packed, int64_t n);

// Writes the trailer of an I2_S tensor of n elements (its bytes, I2SBytes(n)
// of them): `scale`, then zeros.
void WriteI2STrailer(std::span<uint8_t> tensor, int64_t n, float scale);

// The scale of a whole I2_S tensor (its bytes, I2SBytes(n) of them).
float I2SScale(std::span<const uint8_t> tensor);

// x (n) = scale * t for the whole tensor.
void DequantizeI2S(std::span<const uint8_t> tensor, float* x, int64_t n);

// A whole tensor of n floats into I2SBytes(n) bytes, as bitnet.cpp's
// quantize_i2_s does: scale = max |x| (in double, stored as float), t = 0
// where |x| < 1e-6, else the sign of x. That rule is exact only for weights
// that are already ternary (every nonzero |x| equal), which is what BitNet's
// converters hand it; anything else would be lost silently, so this refuses
// input whose nonzero magnitudes differ from the scale by more than a
// relative 1e-3 (a value rounded to f16 differs by at most 2^-11), naming the
// first such value. `scale_multiplier` multiplies the stored scale (the
// tensor's separate per-tensor `.scale`, folded in; 1 for none).
Status QuantizeI2S(const float* x, int64_t n, float scale_multiplier, std::span<uint8_t> tensor);

// Row `row` (n_cols values, n_cols a multiple of 256) of an I2_S matrix
// rewritten as n_cols / 256 TQ2_0 blocks with d = 1: the same 2-bit codes,
// reordered (TQ2_0 puts value 128 j + 32 l + m of a block in bits 2l of byte
// 32 j + m; I2_S in bits 6 - 2l), so t is unchanged and the tensor's scale is
// left to the caller. `tensor` is the whole I2_S tensor.
void I2SRowToTQ2_0(std::span<const uint8_t> tensor, int64_t n_cols, int64_t row, uint8_t* out);

}  // namespace trit::quant
