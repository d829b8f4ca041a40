// Which type each tensor of a GGUF file gets when the file is quantized to a
// target type, following llama-quantize's rules:
//  - only weight matrices are quantized: names ending in "weight" with at
//    least two non-trivial dimensions, minus a few tensors that must stay
//    precise (MoE routers, position embeddings, convolution kernels);
//    everything else is copied unchanged;
//  - a tensor whose row length is not a multiple of the target's block size
//    falls back to a compatible type (q4_K -> q5_0, q6_K -> q8_0,
//    tq1_0/tq2_0 -> q4_0, ... and finally f16), or is refused under --strict.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "quant/types.h"

namespace trit::convert {

enum class TensorAction {
  kCopy,     // bytes copied unchanged (not a weight matrix, or already the chosen type)
  kConvert,  // dequantized to f32 and quantized to `target`
};

struct TensorPlan {
  const gguf::TensorInfo* tensor = nullptr;
  const quant::TypeInfo* target = nullptr;  // type written to the output
  TensorAction action = TensorAction::kCopy;
  bool fallback = false;  // target differs from the requested type because of the row length
  std::string reason;     // why it was copied or fell back, for the log
  // The importance matrix's entry that weighs this tensor's rows (one row of
  // shape[0] values per matrix of a 3-D tensor), set by QuantizeFile when it
  // was given one, it has an entry for this tensor and `target` takes
  // importance weights; nullptr otherwise.
  const std::vector<float>* importance = nullptr;
};

enum class FallbackPolicy { kAllow, kRefuse };

// True for the types QuantizeFile can write: those with a row quantizer,
// and I2_S (quantized whole, quant/i2s_quants.h).
bool IsQuantizeTarget(const quant::TypeInfo& type);

// TQ1_0 and TQ2_0: the ternary types with a scale per 256-value block,
// which hold an I2_S tensor exactly as d = 1 blocks plus a `.scale` tensor.
bool IsBlockTernary(quant::GgmlType type);

// Number of dimensions as ggml counts them: trailing dimensions of size 1 do not count.
int EffectiveDims(const std::vector<int64_t>& shape);

// Errors name the tensor, its row length and the block size it failed, or a
// source type trit cannot dequantize.
Expected<std::vector<TensorPlan>> PlanQuantization(const std::vector<gguf::TensorInfo>& tensors,
                                                   const quant::TypeInfo& requested, FallbackPolicy policy);

// llama.cpp's `enum llama_ftype` value recorded as general.file_type for a
// file whose weights are mostly `type`; -1 when there is none.
int LlamaFileType(quant::GgmlType type);

}  // namespace trit::convert
