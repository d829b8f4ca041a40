// The value changes llama.cpp's converter makes to some tensors (HfTransform),
// done on the checkpoint's own bytes before the type conversion, so that the
// result rounds exactly as torch's does in the checkpoint's dtype.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "convert/hf_architecture.h"
#include "formats/safetensors/dtype.h"

namespace trit::convert {

// kPermuteRope (LlamaModel.permute): a (n_out, n_in) weight seen as
// (n_head, 2, n_out / n_head / 2, n_in) with axes 1 and 2 swapped: row
// h*2k + 2i + j of the result is row h*2k + j*k + i of `src` (k = half a
// head). llama.cpp's rope rotates adjacent pairs, Hugging Face's rotates
// the two halves of a head. Pure row moves, so any dtype.
// kAddOne (Gemma's norms): x + 1 computed in float and rounded back to
// `dtype` (round to nearest even), as torch adds in bf16 / f16 / f32.
// kInvalidArgument, naming the problem, when the shape does not split into
// heads or the dtype is not F32/F16/BF16.
Expected<std::vector<uint8_t>> TransformTensor(HfTransform transform, int64_t n_rope_heads, safetensors::Dtype dtype,
                                               const std::vector<int64_t>& shape, std::span<const uint8_t> src);

}  // namespace trit::convert
