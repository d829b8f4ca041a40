// BERT's tensor table and hyper-parameters (hf_bert.h says where each fact
// comes from).
#include "convert/hf_bert.h"

#include <fmt/format.h>

#include <array>

namespace trit::convert {
namespace {

constexpr std::string_view kHfNames[] = {"BertModel", "BertForMaskedLM"};

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Checkpoints of BertFor* classes prefix the encoder's tensors with "bert.";
// old TensorFlow-era ones name LayerNorm parameters gamma and beta.
std::string NormalizeName(std::string_view hf_name) {
  std::string name(StartsWith(hf_name, "bert.") ? hf_name.substr(5) : hf_name);
  if (EndsWith(name, ".gamma")) return name.substr(0, name.size() - 6) + ".weight";
  if (EndsWith(name, ".beta")) return name.substr(0, name.size() - 5) + ".bias";
  return name;
}

std::optional<std::string_view> Dropped(std::string_view name) {
  if (name == "embeddings.position_ids") return "position ids 0..n-1, a buffer, not a weight";
  if (name == "pooler.dense.weight" || name == "pooler.dense.bias") {
    return "the pooler (next-sentence head), unused for embeddings";
  }
  if (StartsWith(name, "cls.predictions")) return "the masked-LM head, unused for embeddings";
  if (StartsWith(name, "cls.seq_relationship")) return "the next-sentence head, unused for embeddings";
  return std::nullopt;
}

// The hyper-parameters BERT needs, each required by name.
struct BertDims {
  int64_t n_vocab, n_embd, n_ff, n_layer, n_head, n_ctx, n_token_types;
  double norm_eps;
};

Expected<BertDims> ReadDims(const HfModelConfig& c) {
  BertDims d{};
  const std::pair<std::string_view, int64_t*> ints[] = {
      {"vocab_size", &d.n_vocab},          {"hidden_size", &d.n_embd},
      {"intermediate_size", &d.n_ff},      {"num_hidden_layers", &d.n_layer},
      {"num_attention_heads", &d.n_head},  {"max_position_embeddings", &d.n_ctx},
      {"type_vocab_size", &d.n_token_types},
  };
  for (const auto& [key, out] : ints) {
    Expected<int64_t> v = c.Int(key);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  Expected<double> eps = c.Float("layer_norm_eps");
  if (!eps.ok()) return eps.status();
  d.norm_eps = *eps;
  if (d.n_embd % d.n_head != 0) {
    return Error(ErrorCode::kCorrupt, "config.json: hidden_size {} is not a multiple of num_attention_heads {}",
                 d.n_embd, d.n_head);
  }
  // llama.cpp's BERT graph applies GELU whatever config.json says; refuse a
  // model trained with another activation rather than convert it wrongly.
  Expected<std::string> act = c.String("hidden_act");
  if (!act.ok()) return act.status();
  if (*act != "gelu") {
    return Error(ErrorCode::kUnsupported, "config.json: hidden_act '{}': llama.cpp's BERT computes 'gelu' only",
                 *act);
  }
  return d;
}

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  Expected<BertDims> dims = ReadDims(info.config);
  if (!dims.ok()) return dims.status();
  const BertDims& d = *dims;
  std::vector<HfTensorSpec> out = {
      {"embeddings.word_embeddings.weight", "token_embd.weight", {d.n_vocab, d.n_embd}},
      {"embeddings.token_type_embeddings.weight", "token_types.weight", {d.n_token_types, d.n_embd}},
      {"embeddings.position_embeddings.weight", "position_embd.weight", {d.n_ctx, d.n_embd}},
      {"embeddings.LayerNorm.weight", "token_embd_norm.weight", {d.n_embd}},
      {"embeddings.LayerNorm.bias", "token_embd_norm.bias", {d.n_embd}},
  };
  // (Hugging Face module under encoder.layer.N, GGUF name under blk.N, out, in); in == 0: a 1-D tensor.
  struct Linear {
    std::string_view hf, gguf;
    int64_t out, in;
  };
  const Linear per_layer[] = {
      {"attention.self.query", "attn_q", d.n_embd, d.n_embd},
      {"attention.self.key", "attn_k", d.n_embd, d.n_embd},
      {"attention.self.value", "attn_v", d.n_embd, d.n_embd},
      {"attention.output.dense", "attn_output", d.n_embd, d.n_embd},
      {"attention.output.LayerNorm", "attn_output_norm", d.n_embd, 0},
      {"intermediate.dense", "ffn_up", d.n_ff, d.n_embd},
      {"output.dense", "ffn_down", d.n_embd, d.n_ff},
      {"output.LayerNorm", "layer_output_norm", d.n_embd, 0},
  };
  for (int64_t il = 0; il < d.n_layer; ++il) {
    for (const Linear& t : per_layer) {
      const std::string hf = fmt::format("encoder.layer.{}.{}", il, t.hf);
      const std::string gguf = fmt::format("blk.{}.{}", il, t.gguf);
      out.push_back({hf + ".weight", gguf + ".weight",
                     t.in == 0 ? std::vector<int64_t>{t.out} : std::vector<int64_t>{t.out, t.in}});
      out.push_back({hf + ".bias", gguf + ".bias", {t.out}});
    }
  }
  return out;
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  Expected<BertDims> dims = ReadDims(info.config);
  if (!dims.ok()) return dims.status();
  const BertDims& d = *dims;
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };  // each < 2^31 (hf_config.cpp)
  const std::pair<const char*, gguf::Value> keys[] = {
      {"bert.block_count", u32(d.n_layer)},
      {"bert.context_length", u32(d.n_ctx)},
      {"bert.embedding_length", u32(d.n_embd)},
      {"bert.feed_forward_length", u32(d.n_ff)},
      {"bert.attention.head_count", u32(d.n_head)},
      {"bert.attention.layer_norm_epsilon", gguf::Value(static_cast<float>(d.norm_eps))},
      {"bert.attention.causal", gguf::Value(false)},
      // BertModel.set_vocab: "to validate the size of the token_type embeddings".
      {"tokenizer.ggml.token_type_count", u32(d.n_token_types)},
  };
  for (const auto& [key, value] : keys) {
    if (Status s = w.SetMetadata(key, value); !s.ok()) return s;
  }
  if (info.pooling) {
    if (Status s = w.SetMetadata("bert.pooling_type", gguf::Value(static_cast<uint32_t>(*info.pooling))); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

const HfArchitecture& BertArchitecture() {
  static const HfArchitecture kBert = {
      .gguf_arch = "bert",
      .hf_names = kHfNames,
      .normalize_name = NormalizeName,
      .dropped = Dropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
  };
  return kBert;
}

}  // namespace trit::convert
