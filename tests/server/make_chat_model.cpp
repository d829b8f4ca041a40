// make_chat_model OUT.gguf VOCAB.gguf TEMPLATE.jinja [n_embd n_layer n_ff TYPE]:
// a llama model with a real vocabulary (every tokenizer.* key of VOCAB.gguf),
// a real chat template and small random weights, for the server tests and
// the server benchmark (bench/serve_load.py). TYPE: the weight matrices' type
// (f32 by default; any type with a quantizer: q8_0, q4_0, tq1_0, ...).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "quant/types.h"

namespace {

using trit::Status;
namespace gguf = trit::gguf;
namespace quant = trit::quant;

int Fail(const std::string& message) {
  fmt::print(stderr, "make_chat_model: {}\n", message);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 8) {
    fmt::print(stderr, "usage: make_chat_model OUT.gguf VOCAB.gguf TEMPLATE.jinja [n_embd n_layer n_ff TYPE]\n");
    return 2;
  }
  int64_t n_embd = 64, n_layer = 2, n_ff = 128;
  quant::GgmlType matrix_type = quant::GgmlType::kF32;
  if (argc == 8) {
    n_embd = std::stoll(argv[4]);
    n_layer = std::stoll(argv[5]);
    n_ff = std::stoll(argv[6]);
    const quant::TypeInfo* t = quant::FindTypeByName(argv[7]);
    if (t == nullptr || t->quantize == nullptr) return Fail(fmt::format("'{}' is not a type trit can quantize to", argv[7]));
    matrix_type = t->type;
  }
  const int64_t n_head = n_embd / 32, n_head_kv = std::max<int64_t>(1, n_head / 2), head_dim = 32;

  trit::Expected<gguf::File> vocab = gguf::File::Open(argv[2]);
  if (!vocab.ok()) return Fail(vocab.status().message());
  std::ifstream tf(argv[3], std::ios::binary);
  if (!tf) return Fail(fmt::format("cannot read {}", argv[3]));
  std::stringstream tss;
  tss << tf.rdbuf();

  gguf::Writer w;
  auto u32 = [](int64_t v) { return gguf::Value(static_cast<uint32_t>(v)); };
  std::vector<std::pair<std::string, gguf::Value>> meta = {
      {"general.architecture", gguf::Value(std::string("llama"))},
      {"general.name", gguf::Value(std::string("trit server test model (random weights)"))},
      {"llama.context_length", u32(2048)},
      {"llama.embedding_length", u32(n_embd)},
      {"llama.feed_forward_length", u32(n_ff)},
      {"llama.block_count", u32(n_layer)},
      {"llama.attention.head_count", u32(n_head)},
      {"llama.attention.head_count_kv", u32(n_head_kv)},
      {"llama.rope.dimension_count", u32(head_dim)},
      {"llama.rope.freq_base", gguf::Value(10000.0f)},
      {"llama.attention.layer_norm_rms_epsilon", gguf::Value(1e-5f)},
  };
  for (auto& [k, v] : meta) {
    if (Status s = w.SetMetadata(k, v); !s.ok()) return Fail(s.message());
  }
  int64_t n_vocab = 0;
  for (const gguf::MetadataEntry& e : vocab->metadata()) {
    if (!e.key.starts_with("tokenizer.")) continue;
    if (Status s = w.SetMetadata(e.key, e.value); !s.ok()) return Fail(s.message());
  }
  if (trit::Expected<const gguf::Array*> tokens = vocab->GetArray("tokenizer.ggml.tokens"); tokens.ok()) {
    n_vocab = static_cast<int64_t>((*tokens)->size());
  } else {
    return Fail(tokens.status().message());
  }
  if (Status s = w.SetMetadata("tokenizer.chat_template", gguf::Value(tss.str())); !s.ok()) return Fail(s.message());

  // Tensors are produced at write time from their own seeded generator, so
  // a model of hundreds of MB never sits in memory at once.
  Status status;
  uint64_t seed = 1;
  auto add = [&](const std::string& name, int64_t n_cols, int64_t n_rows, float scale, float offset, bool matrix) {
    if (!status.ok()) return;
    const std::vector<int64_t> shape = n_rows == 0 ? std::vector<int64_t>{n_cols} : std::vector<int64_t>{n_cols, n_rows};
    const quant::TypeInfo& t = quant::GetType(matrix ? matrix_type : quant::GgmlType::kF32);
    const int64_t n = n_cols * std::max<int64_t>(n_rows, 1);
    const uint64_t tensor_seed = seed++;
    status = w.AddTensor(name, t.type, shape, [=](std::span<uint8_t> out) {
      std::mt19937_64 rng(tensor_seed);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      std::vector<float> v(static_cast<size_t>(n));
      for (float& x : v) x = offset + scale * normal(rng);
      t.quantize(v.data(), out.data(), n);
      return Status::Ok();
    });
  };
  const float ws = 1.0f / std::sqrt(static_cast<float>(n_embd));
  add("token_embd.weight", n_embd, n_vocab, 1.0f, 0.0f, true);
  add("output_norm.weight", n_embd, 0, 0.1f, 1.0f, false);
  add("output.weight", n_embd, n_vocab, ws, 0.0f, true);
  for (int64_t il = 0; il < n_layer; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    add(p + "attn_norm.weight", n_embd, 0, 0.1f, 1.0f, false);
    add(p + "attn_q.weight", n_embd, n_head * head_dim, ws, 0.0f, true);
    add(p + "attn_k.weight", n_embd, n_head_kv * head_dim, ws, 0.0f, true);
    add(p + "attn_v.weight", n_embd, n_head_kv * head_dim, ws, 0.0f, true);
    add(p + "attn_output.weight", n_head * head_dim, n_embd, ws, 0.0f, true);
    add(p + "ffn_norm.weight", n_embd, 0, 0.1f, 1.0f, false);
    add(p + "ffn_gate.weight", n_embd, n_ff, ws, 0.0f, true);
    add(p + "ffn_up.weight", n_embd, n_ff, ws, 0.0f, true);
    add(p + "ffn_down.weight", n_ff, n_embd, 1.0f / std::sqrt(static_cast<float>(n_ff)), 0.0f, true);
  }
  if (!status.ok()) return Fail(status.message());
  if (Status s = w.WriteFile(argv[1]); !s.ok()) return Fail(s.message());
  return 0;
}
