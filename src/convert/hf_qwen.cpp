// Qwen2ForCausalLM and Qwen3ForCausalLM as llama.cpp's Qwen2Model and
// Qwen3Model write them: no permutation (llama.cpp runs both with neox rope,
// Hugging Face's layout), q/k/v biases for qwen2, per-head q/k norms for
// qwen3, and only the common keys. Byte-level BPE from tokenizer.json.
#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

constexpr std::string_view kQwen2Names[] = {"Qwen2ForCausalLM"};
constexpr std::string_view kQwen3Names[] = {"Qwen3ForCausalLM"};
constexpr HfDecoderVariant kQwen2 = {.qkv_bias = true};
constexpr HfDecoderVariant kQwen3 = {.qk_norm = true};

std::string NormalizeName(std::string_view name) { return std::string(name); }

Expected<std::vector<HfTensorSpec>> Qwen2Tensors(const HfModelInfo& info) { return DecoderTensors(info, kQwen2); }
Expected<std::vector<HfTensorSpec>> Qwen3Tensors(const HfModelInfo& info) { return DecoderTensors(info, kQwen3); }

template <const char* kArch>
Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  Expected<HfDecoderDims> d = ReadDecoderDims(info.config);
  if (!d.ok()) return d.status();
  return WriteDecoderMetadata(kArch, *d, info.config, w);
}
constexpr char kQwen2Arch[] = "qwen2";
constexpr char kQwen3Arch[] = "qwen3";

}  // namespace

const HfArchitecture& Qwen2Architecture() {
  static const HfArchitecture kArch = {
      .gguf_arch = kQwen2Arch,
      .hf_names = kQwen2Names,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Qwen2Tensors,
      .write_metadata = WriteMetadata<kQwen2Arch>,
  };
  return kArch;
}

const HfArchitecture& Qwen3Architecture() {
  static const HfArchitecture kArch = {
      .gguf_arch = kQwen3Arch,
      .hf_names = kQwen3Names,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Qwen3Tensors,
      .write_metadata = WriteMetadata<kQwen3Arch>,
  };
  return kArch;
}

}  // namespace trit::convert
