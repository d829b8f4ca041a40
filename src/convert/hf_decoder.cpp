// The shared decoder table and keys (hf_decoder.h says where each comes from).
#include "convert/hf_decoder.h"

#include <fmt/format.h>

namespace trit::convert {
namespace {

Status ReadInt(const HfModelConfig& c, std::string_view key, std::optional<int64_t> fallback, int64_t* out,
               bool* present = nullptr) {
  Expected<int64_t> v = c.Int(key);
  if (present != nullptr) *present = v.ok();
  if (v.ok()) {
    *out = *v;
    return Status::Ok();
  }
  if (v.status().code() != ErrorCode::kNotFound || !fallback) return v.status();
  *out = *fallback;
  return Status::Ok();
}

gguf::Value U32(int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); }  // each < 2^31 (hf_config.cpp)

// The first of `keys` that config.json has.
std::optional<double> FirstFloat(const HfModelConfig& c, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (Expected<double> v = c.Float(k); v.ok()) return *v;
  }
  return std::nullopt;
}
std::optional<std::string> FirstString(const HfModelConfig& c, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (Expected<std::string> v = c.String(k); v.ok()) return *v;
  }
  return std::nullopt;
}

// A rope setting wherever transformers puts it: rope_parameters (per layer
// kind or not, transformers 5) or rope_scaling (4.x).
std::vector<std::string> RopeKeys(std::string_view name) {
  return {fmt::format("rope_parameters.full_attention.{}", name), fmt::format("rope_parameters.{}", name),
          fmt::format("rope_scaling.{}", name)};
}
std::optional<double> FirstFloat(const HfModelConfig& c, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (Expected<double> v = c.Float(k); v.ok()) return *v;
  }
  return std::nullopt;
}

// TextModel.set_gguf_parameters' keys for rope_type "yarn" (after the type
// and factor): the original context, required (the converter indexes
// rope_params["original_max_position_embeddings"], which it mirrors from
// the top level), then each of extrapolation_factor, attention_factor (or
// attn_factor), beta_fast and beta_slow that config.json has.
Status AddYarnKeys(std::string_view arch, const HfModelConfig& c,
                   std::vector<std::pair<std::string, gguf::Value>>* keys) {
  auto key = [&](std::string_view k) { return fmt::format("{}.rope.scaling.{}", arch, k); };
  std::vector<std::string> orig = RopeKeys("original_max_position_embeddings");
  orig.emplace_back("original_max_position_embeddings");
  std::optional<int64_t> n_ctx_orig;
  for (const std::string& k : orig) {
    if (Expected<int64_t> v = c.Int(k); v.ok()) {
      n_ctx_orig = *v;
      break;
    }
  }
  if (!n_ctx_orig) {
    return Error(ErrorCode::kCorrupt, "config.json: rope type 'yarn' without original_max_position_embeddings "
                                      "(in rope_parameters or rope_scaling), which llama.cpp's converter requires");
  }
  keys->emplace_back(key("original_context_length"), U32(*n_ctx_orig));
  std::vector<std::string> attn = RopeKeys("attention_factor");
  for (std::string& k : RopeKeys("attn_factor")) attn.push_back(std::move(k));
  const std::pair<const char*, std::vector<std::string>> floats[] = {
      {"yarn_ext_factor", RopeKeys("extrapolation_factor")},
      {"yarn_attn_factor", attn},
      {"yarn_beta_fast", RopeKeys("beta_fast")},
      {"yarn_beta_slow", RopeKeys("beta_slow")},
  };
  for (const auto& [name, from] : floats) {
    if (std::optional<double> v = FirstFloat(c, from)) keys->emplace_back(key(name), gguf::Value(static_cast<float>(*v)));
  }
  return Status::Ok();
}

}  // namespace

Expected<HfDecoderDims> ReadDecoderDims(const HfModelConfig& c, const HfDecoderDefaults& defaults) {
  HfDecoderDims d;
  const struct {
    std::string_view key;
    std::optional<int64_t> fallback;
    int64_t* out;
    bool* present;
  } ints[] = {
      {"vocab_size", std::nullopt, &d.n_vocab, nullptr},
      {"hidden_size", std::nullopt, &d.n_embd, nullptr},
      {"intermediate_size", std::nullopt, &d.n_ff, nullptr},
      {"num_hidden_layers", std::nullopt, &d.n_layer, nullptr},
      {"max_position_embeddings", defaults.n_ctx, &d.n_ctx, nullptr},
      {"num_attention_heads", defaults.n_head, &d.n_head, nullptr},
  };
  for (const auto& f : ints) {
    if (Status s = ReadInt(c, f.key, f.fallback, f.out, f.present); !s.ok()) return s;
  }
  // Without num_key_value_heads (older Llama configs) every head has its own k and v.
  if (Status s = ReadInt(c, "num_key_value_heads", defaults.n_head_kv.value_or(d.n_head), &d.n_head_kv,
                         &d.has_head_kv);
      !s.ok()) {
    return s;
  }
  if (defaults.n_head_kv) d.has_head_kv = true;
  if (d.n_embd % d.n_head != 0 && !c.Int("head_dim").ok()) {
    return Error(ErrorCode::kCorrupt, "config.json: hidden_size {} is not a multiple of num_attention_heads {}",
                 d.n_embd, d.n_head);
  }
  if (Status s = ReadInt(c, "head_dim", defaults.head_dim.value_or(d.n_embd / d.n_head), &d.head_dim,
                         &d.has_head_dim);
      !s.ok()) {
    return s;
  }
  if (defaults.head_dim) d.has_head_dim = true;
  if (d.n_head % d.n_head_kv != 0) {
    return Error(ErrorCode::kCorrupt, "config.json: num_attention_heads {} is not a multiple of num_key_value_heads {}",
                 d.n_head, d.n_head_kv);
  }
  Expected<bool> tied = c.Bool("tie_word_embeddings");
  if (!tied.ok() && tied.status().code() != ErrorCode::kNotFound) return tied.status();
  // transformers' PretrainedConfig default is true (unless the config class has its own).
  d.tied = tied.ok() ? *tied : defaults.tied.value_or(true);
  return d;
}

Expected<std::vector<HfTensorSpec>> DecoderTensors(const HfModelInfo& info, const HfDecoderVariant& v,
                                                   const HfDecoderDefaults& defaults) {
  Expected<HfDecoderDims> dims = ReadDecoderDims(info.config, defaults);
  if (!dims.ok()) return dims.status();
  if (v.moe) TRIT_RETURN_IF_ERROR(ReadMoeDims(info.config, &*dims));
  const HfDecoderDims& d = *dims;
  const HfTransform norm = v.norm_plus_one ? HfTransform::kAddOne : HfTransform::kNone;
  const int64_t q_out = d.n_head * d.head_dim, kv_out = d.n_head_kv * d.head_dim;
  std::vector<HfTensorSpec> out = {{"model.embed_tokens.weight", "token_embd.weight", {d.n_vocab, d.n_embd}}};
  for (int64_t il = 0; il < d.n_layer; ++il) {
    const std::string hf = fmt::format("model.layers.{}.", il);
    const std::string gg = fmt::format("blk.{}.", il);
    auto add = [&](std::string_view h, std::string_view g, std::vector<int64_t> shape,
                   HfTransform t = HfTransform::kNone, int64_t n_rope_heads = 0) {
      out.push_back({hf + std::string(h), gg + std::string(g), std::move(shape), t, n_rope_heads});
    };
    const HfTransform rope = v.permute_qk ? HfTransform::kPermuteRope : HfTransform::kNone;
    add("input_layernorm.weight", "attn_norm.weight", {d.n_embd}, norm);
    add("self_attn.q_proj.weight", "attn_q.weight", {q_out, d.n_embd}, rope, d.n_head);
    add("self_attn.k_proj.weight", "attn_k.weight", {kv_out, d.n_embd}, rope, d.n_head_kv);
    add("self_attn.v_proj.weight", "attn_v.weight", {kv_out, d.n_embd});
    if (v.qkv_bias) {
      add("self_attn.q_proj.bias", "attn_q.bias", {q_out});
      add("self_attn.k_proj.bias", "attn_k.bias", {kv_out});
      add("self_attn.v_proj.bias", "attn_v.bias", {kv_out});
    }
    if (v.qk_norm) {
      add("self_attn.q_norm.weight", "attn_q_norm.weight", {d.head_dim}, norm);
      add("self_attn.k_norm.weight", "attn_k_norm.weight", {d.head_dim}, norm);
    }
    add("self_attn.o_proj.weight", "attn_output.weight", {d.n_embd, q_out});
    if (v.sandwich_norms) {
      add("post_attention_layernorm.weight", "post_attention_norm.weight", {d.n_embd}, norm);
      add("pre_feedforward_layernorm.weight", "ffn_norm.weight", {d.n_embd}, norm);
      add("post_feedforward_layernorm.weight", "post_ffw_norm.weight", {d.n_embd}, norm);
    } else {
      add("post_attention_layernorm.weight", "ffn_norm.weight", {d.n_embd}, norm);
    }
    if (v.moe) {
      add("mlp.gate.weight", "ffn_gate_inp.weight", {d.n_expert, d.n_embd});
      auto stack = [&](std::string_view h, std::string_view g, int64_t rows, int64_t cols) {
        HfTensorSpec spec{hf + "mlp.experts.{}." + std::string(h), gg + std::string(g), {d.n_expert, rows, cols}};
        spec.n_stack = d.n_expert;
        out.push_back(std::move(spec));
      };
      stack("gate_proj.weight", "ffn_gate_exps.weight", d.n_ff_exp, d.n_embd);
      stack("up_proj.weight", "ffn_up_exps.weight", d.n_ff_exp, d.n_embd);
      stack("down_proj.weight", "ffn_down_exps.weight", d.n_embd, d.n_ff_exp);
    } else {
      add("mlp.gate_proj.weight", "ffn_gate.weight", {d.n_ff, d.n_embd});
      add("mlp.up_proj.weight", "ffn_up.weight", {d.n_ff, d.n_embd});
      add("mlp.down_proj.weight", "ffn_down.weight", {d.n_embd, d.n_ff});
    }
  }
  out.push_back({"model.norm.weight", "output_norm.weight", {d.n_embd}, norm});
  if (!d.tied) out.push_back({"lm_head.weight", "output.weight", {d.n_vocab, d.n_embd}});
  return out;
}

Status ReadMoeDims(const HfModelConfig& c, HfDecoderDims* d) {
  bool present = false;
  TRIT_RETURN_IF_ERROR(ReadInt(c, "num_local_experts", 0, &d->n_expert, &present));
  if (!present) TRIT_RETURN_IF_ERROR(ReadInt(c, "num_experts", std::nullopt, &d->n_expert));
  TRIT_RETURN_IF_ERROR(ReadInt(c, "num_experts_per_tok", std::nullopt, &d->n_expert_used));
  TRIT_RETURN_IF_ERROR(ReadInt(c, "moe_intermediate_size", std::nullopt, &d->n_ff_exp));
  if (d->n_expert < 1 || d->n_expert_used < 1 || d->n_expert_used > d->n_expert || d->n_ff_exp < 1) {
    return Error(ErrorCode::kCorrupt,
                 "config.json: num_experts {}, num_experts_per_tok {}, moe_intermediate_size {}: expected "
                 "1 <= num_experts_per_tok <= num_experts and a positive size",
                 d->n_expert, d->n_expert_used, d->n_ff_exp);
  }
  int64_t step = 1;
  TRIT_RETURN_IF_ERROR(ReadInt(c, "decoder_sparse_step", 1, &step));
  const Expected<std::vector<int64_t>> dense = c.IntList("mlp_only_layers");
  const bool dense_layers = dense.ok() && !dense->empty();
  if (step != 1 || dense_layers) {
    return Error(ErrorCode::kUnsupported,
                 "config.json: decoder_sparse_step {}{}: some layers are dense, which llama.cpp's qwen3moe (and "
                 "trit) cannot run; every layer must be a mixture of experts",
                 step, dense_layers ? " and mlp_only_layers" : "");
  }
  return Status::Ok();
}

std::string TextModelName(std::string_view name) {
  constexpr std::string_view kText = "model.language_model.";
  if (name.starts_with(kText)) return fmt::format("model.{}", name.substr(kText.size()));
  return std::string(name);
}

std::optional<std::string_view> DecoderDropped(std::string_view name) {
  if (name.ends_with("rotary_emb.inv_freq")) return "rope frequencies, a buffer that llama.cpp recomputes";
  return std::nullopt;
}

Status WriteDecoderMetadata(std::string_view arch, const HfDecoderDims& d, const HfModelConfig& c,
                            gguf::Writer& w) {
  auto key = [&](std::string_view k) { return fmt::format("{}.{}", arch, k); };
  std::vector<std::pair<std::string, gguf::Value>> keys = {
      {key("block_count"), U32(d.n_layer)},
      {key("context_length"), U32(d.n_ctx)},
      {key("embedding_length"), U32(d.n_embd)},
      {key("feed_forward_length"), U32(d.n_ff)},
      {key("attention.head_count"), U32(d.n_head)},
  };
  if (d.has_head_kv) keys.emplace_back(key("attention.head_count_kv"), U32(d.n_head_kv));
  const std::optional<std::string> rope_type = FirstString(
      c, {"rope_parameters.full_attention.rope_type", "rope_parameters.rope_type", "rope_scaling.rope_type",
          "rope_scaling.type"});
  if (rope_type && *rope_type != "default") {
    const std::optional<double> factor =
        FirstFloat(c, {"rope_parameters.full_attention.factor", "rope_parameters.factor", "rope_scaling.factor"});
    const bool known = *rope_type == "linear" || *rope_type == "yarn";
    if (!known || !factor) {
      return Error(ErrorCode::kUnsupported,
                   "config.json: rope type '{}'{}: trit converts default, linear and yarn rope scaling only",
                   *rope_type, known ? " without a factor" : "");
    }
    keys.emplace_back(key("rope.scaling.type"), gguf::Value(*rope_type));
    keys.emplace_back(key("rope.scaling.factor"), gguf::Value(static_cast<float>(*factor)));
    if (*rope_type == "yarn") TRIT_RETURN_IF_ERROR(AddYarnKeys(arch, c, &keys));
  }
  if (std::optional<double> theta =
          FirstFloat(c, {"rope_parameters.full_attention.rope_theta", "rope_parameters.rope_theta", "rope_theta"})) {
    keys.emplace_back(key("rope.freq_base"), gguf::Value(static_cast<float>(*theta)));
  }
  if (std::optional<double> theta =
          FirstFloat(c, {"rope_parameters.sliding_attention.rope_theta", "rope_local_base_freq"})) {
    keys.emplace_back(key("rope.freq_base_swa"), gguf::Value(static_cast<float>(*theta)));
  }
  Expected<double> eps = c.Float("rms_norm_eps");
  if (!eps.ok()) return eps.status();
  keys.emplace_back(key("attention.layer_norm_rms_epsilon"), gguf::Value(static_cast<float>(*eps)));
  if (d.has_head_dim) {
    keys.emplace_back(key("attention.key_length"), U32(d.head_dim));
    keys.emplace_back(key("attention.value_length"), U32(d.head_dim));
  }
  for (auto& [k, value] : keys) {
    if (Status s = w.SetMetadata(k, std::move(value)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace trit::convert
