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

// The bytes of `pick` applied to a tensor of experts of `shape` ([E, a, b],
// or [E, a] without a transpose; elements of `element_size` bytes, which
// may be a whole 16-byte MXFP4 block): out[e][r][c] = t[e][offset + r x
// stride][c], t the tensor with its last two axes swapped when
// pick.transpose. kInvalidArgument naming the problem when the shape is of
// another rank, axis 1 does not divide by the stride, the offset is not
// below the stride, or `src` is not the shape's size.
Expected<std::vector<uint8_t>> PickExperts(const HfExpertsPick& pick, const std::vector<int64_t>& shape,
                                           size_t element_size, std::span<const uint8_t> src);

// GptOssModel.repack_mxfp4 (transform_nibble_layout): n blocks of the
// published MXFP4 layout, `blocks` 16 bytes each (element 2j in the low
// nibble of byte j, 2j + 1 in the high) and `scales` one E8M0 byte each,
// into n GGUF blocks (quant::BlockMxfp4, 17 bytes: the scale byte as is,
// then qs[j] = element j | element j + 16 << 4). Pure bit moves: the FP4
// codes and the exponent are the same numbers in both. The sizes must
// agree (TRIT_CHECK).
void RepackMxfp4(std::span<const uint8_t> blocks, std::span<const uint8_t> scales, std::span<uint8_t> out);

}  // namespace trit::convert
