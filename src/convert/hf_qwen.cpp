// Qwen2ForCausalLM, Qwen3ForCausalLM and Qwen3MoeForCausalLM as llama.cpp's
// Qwen2Model, Qwen3Model and Qwen3MoeModel write them: no permutation
// (llama.cpp runs them with neox rope, Hugging Face's layout), q/k/v biases
// for qwen2, per-head q/k norms for qwen3 and qwen3moe, and the common keys;
// qwen3moe's experts stacked per layer into 3-D tensors, with the
// expert_count, expert_used_count (TextModel) and expert_feed_forward_length
// (Qwen2MoeModel) keys. Byte-level BPE from tokenizer.json.
#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

constexpr std::string_view kQwen2Names[] = {"Qwen2ForCausalLM"};
constexpr std::string_view kQwen3Names[] = {"Qwen3ForCausalLM"};
constexpr std::string_view kQwen3MoeNames[] = {"Qwen3MoeForCausalLM"};
constexpr HfDecoderVariant kQwen2 = {.qkv_bias = true};
constexpr HfDecoderVariant kQwen3 = {.qk_norm = true};
constexpr HfDecoderVariant kQwen3Moe = {.qk_norm = true, .moe = true};

std::string NormalizeName(std::string_view name) { return std::string(name); }

Expected<std::vector<HfTensorSpec>> Qwen2Tensors(const HfModelInfo& info) { return DecoderTensors(info, kQwen2); }
Expected<std::vector<HfTensorSpec>> Qwen3Tensors(const HfModelInfo& info) { return DecoderTensors(info, kQwen3); }
Expected<std::vector<HfTensorSpec>> Qwen3MoeTensors(const HfModelInfo& info) {
  return DecoderTensors(info, kQwen3Moe);
}

template <const char* kArch>
Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  Expected<HfDecoderDims> d = ReadDecoderDims(info.config);
  if (!d.ok()) return d.status();
  return WriteDecoderMetadata(kArch, *d, info.config, w);
}
constexpr char kQwen2Arch[] = "qwen2";
constexpr char kQwen3Arch[] = "qwen3";
constexpr char kQwen3MoeArch[] = "qwen3moe";

Status WriteQwen3MoeMetadata(const HfModelInfo& info, gguf::Writer& w) {
  TRIT_ASSIGN_OR_RETURN(HfDecoderDims d, ReadDecoderDims(info.config));
  TRIT_RETURN_IF_ERROR(ReadMoeDims(info.config, &d));
  TRIT_RETURN_IF_ERROR(WriteDecoderMetadata(kQwen3MoeArch, d, info.config, w));
  const std::pair<const char*, int64_t> keys[] = {{"qwen3moe.expert_count", d.n_expert},
                                                  {"qwen3moe.expert_used_count", d.n_expert_used},
                                                  {"qwen3moe.expert_feed_forward_length", d.n_ff_exp}};
  for (const auto& [key, value] : keys) {
    TRIT_RETURN_IF_ERROR(w.SetMetadata(key, gguf::Value(static_cast<uint32_t>(value))));
  }
  return Status::Ok();
}

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

const HfArchitecture& Qwen3MoeArchitecture() {
  static const HfArchitecture kArch = {
      .gguf_arch = kQwen3MoeArch,
      .hf_names = kQwen3MoeNames,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Qwen3MoeTensors,
      .write_metadata = WriteQwen3MoeMetadata,
  };
  return kArch;
}

}  // namespace trit::convert
