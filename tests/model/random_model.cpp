#include "model/random_model.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "formats/gguf/writer.h"

namespace trit::testing {

Status WriteRandomModel(const RandomModelSpec& s, const std::string& path) {
  gguf::Writer w;
  const std::string a = s.architecture;
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };
  std::vector<std::pair<std::string, gguf::Value>> meta = {
      {"general.architecture", gguf::Value(a)},
      {a + ".context_length", u32(s.n_ctx)},
      {a + ".embedding_length", u32(s.n_embd)},
      {a + ".feed_forward_length", u32(s.n_ff)},
      {a + ".block_count", u32(s.n_layer)},
      {a + ".attention.head_count", u32(s.n_head)},
      {a + ".attention.head_count_kv", u32(s.n_head_kv)},
      {a + ".rope.dimension_count", u32(s.n_rot)},
      {a + ".rope.freq_base", gguf::Value(10000.0f)},
      {a + ".attention.layer_norm_rms_epsilon", gguf::Value(1e-5f)},
      {"tokenizer.ggml.bos_token_id", u32(1)},
      {"tokenizer.ggml.eos_token_id", u32(2)},
  };
  for (auto& [k, v] : meta) {
    if (Status st = w.SetMetadata(k, v); !st.ok()) return st;
  }
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Status status;
  auto add = [&](const std::string& name, int64_t n_cols, int64_t n_rows, float scale, float offset, bool matrix) {
    if (!status.ok() || name == s.skip_tensor) return;
    // n_rows == 0: a vector of n_cols elements.
    if (name == s.wrong_tensor) n_rows = n_rows / 2;
    const std::vector<int64_t> shape = n_rows == 0 ? std::vector<int64_t>{n_cols} : std::vector<int64_t>{n_cols, n_rows};
    std::vector<float> v(static_cast<size_t>(n_cols * std::max<int64_t>(n_rows, 1)));
    for (float& x : v) x = offset + scale * normal(rng);
    const quant::TypeInfo& t = quant::GetType(matrix ? s.matrix_type : quant::GgmlType::kF32);
    std::vector<uint8_t> bytes(static_cast<size_t>(v.size() / static_cast<size_t>(t.block_size)) *
                               static_cast<size_t>(t.type_size));
    t.quantize(v.data(), bytes.data(), static_cast<int64_t>(v.size()));
    status = w.AddTensorData(name, t.type, shape, bytes);
  };
  const int64_t hd = s.n_embd / s.n_head;
  const float ws = 1.0f / std::sqrt(static_cast<float>(s.n_embd));
  add("token_embd.weight", s.n_embd, s.n_vocab, 1.0f, 0.0f, true);
  add("output_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
  if (!s.tied) add("output.weight", s.n_embd, s.n_vocab, ws, 0.0f, true);
  for (int64_t il = 0; il < s.n_layer; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    add(p + "attn_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
    add(p + "attn_q.weight", s.n_embd, s.n_head * hd, ws, 0.0f, true);
    add(p + "attn_k.weight", s.n_embd, s.n_head_kv * hd, ws, 0.0f, true);
    add(p + "attn_v.weight", s.n_embd, s.n_head_kv * hd, ws, 0.0f, true);
    if (s.qkv_bias) {
      add(p + "attn_q.bias", s.n_head * hd, 0, 0.1f, 0.0f, false);
      add(p + "attn_k.bias", s.n_head_kv * hd, 0, 0.1f, 0.0f, false);
      add(p + "attn_v.bias", s.n_head_kv * hd, 0, 0.1f, 0.0f, false);
    }
    if (s.qk_norm) {
      add(p + "attn_q_norm.weight", hd, 0, 0.1f, 1.0f, false);
      add(p + "attn_k_norm.weight", hd, 0, 0.1f, 1.0f, false);
    }
    add(p + "attn_output.weight", s.n_head * hd, s.n_embd, ws, 0.0f, true);
    add(p + "ffn_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
    add(p + "ffn_gate.weight", s.n_embd, s.n_ff, ws, 0.0f, true);
    add(p + "ffn_up.weight", s.n_embd, s.n_ff, ws, 0.0f, true);
    add(p + "ffn_down.weight", s.n_ff, s.n_embd, 1.0f / std::sqrt(static_cast<float>(s.n_ff)), 0.0f, true);
  }
  if (!status.ok()) return status;
  return w.WriteFile(path);
}

}  // namespace trit::testing
