// Qwen3_5ForCausalLM and Qwen3_5ForConditionalGeneration's text model
// (Qwen3.5 dense; config under text_config) as llama.cpp's Qwen3_5TextModel
// writes it (conversion/qwen.py: Qwen3NextModel, _LinearAttentionVReorderBase,
// _Qwen35MRopeMixin), in its --no-mtp form:
//   - Gated DeltaNet layers (layer_types "linear_attention"): in_proj_qkv ->
//     attn_qkv, in_proj_z -> attn_gate, in_proj_a/b -> ssm_alpha/beta,
//     A_log -> ssm_a as -exp(A_log), dt_bias -> ssm_dt.bias, conv1d
//     squeezed to [C, K], norm -> ssm_norm (kept as is: a gated norm with a
//     plain weight), out_proj -> ssm_out; value heads tiled where there are
//     fewer key heads than value heads;
//   - full-attention layers: q_proj (queries and their output gate) -> attn_q,
//     q/k norms;
//   - every other *norm.weight stored as 1 + w (Qwen3.5's RMSNorm is
//     Gemma's (1 + w) form);
//   - keys: the decoder's, then ssm.* sizes, recurrent_layers, the full
//     attention interval, rope.dimension_count (head_dim x
//     partial_rotary_factor) and rope.dimension_sections (mrope_section padded
//     to 4, [11, 11, 10, 0] when absent).
// The multi-token-prediction block (mtp.*) is left out, as with llama.cpp's
// --no-mtp: trit's qwen35 does not run it.
#include <fmt/format.h>

#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

// The multimodal form is how Qwen3.5 is published; its text model converts
// alone (llama.cpp writes the vision tower to a separate --mmproj file).
constexpr std::string_view kHfNames[] = {"Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration"};
constexpr std::string_view kArch = "qwen35";

struct Qwen35Dims {
  HfDecoderDims d;
  int64_t conv_kernel = 0, k_head_dim = 0, v_head_dim = 0, n_k_heads = 0, n_v_heads = 0;
  int64_t full_attention_interval = 4;
  std::vector<bool> recurrent;  // per layer: a Gated DeltaNet layer
};

Expected<Qwen35Dims> ReadDims(const HfModelConfig& c) {
  Qwen35Dims q;
  Expected<HfDecoderDims> d = ReadDecoderDims(c);
  if (!d.ok()) return d.status();
  q.d = *d;
  if (Expected<bool> bias = c.Bool("attention_bias"); bias.ok() && *bias) {
    return Error(ErrorCode::kUnsupported, "config.json: attention_bias is true; Qwen3.5 has no attention biases");
  }
  const std::pair<std::string_view, int64_t*> ints[] = {
      {"linear_conv_kernel_dim", &q.conv_kernel}, {"linear_key_head_dim", &q.k_head_dim},
      {"linear_value_head_dim", &q.v_head_dim},   {"linear_num_key_heads", &q.n_k_heads},
      {"linear_num_value_heads", &q.n_v_heads},
  };
  for (const auto& [key, out] : ints) {
    Expected<int64_t> v = c.Int(key);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  if (q.n_v_heads % q.n_k_heads != 0) {
    return Error(ErrorCode::kCorrupt, "config.json: linear_num_value_heads {} is not a multiple of "
                                      "linear_num_key_heads {}", q.n_v_heads, q.n_k_heads);
  }
  if (Expected<int64_t> v = c.Int("full_attention_interval"); v.ok()) q.full_attention_interval = *v;
  Expected<std::vector<std::string>> types = c.StringList("layer_types");
  for (int64_t il = 0; il < q.d.n_layer; ++il) {
    // Without layer_types, every full_attention_interval-th layer is full attention.
    bool linear = (il + 1) % q.full_attention_interval != 0;
    if (types.ok()) {
      if (static_cast<int64_t>(types->size()) != q.d.n_layer) {
        return Error(ErrorCode::kCorrupt, "config.json: layer_types has {} entries for {} layers", types->size(),
                     q.d.n_layer);
      }
      const std::string& t = (*types)[static_cast<size_t>(il)];
      if (t != "linear_attention" && t != "full_attention") {
        return Error(ErrorCode::kCorrupt, "config.json: layer_types[{}] is '{}', expected linear_attention or "
                                          "full_attention", il, t);
      }
      linear = t == "linear_attention";
    }
    q.recurrent.push_back(linear);
  }
  return q;
}

std::optional<std::string_view> Dropped(std::string_view name) {
  if (name.starts_with("model.visual.")) {
    return "the vision tower, which llama.cpp writes to a separate --mmproj file (trit runs text only)";
  }
  if (name.starts_with("mtp.") || name.starts_with("model.mtp.")) {
    return "the multi-token-prediction block, which llama.cpp's --no-mtp leaves out (trit does not run it)";
  }
  return DecoderDropped(name);
}

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  Expected<Qwen35Dims> dims = ReadDims(info.config);
  if (!dims.ok()) return dims.status();
  const Qwen35Dims& q = *dims;
  const HfDecoderDims& d = q.d;
  const int64_t v_per_k = q.n_v_heads / q.n_k_heads;
  const int64_t qk_dim = q.n_k_heads * q.k_head_dim, v_dim = q.n_v_heads * q.v_head_dim;
  // Value heads move only where key heads are shared (llama.cpp reorders only then).
  auto heads = [&](int64_t head_dim, int64_t skip = 0, bool columns = false) {
    if (q.n_k_heads == q.n_v_heads) return HfVHeadOrder{};
    return HfVHeadOrder{q.n_k_heads, v_per_k, head_dim, skip, columns};
  };
  std::vector<HfTensorSpec> out = {{"model.embed_tokens.weight", "token_embd.weight", {d.n_vocab, d.n_embd}}};
  for (int64_t il = 0; il < d.n_layer; ++il) {
    const std::string hf = fmt::format("model.layers.{}.", il);
    const std::string gg = fmt::format("blk.{}.", il);
    auto add = [&](std::string_view h, std::string_view g, std::vector<int64_t> shape,
                   HfTransform t = HfTransform::kNone, HfVHeadOrder order = {}, bool squeeze = false) {
      out.push_back({hf + std::string(h), gg + std::string(g), std::move(shape), t, 0, order, squeeze});
    };
    add("input_layernorm.weight", "attn_norm.weight", {d.n_embd}, HfTransform::kAddOne);
    if (q.recurrent[static_cast<size_t>(il)]) {
      add("linear_attn.in_proj_qkv.weight", "attn_qkv.weight", {2 * qk_dim + v_dim, d.n_embd}, HfTransform::kNone,
          heads(q.v_head_dim, 2 * qk_dim));
      add("linear_attn.in_proj_z.weight", "attn_gate.weight", {v_dim, d.n_embd}, HfTransform::kNone,
          heads(q.v_head_dim));
      add("linear_attn.in_proj_a.weight", "ssm_alpha.weight", {q.n_v_heads, d.n_embd}, HfTransform::kNone, heads(1));
      add("linear_attn.in_proj_b.weight", "ssm_beta.weight", {q.n_v_heads, d.n_embd}, HfTransform::kNone, heads(1));
      add("linear_attn.A_log", "ssm_a", {q.n_v_heads}, HfTransform::kNegExp, heads(1));
      add("linear_attn.dt_bias", "ssm_dt.bias", {q.n_v_heads}, HfTransform::kNone, heads(1));
      add("linear_attn.conv1d.weight", "ssm_conv1d.weight", {2 * qk_dim + v_dim, 1, q.conv_kernel},
          HfTransform::kNone, heads(q.v_head_dim, 2 * qk_dim), /*squeeze=*/true);
      add("linear_attn.norm.weight", "ssm_norm.weight", {q.v_head_dim});
      add("linear_attn.out_proj.weight", "ssm_out.weight", {d.n_embd, v_dim}, HfTransform::kNone,
          heads(q.v_head_dim, 0, /*columns=*/true));
    } else {
      const int64_t q_out = d.n_head * d.head_dim, kv_out = d.n_head_kv * d.head_dim;
      add("self_attn.q_proj.weight", "attn_q.weight", {2 * q_out, d.n_embd});  // queries, then their gate
      add("self_attn.k_proj.weight", "attn_k.weight", {kv_out, d.n_embd});
      add("self_attn.v_proj.weight", "attn_v.weight", {kv_out, d.n_embd});
      add("self_attn.q_norm.weight", "attn_q_norm.weight", {d.head_dim}, HfTransform::kAddOne);
      add("self_attn.k_norm.weight", "attn_k_norm.weight", {d.head_dim}, HfTransform::kAddOne);
      add("self_attn.o_proj.weight", "attn_output.weight", {d.n_embd, q_out});
    }
    add("post_attention_layernorm.weight", "post_attention_norm.weight", {d.n_embd}, HfTransform::kAddOne);
    add("mlp.gate_proj.weight", "ffn_gate.weight", {d.n_ff, d.n_embd});
    add("mlp.up_proj.weight", "ffn_up.weight", {d.n_ff, d.n_embd});
    add("mlp.down_proj.weight", "ffn_down.weight", {d.n_embd, d.n_ff});
  }
  out.push_back({"model.norm.weight", "output_norm.weight", {d.n_embd}, HfTransform::kAddOne});
  if (!d.tied) out.push_back({"lm_head.weight", "output.weight", {d.n_vocab, d.n_embd}});
  return out;
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  const HfModelConfig& c = info.config;
  Expected<Qwen35Dims> dims = ReadDims(c);
  if (!dims.ok()) return dims.status();
  const Qwen35Dims& q = *dims;
  if (Status s = WriteDecoderMetadata(kArch, q.d, c, w); !s.ok()) return s;
  auto key = [](std::string_view k) { return fmt::format("{}.{}", kArch, k); };
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };
  Expected<std::vector<int64_t>> sections = c.IntList("rope_parameters.mrope_section");
  if (!sections.ok()) sections = c.IntList("rope_scaling.mrope_section");
  std::vector<int32_t> padded = {11, 11, 10, 0};  // _Qwen35MRopeMixin's default
  if (sections.ok()) {
    if (sections->size() > 4) {
      return Error(ErrorCode::kCorrupt, "config.json: mrope_section has {} entries, at most 4", sections->size());
    }
    padded.assign(4, 0);
    for (size_t i = 0; i < sections->size(); ++i) padded[i] = static_cast<int32_t>((*sections)[i]);
  }
  double partial = 0.25;  // Qwen3NextModel's default
  if (Expected<double> f = c.Float("rope_parameters.partial_rotary_factor"); f.ok()) {
    partial = *f;
  } else if (Expected<double> g = c.Float("partial_rotary_factor"); g.ok()) {
    partial = *g;
  }
  std::vector<uint8_t> recurrent(q.recurrent.begin(), q.recurrent.end());
  std::vector<std::pair<std::string, gguf::Value>> keys = {
      {key("rope.dimension_sections"), gguf::Value(gguf::Array::Of(gguf::ValueType::kInt32, padded))},
      {key("ssm.conv_kernel"), u32(q.conv_kernel)},
      {key("ssm.state_size"), u32(q.k_head_dim)},
      {key("ssm.group_count"), u32(q.n_k_heads)},
      {key("ssm.time_step_rank"), u32(q.n_v_heads)},
      {key("ssm.inner_size"), u32(q.v_head_dim * q.n_v_heads)},
      {key("full_attention_interval"), u32(q.full_attention_interval)},
      {key("rope.dimension_count"), u32(static_cast<int64_t>(static_cast<double>(q.d.head_dim) * partial))},
  };
  if (c.StringList("layer_types").ok()) {
    keys.emplace_back(key("attention.recurrent_layers"), gguf::Value(gguf::Array::Of(gguf::ValueType::kBool, recurrent)));
  }
  for (auto& [k, value] : keys) {
    if (Status s = w.SetMetadata(k, std::move(value)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace

const HfArchitecture& Qwen35Architecture() {
  static const HfArchitecture kQwen35 = {
      .gguf_arch = kArch,
      .hf_names = kHfNames,
      .normalize_name = TextModelName,
      .dropped = Dropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
  };
  return kQwen35;
}

}  // namespace trit::convert
