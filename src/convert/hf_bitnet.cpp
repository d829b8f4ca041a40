// BitNetForCausalLM (transformers' model_type "bitnet"; "BitnetForCausalLM"
// is the name bitnet.cpp's converter registers) as bitnet.cpp's BitnetModel
// writes it, architecture "bitnet-b1.58": the llama table without the q/k
// permutation (the model runs neox rope, transformers' rotate_half), plus
// self_attn.attn_sub_norm (n_embd) and mlp.ffn_sub_norm (n_ff) from
// modeling_bitnet.py's BitNetAttention and BitNetMLP, and the keys of
// TextModel.set_gguf_parameters with vocab_size and rope.dimension_count.
// The seven projections are ternary (HfTernary), in the form
// quantization_config says:
//   none, or linear_class "autobitlinear" with quantization_mode "online"
//     (microsoft/bitnet-b1.58-2B-4T-bf16): float master weights, ternarized
//     by the absmean rule as bitnet.cpp's weight_quant and transformers'
//     WeightQuant do;
//   "bitlinear" (the default class, any mode; BitLinear has only packed
//     buffers) or "autobitlinear" with "offline" (the default mode): packed
//     U8 weights with weight_scale, which BitLinear divides by and
//     AutoBitLinear multiplies by.
// The vocabulary: tokenizer.model when there is one, else tokenizer.json
// (2B4T: Llama 3's byte-level BPE), as bitnet.cpp's set_vocab tries them.
#include <fmt/format.h>

#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

constexpr std::string_view kHfNames[] = {"BitNetForCausalLM", "BitnetForCausalLM"};
constexpr std::string_view kArch = "bitnet-b1.58";

std::string NormalizeName(std::string_view name) { return std::string(name); }

// The form of the projections (see the top of the file).
Expected<HfTernary> TernaryForm(const HfModelConfig& c) {
  Expected<std::string> method = c.String("quantization_config.quant_method");
  if (!method.ok()) {
    if (method.status().code() == ErrorCode::kNotFound) return HfTernary::kAbsmean;
    return method.status();
  }
  if (*method != "bitnet") {
    return Error(ErrorCode::kUnsupported,
                 "config.json: quantization_config.quant_method '{}': trit converts BitNet checkpoints with float "
                 "master weights or transformers' 'bitnet' packed weights",
                 *method);
  }
  Expected<bool> rms = c.Bool("quantization_config.use_rms_norm");
  if (rms.ok() && *rms) {
    return Error(ErrorCode::kUnsupported,
                 "config.json: quantization_config.use_rms_norm: each BitLinear normalizes its input, which "
                 "bitnet-b1.58 has no tensor for");
  }
  auto string_or = [&](std::string_view key, std::string_view fallback) -> Expected<std::string> {
    Expected<std::string> v = c.String(key);
    if (!v.ok() && v.status().code() == ErrorCode::kNotFound) return std::string(fallback);
    return v;
  };
  TRIT_ASSIGN_OR_RETURN(const std::string mode, string_or("quantization_config.quantization_mode", "offline"));
  TRIT_ASSIGN_OR_RETURN(const std::string linear, string_or("quantization_config.linear_class", "bitlinear"));
  if (mode != "online" && mode != "offline") {
    return Error(ErrorCode::kUnsupported, "config.json: quantization_config.quantization_mode '{}': expected online "
                 "or offline", mode);
  }
  if (linear != "bitlinear" && linear != "autobitlinear") {
    return Error(ErrorCode::kUnsupported, "config.json: quantization_config.linear_class '{}': expected bitlinear "
                 "or autobitlinear", linear);
  }
  // transformers' _replace_with_bitnet_linear: autobitlinear is AutoBitLinear
  // (online: float weights it ternarizes; offline: packed), anything else
  // BitLinear, which holds packed weights whatever the mode.
  if (linear == "bitlinear") return HfTernary::kPackedDivide;
  return mode == "online" ? HfTernary::kAbsmean : HfTernary::kPackedMultiply;
}

Status CheckConfig(const HfModelConfig& c) {
  Expected<std::string> act = c.String("hidden_act");
  if (act.ok() && *act != "relu2") {
    return Error(ErrorCode::kUnsupported, "config.json: hidden_act '{}': bitnet-b1.58 runs relu2", *act);
  }
  if (!act.ok() && act.status().code() != ErrorCode::kNotFound) return act.status();
  Expected<bool> bias = c.Bool("attention_bias");
  if (bias.ok() && *bias) {
    return Error(ErrorCode::kUnsupported, "config.json: attention_bias: bitnet-b1.58 has no biases");
  }
  return Status::Ok();
}

// BitNetConfig's tie_word_embeddings default.
HfDecoderDefaults Defaults() {
  HfDecoderDefaults d;
  d.tied = false;
  return d;
}

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  TRIT_RETURN_IF_ERROR(CheckConfig(info.config));
  TRIT_ASSIGN_OR_RETURN(const HfTernary form, TernaryForm(info.config));
  TRIT_ASSIGN_OR_RETURN(std::vector<HfTensorSpec> table, DecoderTensors(info, {}, Defaults()));
  TRIT_ASSIGN_OR_RETURN(const HfDecoderDims d, ReadDecoderDims(info.config, Defaults()));
  constexpr std::string_view kTernary[] = {".attn_q.weight",   ".attn_k.weight", ".attn_v.weight",
                                           ".attn_output.weight", ".ffn_gate.weight", ".ffn_up.weight",
                                           ".ffn_down.weight"};
  std::vector<HfTensorSpec> out;
  for (HfTensorSpec& spec : table) {
    for (std::string_view suffix : kTernary) {
      if (!spec.gguf_name.starts_with("blk.") || !spec.gguf_name.ends_with(suffix)) continue;
      spec.ternary = form;
      if (form != HfTernary::kAbsmean && spec.shape[0] % 4 != 0) {
        return Error(ErrorCode::kCorrupt, "{}: {} rows, not a multiple of 4, cannot be packed", spec.hf_name,
                     spec.shape[0]);
      }
    }
    const bool wo = spec.gguf_name.ends_with(".attn_output.weight");
    const bool wd = spec.gguf_name.ends_with(".ffn_down.weight");
    if (wo || wd) {  // the sub-norm right before the projection it feeds, as the block runs them
      const std::string blk = spec.gguf_name.substr(0, spec.gguf_name.find('.', 4) + 1);  // "blk.N."
      const std::string layer = spec.hf_name.substr(0, spec.hf_name.find(wo ? "self_attn." : "mlp."));
      if (wo) {
        out.push_back({layer + "self_attn.attn_sub_norm.weight", blk + "attn_sub_norm.weight", {d.n_embd}});
      } else {
        out.push_back({layer + "mlp.ffn_sub_norm.weight", blk + "ffn_sub_norm.weight", {d.n_ff}});
      }
    }
    out.push_back(std::move(spec));
  }
  return out;
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  TRIT_ASSIGN_OR_RETURN(const HfDecoderDims d, ReadDecoderDims(info.config, Defaults()));
  TRIT_RETURN_IF_ERROR(WriteDecoderMetadata(kArch, d, info.config, w));
  TRIT_RETURN_IF_ERROR(
      w.SetMetadata(fmt::format("{}.vocab_size", kArch), gguf::Value(static_cast<uint32_t>(d.n_vocab))));
  return w.SetMetadata(fmt::format("{}.rope.dimension_count", kArch), gguf::Value(static_cast<uint32_t>(d.head_dim)));
}

}  // namespace

const HfArchitecture& BitnetArchitecture() {
  static const HfArchitecture kBitnet = {
      .gguf_arch = kArch,
      .hf_names = kHfNames,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
      .vocab_source = HfVocabSource::kSentencePieceFirst,
  };
  return kBitnet;
}

}  // namespace trit::convert
