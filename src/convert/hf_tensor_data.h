// The type each converted tensor gets in the GGUF file, and the conversion
// of its elements from the checkpoint's dtype, for `trit convert`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "formats/safetensors/dtype.h"
#include "quant/types.h"

namespace trit::convert {

// The types `trit convert --type` writes, as llama.cpp's converter's
// --outtype f32, f16, bf16 and q8_0 (the one list the CLI and the library check).
inline constexpr quant::GgmlType kHfConvertTypes[] = {quant::GgmlType::kF32, quant::GgmlType::kF16,
                                                      quant::GgmlType::kBF16, quant::GgmlType::kQ8_0};
bool IsHfConvertType(quant::GgmlType type);
// "f32, f16, bf16 or q8_0", for messages.
std::string HfConvertTypeNames();

// llama.cpp's converter's rule (ModelBase.prepare_tensors): float32 for a
// tensor of at most one dimension, a "*_norm.weight", a name not ending in
// ".weight", and position_embd / token_types / ssm_conv1d / an MoE router's
// ffn_gate_inp (llama.cpp reads them as float32); `requested` (one of kHfConvertTypes) for every other tensor,
// except that where the requested type's block does not divide the row
// (q8_0: rows of 32 values; `gguf_shape[0]`, GGUF order, is the row length)
// the tensor is f16, as gguf-py's QuantError makes the converter fall back.
// `requested` may also be i2_s, tq2_0 or tq1_0 (BitNet checkpoints): then
// every matrix but BitNet's ternary weights (which the caller types) is
// f16, as bitnet.cpp's converter keeps embeddings, and the f32 rule stands.
quant::GgmlType GgufTypeFor(std::string_view gguf_name, std::span<const int64_t> gguf_shape,
                            quant::GgmlType requested);

// Converts the little-endian elements of `src` (of `dtype`: F32, F16 or
// BF16) into `out`, laid out as `type` (one of kHfConvertTypes) for as many
// elements, as gguf-py's quantize() does on what the converter hands it (a
// BF16 source widened to float32 first, which is exact):
//   f32: exact; f16 -> f16 copies the bytes;
//   f16: rounds to nearest even (base/half.h);
//   bf16: rounds to nearest even, a NaN made quiet (bit 6 of the bf16 set),
//         even from a BF16 source, whose bytes are therefore not just copied;
//   q8_0: ggml's reference quantizer (quant/legacy_quants.h), blocks of 32
//         in element order; the element count must be a multiple of 32 (the
//         caller picked the type with GgufTypeFor, TRIT_CHECK).
// `out` must be exactly the elements' size in `type` (TRIT_CHECK).
// Errors: kUnsupported naming the dtype for any other dtype; for q8_0,
// kUnsupported naming the element of a NaN or infinity, which q8_0 cannot
// hold (gguf-py writes an undefined byte there).
Status ConvertElements(safetensors::Dtype dtype, std::span<const uint8_t> src, quant::GgmlType type,
                       std::span<uint8_t> out);

}  // namespace trit::convert
