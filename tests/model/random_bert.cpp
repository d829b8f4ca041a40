#include "model/random_bert.h"

#include <cmath>
#include <random>
#include <vector>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "model/random_model.h"

namespace trit::testing {

Status WriteRandomBert(const RandomBertSpec& spec, const std::string& path) {
  RandomBertSpec s = spec;
  gguf::Writer w;
  if (!s.vocab_gguf.empty()) {
    Expected<gguf::File> vocab = gguf::File::Open(s.vocab_gguf);
    if (!vocab.ok()) return vocab.status();
    for (const gguf::MetadataEntry& e : vocab->metadata()) {
      if (!e.key.starts_with("tokenizer.")) continue;
      if (Status st = w.SetMetadata(e.key, e.value); !st.ok()) return st;
    }
    Expected<const gguf::Array*> tokens = vocab->GetArray("tokenizer.ggml.tokens");
    if (!tokens.ok()) return tokens.status();
    s.n_vocab = static_cast<int64_t>((*tokens)->size());
  }
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };
  std::vector<std::pair<std::string, gguf::Value>> meta = {
      {"general.architecture", gguf::Value(std::string("bert"))},
      {"bert.context_length", u32(s.n_ctx)},
      {"bert.embedding_length", u32(s.n_embd)},
      {"bert.feed_forward_length", u32(s.n_ff)},
      {"bert.block_count", u32(s.n_layer)},
      {"bert.attention.head_count", u32(s.n_head)},
      {"bert.attention.layer_norm_epsilon", gguf::Value(1e-12f)},
      {"bert.attention.causal", gguf::Value(s.causal)},
  };
  if (s.pooling_type >= 0) meta.emplace_back("bert.pooling_type", u32(s.pooling_type));
  if (s.head_count_kv > 0) meta.emplace_back("bert.attention.head_count_kv", u32(s.head_count_kv));
  for (auto& [k, v] : meta) {
    if (Status st = w.SetMetadata(k, v); !st.ok()) return st;
  }
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Status status;
  // n_rows == 0: a vector of n_cols elements (always f32, as the converter writes them).
  auto add = [&](const std::string& name, int64_t n_cols, int64_t n_rows, float scale, float offset, bool matrix) {
    if (!status.ok() || name == s.skip_tensor) return;
    const std::vector<int64_t> shape = n_rows == 0 ? std::vector<int64_t>{n_cols} : std::vector<int64_t>{n_cols, n_rows};
    const quant::GgmlType type = matrix ? s.matrix_type : quant::GgmlType::kF32;
    status = w.AddTensorData(name, type, shape,
                             RandomTensorBytes(type, n_cols * (n_rows == 0 ? 1 : n_rows), scale, offset, rng, normal));
  };
  const int64_t d = s.n_embd;
  const float ws = 1.0f / std::sqrt(static_cast<float>(d));
  add("token_embd.weight", d, s.n_vocab, 1.0f, 0.0f, false);
  add("token_types.weight", d, 2, 0.1f, 0.0f, false);
  add("position_embd.weight", d, s.n_ctx, 0.3f, 0.0f, false);
  add("token_embd_norm.weight", d, 0, 0.1f, 1.0f, false);
  add("token_embd_norm.bias", d, 0, 0.1f, 0.0f, false);
  for (int64_t il = 0; il < s.n_layer; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
      add(p + m + ".weight", d, d, ws, 0.0f, true);
      add(p + m + ".bias", d, 0, 0.1f, 0.0f, false);
    }
    add(p + "attn_output_norm.weight", d, 0, 0.1f, 1.0f, false);
    add(p + "attn_output_norm.bias", d, 0, 0.1f, 0.0f, false);
    add(p + "ffn_up.weight", d, s.n_ff, ws, 0.0f, true);
    add(p + "ffn_up.bias", s.n_ff, 0, 0.1f, 0.0f, false);
    add(p + "ffn_down.weight", s.n_ff, d, 1.0f / std::sqrt(static_cast<float>(s.n_ff)), 0.0f, true);
    add(p + "ffn_down.bias", d, 0, 0.1f, 0.0f, false);
    add(p + "layer_output_norm.weight", d, 0, 0.1f, 1.0f, false);
    add(p + "layer_output_norm.bias", d, 0, 0.1f, 0.0f, false);
  }
  if (!status.ok()) return status;
  return w.WriteFile(path);
}

}  // namespace trit::testing
