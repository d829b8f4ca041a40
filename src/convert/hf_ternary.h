// BitNet b1.58's ternary weights for `trit convert` (HfTernary in
// hf_architecture.h): every form a Hugging Face checkpoint holds them in
// made into codes t in {-1, 0, 1} and one float scale per tensor, value
// t * scale, and those written as any output type without rounding the
// scale (i2_s keeps it in its trailer; tq1_0 and tq2_0 use d = 1 blocks and
// leave it to a `.scale` tensor). Sources, quoted in docs/CONVERT.md:
// bitnet.cpp's utils/convert-hf-to-gguf-bitnet.py (BitnetModel.weight_quant)
// and transformers' integrations/bitnet.py (WeightQuant, unpack_weights,
// BitLinear, AutoBitLinear).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "formats/safetensors/dtype.h"
#include "quant/types.h"

namespace trit::convert {

struct TernaryWeight {
  std::vector<int8_t> t;  // row-major, as the checkpoint's [rows, cols]
  float scale = 0.0f;     // value = t * scale
};

// A float master weight (F32, F16 or BF16; n elements), as BitNet's absmean
// rule in float32: mean = mean |w| (summed in double, rounded once),
// s = 1 / max(mean, 1e-5), t = clamp(round-half-even(w * s), -1, 1), and
// scale = 1 / s in float32, which is what t / s is for t = +-1. Errors:
// kUnsupported for another dtype, kCorrupt naming the element of a NaN or
// infinity.
Expected<TernaryWeight> TernarizeAbsmean(safetensors::Dtype dtype, std::span<const uint8_t> data, int64_t n);

// How a packed checkpoint's weight_scale gives the value of a code t.
enum class WeightScaleRule {
  kDivide,    // BitLinear: y / (input_scale * weight_scale), so t / weight_scale
  kMultiply,  // AutoBitLinear (offline): y * weight_scale, so t * weight_scale
};

// transformers' packed weight (pack_weights / unpack_weights): `packed` U8
// [rows / 4, cols], row i * rows / 4 + j of the weight in bits 2i..2i+1 of
// packed row j, t = code - 1; `weight_scale` one F32/F16/BF16 value; the
// scale 1 / weight_scale or weight_scale, as `rule` says.
// Errors (kCorrupt): code 3 (t = 2, which no ternary type holds), naming the
// element; a weight_scale that is not a finite number > 0.
Expected<TernaryWeight> UnpackBitnetWeight(std::span<const uint8_t> packed, int64_t rows, int64_t cols,
                                           safetensors::Dtype scale_dtype, std::span<const uint8_t> weight_scale,
                                           WeightScaleRule rule);

// w (cols values a row) into `out` as `type`: f32, f16, bf16, q8_0: the
// values t * scale as ConvertElements writes float32 ones; i2_s: the codes
// packed (quant::PackI2S) and the scale in the trailer; tq1_0, tq2_0: t with
// d = 1 a block (ggml's quantizers, exact on {-1, 0, 1}), the scale left to
// the caller. `out` is the tensor's size in `type`; cols a whole number of
// the type's blocks (TRIT_CHECK).
Status WriteTernary(const TernaryWeight& w, int64_t cols, quant::GgmlType type, std::span<uint8_t> out);

// i2_s, tq2_0, tq1_0: the types that hold ternary weights exactly.
bool IsTernaryType(quant::GgmlType type);

}  // namespace trit::convert
