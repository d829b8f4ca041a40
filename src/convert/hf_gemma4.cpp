// Gemma4ForCausalLM and Gemma4ForConditionalGeneration's text model (Gemma 4
// dense: E2B/E4B with per-layer embeddings, 31B) as llama.cpp's Gemma4Model
// writes it (conversion/gemma.py):
//   - per-layer attention: sliding layers use head_dim and
//     num_key_value_heads, full layers global_head_dim and
//     num_global_key_value_heads (or, as transformers 5 saves them,
//     per_layer_config's head_dim / num_key_value_heads of the first full
//     layer); full layers with attention_k_eq_v have no v_proj; the last
//     num_kv_shared_layers layers have no k/v projections (they read an
//     earlier layer's cache) and, with use_double_wide_mlp, twice the MLP;
//   - norms stored as they are (Gemma 4's RMSNorm multiplies by w, not 1 + w);
//     layer_scalar -> layer_output_scale.weight; the per-layer-embedding
//     tensors (per_layer_token_embd, per_layer_model_proj, per_layer_proj_norm,
//     and per layer inp_gate, proj, post_norm);
//   - rope_freqs.weight, computed: the full layers' "proportional" rope turns
//     the first head_dim_full x partial_rotary_factor / 2 frequency pairs
//     (factor 1) and leaves the rest unrotated (factor 1e30);
//   - keys: Gemma 3's, then per-layer arrays where layers differ
//     (feed_forward_length, head_count_kv), the sliding_window_pattern bool
//     array, key/value lengths for both kinds, rope dimension counts for both,
//     shared_kv_layers, embedding_length_per_layer_input.
// The vocabulary is tokenizer.json read as LlamaHfVocab (model "gemma4",
// with merges); the channel, tool-call and quote tokens are typed
// user-defined so they always render. The vision and audio towers are left
// out (llama.cpp writes them to a separate --mmproj file); MoE layers
// (enable_moe_block: 26B-A4B) are refused.
#include <fmt/format.h>

#include <algorithm>

#include "convert/hf_decoder.h"
#include "tokenizer/hf_tokenizer_json.h"

namespace trit::convert {
namespace {

constexpr std::string_view kHfNames[] = {"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration"};
constexpr std::string_view kArch = "gemma4";

struct Gemma4Dims {
  HfDecoderDims d;
  int64_t head_dim_swa = 0, head_dim_full = 0;
  int64_t n_kv_swa = 0;
  std::optional<int64_t> n_kv_full;  // set: head_count_kv is written per layer
  int64_t n_shared = 0;              // num_kv_shared_layers
  int64_t n_per_layer = 0;           // hidden_size_per_layer_input; 0: no per-layer embeddings
  int64_t n_vocab_per_layer = 0;
  bool k_eq_v = false, double_wide = false;
  double partial_full = 0;           // the full layers' partial_rotary_factor
  std::vector<bool> swa;             // per layer: a sliding-window layer

  bool Shared(int64_t il) const { return il >= d.n_layer - n_shared; }
  int64_t HeadDim(int64_t il) const { return swa[static_cast<size_t>(il)] ? head_dim_swa : head_dim_full; }
  int64_t KvHeads(int64_t il) const {
    return swa[static_cast<size_t>(il)] || !n_kv_full ? n_kv_swa : *n_kv_full;
  }
  int64_t FeedForward(int64_t il) const { return double_wide && Shared(il) ? 2 * d.n_ff : d.n_ff; }
};

// The first full-attention layer's per_layer_config member (llama.cpp's fallback).
std::optional<int64_t> FirstFullLayerValue(const HfModelConfig& c, const std::vector<bool>& swa,
                                           std::string_view member) {
  for (size_t il = 0; il < swa.size(); ++il) {
    if (swa[il]) continue;
    if (Expected<int64_t> v = c.PerLayerInt(static_cast<int64_t>(il), member); v.ok()) return *v;
  }
  return std::nullopt;
}

Expected<Gemma4Dims> ReadDims(const HfModelConfig& c) {
  if (Expected<bool> moe = c.Bool("enable_moe_block"); moe.ok() && *moe) {
    return Error(ErrorCode::kUnsupported,
                 "config.json: enable_moe_block is true (Gemma 4's mixture-of-experts form, 26B-A4B); trit converts "
                 "the dense Gemma 4 models only");
  }
  if (c.Float("attn_logit_softcapping").ok()) {
    return Error(ErrorCode::kUnsupported, "config.json: attn_logit_softcapping is set; Gemma 4 has none (llama.cpp "
                                          "refuses it too)");
  }
  Gemma4Dims g;
  Expected<HfDecoderDims> d = ReadDecoderDims(c, {.n_ctx = 131072, .n_head = 8, .n_head_kv = 4, .head_dim = 256});
  if (!d.ok()) return d.status();
  g.d = *d;
  g.head_dim_swa = g.d.head_dim;
  g.n_kv_swa = g.d.n_head_kv;
  Expected<std::vector<std::string>> types = c.StringList("layer_types");
  if (!types.ok()) return types.status();
  if (static_cast<int64_t>(types->size()) != g.d.n_layer) {
    return Error(ErrorCode::kCorrupt, "config.json: layer_types has {} entries for {} layers", types->size(),
                 g.d.n_layer);
  }
  for (size_t il = 0; il < types->size(); ++il) {
    const std::string& t = (*types)[il];
    if (t != "sliding_attention" && t != "full_attention") {
      return Error(ErrorCode::kCorrupt, "config.json: layer_types[{}] is '{}', expected sliding_attention or "
                                        "full_attention", il, t);
    }
    g.swa.push_back(t == "sliding_attention");
  }
  if (Expected<int64_t> v = c.Int("global_head_dim"); v.ok()) {
    g.head_dim_full = *v;
  } else if (std::optional<int64_t> p = FirstFullLayerValue(c, g.swa, "head_dim")) {
    g.head_dim_full = *p;
  } else {
    return Error(ErrorCode::kCorrupt, "config.json has no 'global_head_dim' (nor a head_dim for a full-attention "
                                      "layer in per_layer_config)");
  }
  if (Expected<int64_t> v = c.Int("num_global_key_value_heads"); v.ok()) {
    g.n_kv_full = *v;
  } else {
    g.n_kv_full = FirstFullLayerValue(c, g.swa, "num_key_value_heads");
  }
  Expected<int64_t> shared = c.Int("num_kv_shared_layers");
  if (!shared.ok()) return shared.status();
  if (*shared >= g.d.n_layer) {
    return Error(ErrorCode::kCorrupt, "config.json: num_kv_shared_layers {} leaves no layer of its own among {}",
                 *shared, g.d.n_layer);
  }
  g.n_shared = *shared;
  if (Expected<int64_t> v = c.Int("hidden_size_per_layer_input"); v.ok()) g.n_per_layer = *v;
  if (g.n_per_layer > 0) {
    Expected<int64_t> v = c.Int("vocab_size_per_layer_input");
    g.n_vocab_per_layer = v.ok() ? *v : g.d.n_vocab;
  }
  if (Expected<bool> v = c.Bool("attention_k_eq_v"); v.ok()) g.k_eq_v = *v;
  if (Expected<bool> v = c.Bool("use_double_wide_mlp"); v.ok()) g.double_wide = *v;
  Expected<std::string> rope = c.String("rope_parameters.full_attention.rope_type");
  if (!rope.ok() || *rope != "proportional") {
    return Error(ErrorCode::kUnsupported,
                 "config.json: rope_parameters.full_attention.rope_type is {}; llama.cpp's Gemma4Model takes "
                 "\"proportional\" rope only", rope.ok() ? fmt::format("'{}'", *rope) : std::string("absent"));
  }
  Expected<double> partial = c.Float("rope_parameters.full_attention.partial_rotary_factor");
  if (!partial.ok()) return partial.status();
  g.partial_full = *partial;
  for (int64_t il = 0; il < g.d.n_layer; ++il) {
    if (g.d.n_head % g.KvHeads(il) != 0) {
      return Error(ErrorCode::kCorrupt, "config.json: layer {}: num_attention_heads {} is not a multiple of its {} "
                                        "key/value heads", il, g.d.n_head, g.KvHeads(il));
    }
  }
  return g;
}

std::optional<std::string_view> Dropped(std::string_view name) {
  // TextModel.filter_tensors' multimodal rule ("vision_", "audio_", "vision.", "audio." ...).
  for (std::string_view part : {"vision_", "audio_", "vision.", "audio."}) {
    if (name.find(part) != std::string_view::npos) {
      return "the vision or audio tower, which llama.cpp writes to a separate --mmproj file (trit runs text only)";
    }
  }
  return DecoderDropped(name);
}

// llama.cpp's generate_extra_tensors: one factor per frequency pair of a full-attention head.
std::vector<float> RopeFreqs(const Gemma4Dims& g) {
  const auto n_rot = static_cast<int64_t>(static_cast<double>(g.head_dim_full) * g.partial_full / 2);
  const int64_t n_pairs = g.head_dim_full / 2;
  std::vector<float> values(static_cast<size_t>(n_pairs), 1e30f);
  std::fill_n(values.begin(), std::clamp<int64_t>(n_rot, 0, n_pairs), 1.0f);
  return values;
}

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  Expected<Gemma4Dims> dims = ReadDims(info.config);
  if (!dims.ok()) return dims.status();
  const Gemma4Dims& g = *dims;
  const HfDecoderDims& d = g.d;
  std::vector<HfTensorSpec> out;
  HfTensorSpec freqs{"", "rope_freqs.weight", {g.head_dim_full / 2}};
  freqs.generated = RopeFreqs(g);
  out.push_back(std::move(freqs));
  out.push_back({"model.embed_tokens.weight", "token_embd.weight", {d.n_vocab, d.n_embd}});
  const int64_t n_pl_all = d.n_layer * g.n_per_layer;
  if (g.n_per_layer > 0) {
    out.push_back({"model.embed_tokens_per_layer.weight", "per_layer_token_embd.weight", {g.n_vocab_per_layer, n_pl_all}});
    out.push_back({"model.per_layer_model_projection.weight", "per_layer_model_proj.weight", {n_pl_all, d.n_embd}});
    out.push_back({"model.per_layer_projection_norm.weight", "per_layer_proj_norm.weight", {g.n_per_layer}});
  }
  for (int64_t il = 0; il < d.n_layer; ++il) {
    const std::string hf = fmt::format("model.layers.{}.", il);
    const std::string gg = fmt::format("blk.{}.", il);
    auto add = [&](std::string_view h, std::string_view gname, std::vector<int64_t> shape, bool optional = false) {
      HfTensorSpec spec{hf + std::string(h), gg + std::string(gname), std::move(shape)};
      spec.optional = optional;
      out.push_back(std::move(spec));
    };
    const int64_t hd = g.HeadDim(il), q_out = d.n_head * hd, kv_out = g.KvHeads(il) * hd, ff = g.FeedForward(il);
    add("input_layernorm.weight", "attn_norm.weight", {d.n_embd});
    add("self_attn.q_proj.weight", "attn_q.weight", {q_out, d.n_embd});
    add("self_attn.q_norm.weight", "attn_q_norm.weight", {hd});
    // A shared-KV layer reads an earlier layer's cache: its own k/v, where
    // the checkpoint has them, are written (as llama.cpp does) but optional.
    const bool shared = g.Shared(il);
    add("self_attn.k_proj.weight", "attn_k.weight", {kv_out, d.n_embd}, shared);
    add("self_attn.k_norm.weight", "attn_k_norm.weight", {hd}, shared);
    if (g.swa[static_cast<size_t>(il)] || !g.k_eq_v) {
      add("self_attn.v_proj.weight", "attn_v.weight", {kv_out, d.n_embd}, shared);
    }
    add("self_attn.o_proj.weight", "attn_output.weight", {d.n_embd, q_out});
    add("post_attention_layernorm.weight", "post_attention_norm.weight", {d.n_embd});
    add("pre_feedforward_layernorm.weight", "ffn_norm.weight", {d.n_embd});
    add("post_feedforward_layernorm.weight", "post_ffw_norm.weight", {d.n_embd});
    add("mlp.gate_proj.weight", "ffn_gate.weight", {ff, d.n_embd});
    add("mlp.up_proj.weight", "ffn_up.weight", {ff, d.n_embd});
    add("mlp.down_proj.weight", "ffn_down.weight", {d.n_embd, ff});
    add("layer_scalar", "layer_output_scale.weight", {1});
    if (g.n_per_layer > 0) {
      add("per_layer_input_gate.weight", "inp_gate.weight", {g.n_per_layer, d.n_embd});
      add("per_layer_projection.weight", "proj.weight", {d.n_embd, g.n_per_layer});
      add("post_per_layer_input_norm.weight", "post_norm.weight", {d.n_embd});
    }
  }
  out.push_back({"model.norm.weight", "output_norm.weight", {d.n_embd}});
  if (!d.tied) out.push_back({"lm_head.weight", "output.weight", {d.n_vocab, d.n_embd}});
  return out;
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  const HfModelConfig& c = info.config;
  Expected<Gemma4Dims> dims = ReadDims(c);
  if (!dims.ok()) return dims.status();
  const Gemma4Dims& g = *dims;
  const HfDecoderDims& d = g.d;
  auto key = [](std::string_view k) { return fmt::format("{}.{}", kArch, k); };
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };
  auto per_layer = [&](auto value_of) {
    std::vector<int32_t> v;  // gguf-py writes a list of ints as INT32
    for (int64_t il = 0; il < d.n_layer; ++il) v.push_back(static_cast<int32_t>(value_of(il)));
    return gguf::Value(gguf::Array::Of(gguf::ValueType::kInt32, v));
  };
  std::vector<std::pair<std::string, gguf::Value>> keys = {
      {key("block_count"), u32(d.n_layer)},
      {key("context_length"), u32(d.n_ctx)},
      {key("embedding_length"), u32(d.n_embd)},
      {key("feed_forward_length"),
       g.double_wide ? per_layer([&](int64_t il) { return g.FeedForward(il); }) : u32(d.n_ff)},
      {key("attention.head_count"), u32(d.n_head)},
      {key("attention.head_count_kv"),
       g.n_kv_full ? per_layer([&](int64_t il) { return g.KvHeads(il); }) : u32(g.n_kv_swa)},
  };
  if (Expected<double> theta = c.Float("rope_parameters.full_attention.rope_theta"); theta.ok()) {
    keys.emplace_back(key("rope.freq_base"), gguf::Value(static_cast<float>(*theta)));
  }
  if (Expected<double> theta = c.Float("rope_parameters.sliding_attention.rope_theta"); theta.ok()) {
    keys.emplace_back(key("rope.freq_base_swa"), gguf::Value(static_cast<float>(*theta)));
  }
  Expected<double> eps = c.Float("rms_norm_eps");
  keys.emplace_back(key("attention.layer_norm_rms_epsilon"), gguf::Value(static_cast<float>(eps.ok() ? *eps : 1e-6)));
  if (Expected<double> cap = c.Float("final_logit_softcapping"); cap.ok()) {
    keys.emplace_back(key("final_logit_softcapping"), gguf::Value(static_cast<float>(*cap)));
  }
  Expected<int64_t> pattern = c.Int("sliding_window_pattern");
  if (!pattern.ok() || *pattern != 1) {
    Expected<int64_t> window = c.Int("sliding_window");
    if (!window.ok()) return window.status();
    keys.emplace_back(key("attention.sliding_window"), u32(*window));
  }
  std::vector<uint8_t> swa(g.swa.begin(), g.swa.end());
  // Gemma 3's key/value lengths are overwritten by the full layers' head size.
  keys.emplace_back(key("attention.key_length"), u32(g.head_dim_full));
  keys.emplace_back(key("attention.value_length"), u32(g.head_dim_full));
  keys.emplace_back(key("attention.key_length_swa"), u32(g.head_dim_swa));
  keys.emplace_back(key("attention.value_length_swa"), u32(g.head_dim_swa));
  keys.emplace_back(key("attention.shared_kv_layers"), u32(g.n_shared));
  keys.emplace_back(key("embedding_length_per_layer_input"), u32(g.n_per_layer));
  keys.emplace_back(key("attention.sliding_window_pattern"), gguf::Value(gguf::Array::Of(gguf::ValueType::kBool, swa)));
  // The full layers rotate head_dim_full dimensions (rope_freqs leaves the
  // unrotated ones still); the sliding ones head_dim x the top level's
  // partial_rotary_factor (1 unless rope_parameters has one of its own).
  Expected<double> partial_swa = c.Float("rope_parameters.partial_rotary_factor");
  keys.emplace_back(key("rope.dimension_count"), u32(g.head_dim_full));
  keys.emplace_back(key("rope.dimension_count_swa"),
                    u32(static_cast<int64_t>(static_cast<double>(g.head_dim_swa) * (partial_swa.ok() ? *partial_swa : 1.0))));
  for (auto& [k, value] : keys) {
    if (Status s = w.SetMetadata(k, std::move(value)); !s.ok()) return s;
  }
  return Status::Ok();
}

// Gemma4Model.set_vocab: these tokens are typed user-defined "so that the
// chat parser can read them" (they always render in the output).
void AdjustVocab(tokenizer::HfTokenizer* tok) {
  constexpr std::string_view kVisible[] = {"<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>",
                                           "<|tool_response>", "<tool_response|>", "<|\"|>"};
  tok->model = "gemma4";
  for (size_t id = 0; id < tok->tokens.size(); ++id) {
    if (std::find(std::begin(kVisible), std::end(kVisible), tok->tokens[id]) != std::end(kVisible)) {
      tok->token_types[id] = 4;  // USER_DEFINED
    }
  }
  tok->add_space_prefix = false;
  tok->add_bos = true;
}

}  // namespace

const HfArchitecture& Gemma4Architecture() {
  static const HfArchitecture kGemma4 = {
      .gguf_arch = kArch,
      .hf_names = kHfNames,
      .normalize_name = TextModelName,
      .dropped = Dropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
      .vocab_source = HfVocabSource::kLlamaHfVocab,
      .adjust_vocab = AdjustVocab,
  };
  return kGemma4;
}

}  // namespace trit::convert
