#include "model/random_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "base/check.h"
#include "quant/i2s_quants.h"
#include "quant/random_blocks.h"

namespace trit::testing {

RandomModelSpec ArchitecturePreset(const std::string& architecture) {
  RandomModelSpec s;
  s.architecture = architecture;
  // The gemma family and bitnet take their logits from token_embd: smaller
  // embeddings keep the logits near 10 rather than 100, where float32's own
  // rounding (~1e-7 relative) stays well under the numpy check's 1e-5.
  if (architecture.rfind("gemma", 0) == 0 || architecture == "bitnet") s.embd_std = 0.125f;
  if (architecture == "qwen2") s.qkv_bias = true;
  if (architecture == "qwen3") s.qk_norm = true;
  if (architecture == "gemma") {
    s.tied = true;
    s.head_dim = 24;  // n_head * head_dim = 96 != n_embd: key_length must be read
    s.n_rot = 24;
  }
  if (architecture == "gemma2") {
    s.tied = true;
    s.post_norms = true;
    s.attn_softcap = 4.0f;   // small caps, so that capping changes the results
    s.final_softcap = 3.0f;
    s.sliding_window = 6;
  }
  if (architecture == "gemma3") {
    s.tied = true;
    s.qk_norm = true;
    s.post_norms = true;
    s.n_layer = 7;  // local layers 0-4 and 6, global layer 5
    s.sliding_window = 5;
    s.rope_freq_base = 1000000.0f;
    s.rope_scale_linear = 8.0f;
  }
  if (architecture == "bitnet") {
    s.tied = true;
    s.sub_norms = true;
    s.weight_scales = true;
    s.n_embd = 256;  // rows of TQ1_0 / TQ2_0 blocks are multiples of 256
    s.n_ff = 512;
    s.n_rot = 32;
  }
  if (architecture == "bitnet-b1.58") {
    s.tied = true;
    s.sub_norms = true;
    s.ternary_matrices = true;
    s.embd_std = 0.125f;
    s.n_embd = 256;  // i2_s rows run as tq2_0 blocks of 256
    s.n_ff = 512;
    s.n_rot = 32;
  }
  return s;
}

namespace {

// n values in {-scale, 0, scale} (about a third each) as f32 or I2_S bytes.
std::vector<uint8_t> TernaryTensorBytes(quant::GgmlType type, int64_t n, float scale, std::mt19937_64& rng,
                                        std::normal_distribution<float>& normal) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    const float z = normal(rng);
    x = z > 0.43f ? scale : (z < -0.43f ? -scale : 0.0f);
  }
  if (type == quant::GgmlType::kI2_S) {
    std::vector<uint8_t> bytes(static_cast<size_t>(quant::I2SBytes(n)));
    TRIT_CHECK(quant::QuantizeI2S(v.data(), n, 1.0f, bytes).ok());
    return bytes;
  }
  TRIT_CHECK(type == quant::GgmlType::kF32);
  std::vector<uint8_t> bytes(v.size() * sizeof(float));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

}  // namespace

std::vector<uint8_t> RandomTensorBytes(quant::GgmlType type, int64_t n, float scale, float offset,
                                       std::mt19937_64& rng, std::normal_distribution<float>& normal) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = offset + scale * normal(rng);
  const quant::TypeInfo& t = quant::GetType(type);
  std::vector<uint8_t> bytes(static_cast<size_t>(n / t.block_size) * static_cast<size_t>(t.type_size));
  if (t.quantize != nullptr) {
    t.quantize(v.data(), bytes.data(), n);
  } else {  // q2_K, q3_K (no quantizer): random blocks of values of about `scale`
    quant::testing::RandomBlocks(t.type, n / t.block_size, scale, rng, bytes.data());
  }
  return bytes;
}

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
      {a + ".rope.freq_base", gguf::Value(s.rope_freq_base)},
      {a + ".attention.layer_norm_rms_epsilon", gguf::Value(1e-5f)},
      {"tokenizer.ggml.bos_token_id", u32(1)},
      {"tokenizer.ggml.eos_token_id", u32(2)},
  };
  if (s.head_dim > 0) {
    meta.emplace_back(a + ".attention.key_length", u32(s.head_dim));
    meta.emplace_back(a + ".attention.value_length", u32(s.head_dim));
  }
  if (s.rope_scale_linear > 0.0f) {
    meta.emplace_back(a + ".rope.scaling.type", gguf::Value(std::string("linear")));
    meta.emplace_back(a + ".rope.scaling.factor", gguf::Value(s.rope_scale_linear));
  }
  if (s.attn_softcap > 0.0f) meta.emplace_back(a + ".attn_logit_softcapping", gguf::Value(s.attn_softcap));
  if (s.final_softcap > 0.0f) meta.emplace_back(a + ".final_logit_softcapping", gguf::Value(s.final_softcap));
  if (s.sliding_window > 0) meta.emplace_back(a + ".attention.sliding_window", u32(s.sliding_window));
  for (auto& [k, v] : meta) {
    if (Status st = w.SetMetadata(k, v); !st.ok()) return st;
  }
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Status status;
  auto add = [&](const std::string& name, int64_t n_cols, int64_t n_rows, float scale, float offset, bool matrix) {
    if (!status.ok() || name == s.skip_tensor) return;
    // n_rows == 0: a vector of n_cols elements.
    if (name == s.wrong_tensor) (n_rows == 0 ? n_cols : n_rows) /= 2;
    const std::vector<int64_t> shape = n_rows == 0 ? std::vector<int64_t>{n_cols} : std::vector<int64_t>{n_cols, n_rows};
    const bool embedding = name == "token_embd.weight" || name == "output.weight";
    if (s.ternary_matrices && matrix && !embedding) {
      // A per-tensor scale that differs between tensors, around `scale`.
      const float ts = scale * (0.75f + 0.5f * std::fabs(normal(rng)));
      status = w.AddTensorData(name, s.matrix_type, shape, TernaryTensorBytes(s.matrix_type, n_cols * n_rows, ts, rng, normal));
      return;
    }
    const quant::GgmlType type =
        matrix && !(s.ternary_matrices && embedding) ? s.matrix_type : quant::GgmlType::kF32;
    status = w.AddTensorData(name, type, shape,
                             RandomTensorBytes(type, n_cols * std::max<int64_t>(n_rows, 1), scale, offset, rng, normal));
  };
  const int64_t hd = s.head_size();
  const float ws = 1.0f / std::sqrt(static_cast<float>(s.n_embd));
  add("token_embd.weight", s.n_embd, s.n_vocab, s.embd_std, 0.0f, true);
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
    if (s.sub_norms) add(p + "attn_sub_norm.weight", s.n_head * hd, 0, 0.1f, 1.0f, false);
    add(p + "attn_output.weight", s.n_head * hd, s.n_embd, ws, 0.0f, true);
    if (s.post_norms) add(p + "post_attention_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
    add(p + "ffn_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
    add(p + "ffn_gate.weight", s.n_embd, s.n_ff, ws, 0.0f, true);
    add(p + "ffn_up.weight", s.n_embd, s.n_ff, ws, 0.0f, true);
    if (s.sub_norms) add(p + "ffn_sub_norm.weight", s.n_ff, 0, 0.1f, 1.0f, false);
    add(p + "ffn_down.weight", s.n_ff, s.n_embd, 1.0f / std::sqrt(static_cast<float>(s.n_ff)), 0.0f, true);
    if (s.post_norms) add(p + "post_ffw_norm.weight", s.n_embd, 0, 0.1f, 1.0f, false);
    if (s.weight_scales) {
      for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
        add(p + m + ".scale", 1, 0, 0.2f, 1.0f, false);
      }
    }
  }
  if (!status.ok()) return status;
  return w.WriteFile(path);
}

Status WriteUntiedCopy(const std::string& tied_path, const std::string& untied_path) {
  Expected<gguf::File> f = gguf::File::Open(tied_path);
  if (!f.ok()) return f.status();
  gguf::Writer w;
  for (const auto& e : f->metadata()) {
    if (Status s = w.SetMetadata(e.key, e.value); !s.ok()) return s;
  }
  for (const auto& t : f->tensors()) {
    if (Status s = w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)); !s.ok()) return s;
    if (t.name != "token_embd.weight") continue;
    if (Status s = w.AddTensorData("output.weight", t.type->type, t.shape, f->TensorData(t)); !s.ok()) return s;
  }
  return w.WriteFile(untied_path);
}

}  // namespace trit::testing
