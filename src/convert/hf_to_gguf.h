// `trit convert` as a library call: a Hugging Face model directory
// (config.json, model.safetensors or its shards, tokenizer.json, and
// sentence-transformers' modules.json when there is one) written as one GGUF
// file that llama.cpp and trit load, with the names, shapes, types and
// metadata keys llama.cpp's convert_hf_to_gguf.py writes. The architecture
// is picked by config.json's "architectures"[0] (hf_architecture.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "convert/hf_config.h"
#include "formats/safetensors/dtype.h"
#include "quant/types.h"

namespace trit::convert {

struct HfConvertedTensor {
  std::string hf_name;              // as the checkpoint names it
  std::string gguf_name;
  safetensors::Dtype from = safetensors::Dtype::kF32;
  quant::GgmlType to = quant::GgmlType::kF32;
  std::vector<int64_t> gguf_shape;  // GGUF order: the reverse of the checkpoint's
  uint64_t out_bytes = 0;
};

struct HfConvertOptions {
  // The type of the weight matrices, one of kHfConvertTypes (hf_tensor_data.h):
  // GgufTypeFor keeps the rest float32, and makes a q8_0 matrix whose rows
  // are not whole blocks f16, as llama.cpp's converter does. Experts that
  // come in MXFP4 (published gpt-oss checkpoints) stay MXFP4 whatever the type.
  // For BitNet checkpoints also i2_s, tq2_0 or tq1_0: the ternary weights in
  // that type exactly (hf_ternary.h; tq*: each with a `.scale` tensor after
  // it), the other matrices f16.
  quant::GgmlType type = quant::GgmlType::kF16;
  // Called once per tensor, in file order, right after its bytes are
  // converted: its position (0-based) of `n`. May be empty.
  std::function<void(size_t index, size_t n, const HfConvertedTensor& tensor)> on_tensor;
};

struct HfConvertReport {
  std::string hf_architecture;  // config.json's, e.g. "BertModel"
  std::string gguf_arch;        // e.g. "bert"
  std::string name;             // general.name: the directory's name (llama.cpp's fallback)
  std::optional<PoolingType> pooling;
  size_t n_vocab = 0;
  std::vector<HfConvertedTensor> tensors;                     // in file order
  std::vector<std::pair<std::string, std::string>> dropped;  // checkpoint name, why it is left out
};

// Writes `output` from the model directory `dir`. Weights are read from the
// checkpoint's memory map one tensor at a time, and the file is written under
// a temporary name renamed into place only when complete (gguf::Writer).
// Errors (nothing is left at `output`): a missing config.json or
// tokenizer.json (kNotFound, naming the path); an architecture not in the
// registry (kUnsupported, naming it and the supported list); a checkpoint
// tensor the architecture cannot map (kUnsupported, naming it); a tensor
// missing, given twice, of an unexpected shape or of a dtype other than
// F32/F16/BF16 (naming it; packed BitNet weights are U8); a NaN or infinity
// in a tensor written as q8_0 (naming the tensor and the element); a
// tokenizer whose size is not config.json's vocab_size; an output type
// outside kHfConvertTypes and the ternary types, or a ternary type (i2_s,
// tq2_0, tq1_0) for a checkpoint without BitNet ternary weights
// (kInvalidArgument); a ternary weight whose rows are not whole blocks of
// the ternary type (kUnsupported, naming it); write failures.
Expected<HfConvertReport> ConvertHfToGguf(const std::string& dir, const std::string& output,
                                          const HfConvertOptions& options);

}  // namespace trit::convert
