// GptOssForCausalLM as llama.cpp's GptOssModel (conversion/gpt_oss.py)
// writes it, architecture "gpt-oss": biases on q, k, v and o, a learned
// sink per head (self_attn.sinks -> attn_sinks.weight), the FFN's norm
// named post_attention_norm, a biased router (mlp.router -> ffn_gate_inp),
// and every layer's experts fused in one tensor per projection:
//   gate_up_proj [E, n_embd, 2 x n_ff], gate and up interleaved (even
//     columns gate, odd up): transposed, then rows ::2 are ffn_gate_exps and
//     rows 1::2 ffn_up_exps ([E, n_ff, n_embd] each); its bias [E, 2 x n_ff]
//     split alike, untransposed;
//   down_proj [E, n_ff, n_embd]: transposed to ffn_down_exps [E, n_embd, n_ff].
// The published checkpoints (quantization_config.quant_method "mxfp4")
// hold the two expert weights as MXFP4 blocks and scales already in the
// [E, out, in] orientation, gate and up interleaved by row: they are
// repacked into GGUF MXFP4 without dequantizing (HfTensorSpec::mxfp4), and
// the file type is MOSTLY_MXFP4_MOE.
// Keys: TextModel's (YaRN rope as published), the expert counts, and
// GptOssModel's sliding_window and expert_feed_forward_length (=
// intermediate_size). Byte-level BPE from tokenizer.json (_set_vocab_gpt2).
#include <fmt/format.h>

#include "convert/hf_decoder.h"
#include "quant/block_formats.h"

namespace trit::convert {
namespace {

constexpr std::string_view kNames[] = {"GptOssForCausalLM"};
constexpr char kArch[] = "gpt-oss";

std::string NormalizeName(std::string_view name) { return std::string(name); }

// What llama.cpp's gpt-oss computes whatever config.json says: the clamped
// SwiGLU's constants (llama-graph.cpp, LLM_FFN_SWIGLU_OAI_MOE) and sliding
// attention on the even layers (set_swa_pattern(2)). A config that asks
// for something else is refused rather than converted into a file that
// runs another model.
Status CheckFixedShape(const HfModelConfig& c, int64_t n_layer) {
  const std::pair<const char*, double> fixed[] = {{"swiglu_alpha", 1.702}, {"swiglu_limit", 7.0}};
  for (const auto& [key, want] : fixed) {
    if (Expected<double> v = c.Float(key); v.ok() && *v != want) {
      return Error(ErrorCode::kUnsupported, "config.json: {} {}: llama.cpp's gpt-oss (and trit) computes {} only", key,
                   *v, want);
    }
  }
  Expected<std::vector<std::string>> types = c.StringList("layer_types");
  if (!types.ok()) return Status::Ok();
  for (int64_t il = 0; il < n_layer && il < static_cast<int64_t>(types->size()); ++il) {
    const char* want = il % 2 == 0 ? "sliding_attention" : "full_attention";
    if ((*types)[static_cast<size_t>(il)] != want) {
      return Error(ErrorCode::kUnsupported,
                   "config.json: layer_types[{}] is '{}': llama.cpp's gpt-oss (and trit) has sliding attention on the "
                   "even layers and full attention on the odd ones, so expected '{}'",
                   il, (*types)[static_cast<size_t>(il)], want);
    }
  }
  return Status::Ok();
}

Expected<HfDecoderDims> ReadDims(const HfModelConfig& c) {
  TRIT_ASSIGN_OR_RETURN(HfDecoderDims d, ReadDecoderDims(c));
  TRIT_ASSIGN_OR_RETURN(d.n_expert, c.Int("num_local_experts"));
  TRIT_ASSIGN_OR_RETURN(d.n_expert_used, c.Int("num_experts_per_tok"));
  d.n_ff_exp = d.n_ff;
  if (d.n_expert < 1 || d.n_expert_used > d.n_expert) {
    return Error(ErrorCode::kCorrupt,
                 "config.json: num_local_experts {}, num_experts_per_tok {}: expected 1 <= num_experts_per_tok <= "
                 "num_local_experts",
                 d.n_expert, d.n_expert_used);
  }
  TRIT_RETURN_IF_ERROR(CheckFixedShape(c, d.n_layer));
  return d;
}

// Whether the experts come as MXFP4 blocks and scales (the published form).
Expected<bool> Mxfp4Experts(const HfModelConfig& c) {
  Expected<std::string> method = c.String("quantization_config.quant_method");
  if (!method.ok()) {
    if (method.status().code() == ErrorCode::kNotFound) return false;
    return method.status();
  }
  if (*method != "mxfp4") {
    return Error(ErrorCode::kUnsupported,
                 "config.json: quantization_config.quant_method '{}': trit converts gpt-oss checkpoints in F32, F16 or "
                 "BF16, or with MXFP4 experts ('mxfp4')",
                 *method);
  }
  return true;
}

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  TRIT_ASSIGN_OR_RETURN(const HfDecoderDims d, ReadDims(info.config));
  TRIT_ASSIGN_OR_RETURN(const bool mxfp4, Mxfp4Experts(info.config));
  if (mxfp4 && (d.n_embd % quant::kQKMxfp4 != 0 || d.n_ff % quant::kQKMxfp4 != 0)) {
    return Error(ErrorCode::kCorrupt,
                 "config.json: hidden_size {} and intermediate_size {} must be multiples of {} for MXFP4 experts",
                 d.n_embd, d.n_ff, quant::kQKMxfp4);
  }
  const int64_t q_out = d.n_head * d.head_dim, kv_out = d.n_head_kv * d.head_dim;
  const int64_t n_e = d.n_expert, n_ff = d.n_ff;
  std::vector<HfTensorSpec> out = {{"model.embed_tokens.weight", "token_embd.weight", {d.n_vocab, d.n_embd}}};
  for (int64_t il = 0; il < d.n_layer; ++il) {
    const std::string hf = fmt::format("model.layers.{}.", il);
    const std::string gg = fmt::format("blk.{}.", il);
    auto add = [&](std::string_view h, std::string_view g, std::vector<int64_t> shape, HfExpertsPick pick = {},
                   bool is_mxfp4 = false) {
      HfTensorSpec spec{hf + std::string(h), gg + std::string(g), std::move(shape)};
      spec.pick = pick;
      spec.mxfp4 = is_mxfp4;
      out.push_back(std::move(spec));
    };
    add("input_layernorm.weight", "attn_norm.weight", {d.n_embd});
    add("self_attn.q_proj.weight", "attn_q.weight", {q_out, d.n_embd});
    add("self_attn.q_proj.bias", "attn_q.bias", {q_out});
    add("self_attn.k_proj.weight", "attn_k.weight", {kv_out, d.n_embd});
    add("self_attn.k_proj.bias", "attn_k.bias", {kv_out});
    add("self_attn.v_proj.weight", "attn_v.weight", {kv_out, d.n_embd});
    add("self_attn.v_proj.bias", "attn_v.bias", {kv_out});
    add("self_attn.o_proj.weight", "attn_output.weight", {d.n_embd, q_out});
    add("self_attn.o_proj.bias", "attn_output.bias", {d.n_embd});
    add("self_attn.sinks", "attn_sinks.weight", {d.n_head});
    add("post_attention_layernorm.weight", "post_attention_norm.weight", {d.n_embd});
    add("mlp.router.weight", "ffn_gate_inp.weight", {n_e, d.n_embd});
    add("mlp.router.bias", "ffn_gate_inp.bias", {n_e});
    if (mxfp4) {  // [E, out, in], rows interleaved
      add("mlp.experts.gate_up_proj", "ffn_gate_exps.weight", {n_e, 2 * n_ff, d.n_embd}, {.stride = 2}, true);
      add("mlp.experts.gate_up_proj", "ffn_up_exps.weight", {n_e, 2 * n_ff, d.n_embd}, {.stride = 2, .offset = 1},
          true);
      add("mlp.experts.down_proj", "ffn_down_exps.weight", {n_e, d.n_embd, n_ff}, {}, true);
    } else {  // [E, in, out], columns interleaved
      add("mlp.experts.gate_up_proj", "ffn_gate_exps.weight", {n_e, d.n_embd, 2 * n_ff},
          {.transpose = true, .stride = 2});
      add("mlp.experts.gate_up_proj", "ffn_up_exps.weight", {n_e, d.n_embd, 2 * n_ff},
          {.transpose = true, .stride = 2, .offset = 1});
      add("mlp.experts.down_proj", "ffn_down_exps.weight", {n_e, n_ff, d.n_embd}, {.transpose = true});
    }
    add("mlp.experts.gate_up_proj_bias", "ffn_gate_exps.bias", {n_e, 2 * n_ff}, {.stride = 2});
    add("mlp.experts.gate_up_proj_bias", "ffn_up_exps.bias", {n_e, 2 * n_ff}, {.stride = 2, .offset = 1});
    add("mlp.experts.down_proj_bias", "ffn_down_exps.bias", {n_e, d.n_embd});
  }
  out.push_back({"model.norm.weight", "output_norm.weight", {d.n_embd}});
  if (!d.tied) out.push_back({"lm_head.weight", "output.weight", {d.n_vocab, d.n_embd}});
  return out;
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  TRIT_ASSIGN_OR_RETURN(const HfDecoderDims d, ReadDims(info.config));
  TRIT_RETURN_IF_ERROR(WriteDecoderMetadata(kArch, d, info.config, w));
  // GptOssModel indexes hparams["sliding_window"]: required.
  TRIT_ASSIGN_OR_RETURN(const int64_t window, info.config.Int("sliding_window"));
  const std::pair<const char*, int64_t> keys[] = {{"gpt-oss.expert_count", d.n_expert},
                                                  {"gpt-oss.expert_used_count", d.n_expert_used},
                                                  {"gpt-oss.attention.sliding_window", window},
                                                  {"gpt-oss.expert_feed_forward_length", d.n_ff_exp}};
  for (const auto& [key, value] : keys) {
    TRIT_RETURN_IF_ERROR(w.SetMetadata(key, gguf::Value(static_cast<uint32_t>(value))));
  }
  return Status::Ok();
}

}  // namespace

const HfArchitecture& GptOssArchitecture() {
  static const HfArchitecture kArchitecture = {
      .gguf_arch = kArch,
      .hf_names = kNames,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
  };
  return kArchitecture;
}

}  // namespace trit::convert
