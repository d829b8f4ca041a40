// The value changes llama.cpp's converter makes to some tensors (HfTransform),
// done in the dtype llama.cpp's modify_tensors sees, so that the result
// rounds exactly as torch's does: prepare_tensors widens every dtype but F16
// and F32 (BF16 here) to F32 before modify_tensors, so a BF16 tensor is
// transformed, and then written, as F32.
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
// kAddOne (Gemma's norms): x + 1 in F32 for F32 and BF16 input (torch's
// float add), in F16 for F16 input (torch's half add: one rounding to
// nearest even).
// The result's bytes are in `dtype` of the result: F32 for BF16 input,
// else the input's dtype. kInvalidArgument, naming the problem, when the
// shape does not split into heads or the dtype is not F32/F16/BF16.
struct TransformedTensor {
  safetensors::Dtype dtype = safetensors::Dtype::kF32;
  std::vector<uint8_t> bytes;
};
Expected<TransformedTensor> TransformTensor(HfTransform transform, int64_t n_rope_heads, safetensors::Dtype dtype,
                                            const std::vector<int64_t>& shape, std::span<const uint8_t> src);
// kNegExp: -exp(x) in F32 (BF16 widened first, F16 computed in float and
// rounded once to half).

// The bytes of a tensor of `shape` (elements of `element_size` bytes) with
// its value heads moved as `order` says. kInvalidArgument when the axis
// does not split into order's heads.
Expected<std::vector<uint8_t>> ReorderValueHeads(const HfVHeadOrder& order, const std::vector<int64_t>& shape,
                                                 size_t element_size, std::span<const uint8_t> src);

}  // namespace trit::convert
