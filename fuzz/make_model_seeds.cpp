// Writes one tiny, loadable model per architecture trit runs, as seeds for
// model_load_fuzz: one layer, 32-wide embeddings, 4 query and 2 KV heads, a
// 64-token SentencePiece vocabulary and small f32 weights, about 50 KB each,
// so that the fuzzer mutates complete models at thousands of inputs a second
// (the bundled model is 1.1 MB). Each file carries the superset of the
// tensors the architectures bind (biases, q/k norms, post- and sub-norms):
// a loader takes what its architecture needs.
//
//   make_model_seeds OUT_DIR
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "formats/gguf/writer.h"

namespace {

using namespace trit;
using namespace trit::gguf;

constexpr int64_t kEmbd = 32, kHeads = 4, kHeadsKv = 2, kHeadDim = kEmbd / kHeads, kFf = 64, kVocab = 64;

Array Vocabulary() {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", "\xe2\x96\x81"};
  for (char c = 'a'; c <= 'z'; ++c) tokens.push_back(std::string(1, c));
  for (char c = 'a'; c <= 'z'; ++c) tokens.push_back("\xe2\x96\x81" + std::string(1, c));
  for (const char* piece : {"th", "he", "in", "er", "an", "\xe2\x96\x81the", "ing", "<0x0A>"}) tokens.push_back(piece);
  return Array::OfStrings(tokens);
}

Status WriteTinyModel(const std::string& arch, const std::string& path) {
  Writer w;
  const std::string p = arch + ".";
  const Array vocab = Vocabulary();
  std::vector<float> scores(static_cast<size_t>(kVocab));
  std::vector<int32_t> types(static_cast<size_t>(kVocab), 1);
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = -static_cast<float>(i);
  types[0] = 2;  // unknown
  types[1] = types[2] = 3;  // control
  const std::vector<std::pair<std::string, Value>> metadata = {
      {"general.architecture", Value(arch)},
      {"general.name", Value("tiny " + arch)},
      {p + "context_length", Value(uint32_t{64})},
      {p + "embedding_length", Value(static_cast<uint32_t>(kEmbd))},
      {p + "block_count", Value(uint32_t{1})},
      {p + "feed_forward_length", Value(static_cast<uint32_t>(kFf))},
      {p + "attention.head_count", Value(static_cast<uint32_t>(kHeads))},
      {p + "attention.head_count_kv", Value(static_cast<uint32_t>(kHeadsKv))},
      {p + "attention.key_length", Value(static_cast<uint32_t>(kHeadDim))},
      {p + "attention.layer_norm_rms_epsilon", Value(1e-6f)},
      {p + "attention.sliding_window", Value(uint32_t{4})},
      {p + "rope.freq_base", Value(10000.0f)},
      {"tokenizer.ggml.model", Value("llama")},
      {"tokenizer.ggml.tokens", Value(vocab)},
      {"tokenizer.ggml.scores", Value(Array::Of<float>(ValueType::kFloat32, scores))},
      {"tokenizer.ggml.token_type", Value(Array::Of<int32_t>(ValueType::kInt32, types))},
      {"tokenizer.ggml.bos_token_id", Value(uint32_t{1})},
      {"tokenizer.ggml.eos_token_id", Value(uint32_t{2})},
      {"tokenizer.ggml.unknown_token_id", Value(uint32_t{0})},
      {"tokenizer.chat_template", Value("{% for m in messages %}<s>{{ m['content'] }}</s>{% endfor %}")},
  };
  for (const auto& [key, value] : metadata) {
    if (Status s = w.SetMetadata(key, value); !s.ok()) return s;
  }

  std::mt19937 rng(static_cast<uint32_t>(arch.size()));
  std::normal_distribution<float> normal(0.0f, 0.2f);
  // f32 tensor of shape {cols, rows} (GGUF order: the row length first).
  auto add = [&](const std::string& name, int64_t cols, int64_t rows, float fill) -> Status {
    std::vector<float> v(static_cast<size_t>(cols * rows));
    for (float& x : v) x = fill != 0.0f ? fill : normal(rng);
    const std::vector<int64_t> shape = rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{cols, rows};
    return w.AddTensorData(name, quant::GgmlType::kF32, shape,
                           {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)});
  };
  const int64_t q = kHeads * kHeadDim, kv = kHeadsKv * kHeadDim;
  const std::vector<std::tuple<std::string, int64_t, int64_t, float>> tensors = {
      {"token_embd.weight", kEmbd, kVocab, 0.0f},
      {"output_norm.weight", kEmbd, 1, 1.0f},
      {"blk.0.attn_norm.weight", kEmbd, 1, 1.0f},
      {"blk.0.attn_q.weight", kEmbd, q, 0.0f},
      {"blk.0.attn_k.weight", kEmbd, kv, 0.0f},
      {"blk.0.attn_v.weight", kEmbd, kv, 0.0f},
      {"blk.0.attn_q.bias", q, 1, 0.0f},
      {"blk.0.attn_k.bias", kv, 1, 0.0f},
      {"blk.0.attn_v.bias", kv, 1, 0.0f},
      {"blk.0.attn_q_norm.weight", kHeadDim, 1, 1.0f},
      {"blk.0.attn_k_norm.weight", kHeadDim, 1, 1.0f},
      {"blk.0.attn_sub_norm.weight", q, 1, 1.0f},
      {"blk.0.attn_output.weight", q, kEmbd, 0.0f},
      {"blk.0.post_attention_norm.weight", kEmbd, 1, 1.0f},
      {"blk.0.ffn_norm.weight", kEmbd, 1, 1.0f},
      {"blk.0.ffn_gate.weight", kEmbd, kFf, 0.0f},
      {"blk.0.ffn_up.weight", kEmbd, kFf, 0.0f},
      {"blk.0.ffn_sub_norm.weight", kFf, 1, 1.0f},
      {"blk.0.ffn_down.weight", kFf, kEmbd, 0.0f},
      {"blk.0.post_ffw_norm.weight", kEmbd, 1, 1.0f},
  };
  for (const auto& [name, cols, rows, fill] : tensors) {
    if (Status s = add(name, cols, rows, fill); !s.ok()) return s;
  }
  return w.WriteFile(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  int status = 0;
  for (const char* arch : {"llama", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "bitnet"}) {
    const std::string path = (std::filesystem::path(argv[1]) / ("tiny-" + std::string(arch) + ".gguf")).string();
    if (Status s = WriteTinyModel(arch, path); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), s.message().c_str());
      status = 1;
    }
  }
  return status;
}
