// The type each converted tensor gets in the GGUF file, and the conversion
// of its elements from the checkpoint's dtype, for `trit convert`.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"
#include "formats/safetensors/dtype.h"
#include "quant/types.h"

namespace trit::convert {

// llama.cpp's converter's rule (ModelBase.prepare_tensors): float32 for a
// tensor of at most one dimension, a "*_norm.weight", a name not ending in
// ".weight", and position_embd / token_types (llama.cpp reads them as
// float32); `requested` (kF32 or kF16) for every other tensor.
quant::GgmlType GgufTypeFor(std::string_view gguf_name, size_t n_dims, quant::GgmlType requested);

// Converts the little-endian elements of `src` (of `dtype`: F32, F16 or
// BF16) into `out`, whose type is kF32 or kF16, element for element:
// F32 -> F16 rounds to nearest even (base/half.h), every other direction is
// exact. `out` must hold exactly as many elements as `src` (TRIT_CHECK).
// kUnsupported, naming the dtype, for any other dtype.
Status ConvertElements(safetensors::Dtype dtype, std::span<const uint8_t> src, quant::GgmlType type,
                       std::span<uint8_t> out);

}  // namespace trit::convert
