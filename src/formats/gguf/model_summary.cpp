#include "formats/gguf/model_summary.h"

#include <map>

namespace trit::gguf {
namespace {

std::optional<uint64_t> OptionalUint(const gguf::File& file, const std::string& key) {
  if (file.Find(key) == nullptr) return std::nullopt;
  Expected<uint64_t> v = file.GetUint(key);
  if (!v.ok()) return std::nullopt;  // present but not a scalar integer (e.g. per-layer arrays)
  return *v;
}

// A per-layer array of non-negative integers (int32 or uint32, as gguf-py
// and llama.cpp write them); empty for anything else.
std::vector<uint64_t> PerLayerUints(const gguf::File& file, const std::string& key) {
  Expected<const gguf::Array*> a = file.GetArray(key);
  std::vector<uint64_t> out;
  if (!a.ok()) return out;
  const gguf::Array& arr = **a;
  for (size_t i = 0; i < arr.size(); ++i) {
    if (arr.element_type == gguf::ValueType::kUint32) {
      out.push_back(arr.At<uint32_t>(i));
    } else if (arr.element_type == gguf::ValueType::kInt32 && arr.At<int32_t>(i) >= 0) {
      out.push_back(static_cast<uint64_t>(arr.At<int32_t>(i)));
    } else {
      return {};
    }
  }
  return out;
}

}  // namespace

ModelSummary Summarize(const gguf::File& file) {
  ModelSummary s;
  if (Expected<std::string> arch = file.GetString("general.architecture"); arch.ok()) s.architecture = *arch;
  if (Expected<std::string> name = file.GetString("general.name"); name.ok()) s.name = *name;

  std::map<uint32_t, TypeUsage> by_type;
  for (const gguf::TensorInfo& t : file.tensors()) {
    TypeUsage& u = by_type[static_cast<uint32_t>(t.type->type)];
    u.type = std::string(t.type->name);
    ++u.tensors;
    u.bytes += t.n_bytes;
    u.elements += static_cast<uint64_t>(t.n_elements);
    s.parameters += static_cast<uint64_t>(t.n_elements);
    s.tensor_bytes += t.n_bytes;
  }
  for (auto& [id, usage] : by_type) s.types.push_back(usage);

  if (!s.architecture.empty()) {
    const std::string& a = s.architecture;
    s.context_length = OptionalUint(file, a + ".context_length");
    s.block_count = OptionalUint(file, a + ".block_count");
    s.embedding_length = OptionalUint(file, a + ".embedding_length");
    s.feed_forward_length = OptionalUint(file, a + ".feed_forward_length");
    s.head_count = OptionalUint(file, a + ".attention.head_count");
    s.head_count_kv = OptionalUint(file, a + ".attention.head_count_kv");
    s.expert_count = OptionalUint(file, a + ".expert_count");
    s.expert_used_count = OptionalUint(file, a + ".expert_used_count");
    s.expert_feed_forward_length = OptionalUint(file, a + ".expert_feed_forward_length");
    if (!s.feed_forward_length) s.feed_forward_per_layer = PerLayerUints(file, a + ".feed_forward_length");
    if (!s.head_count_kv) s.head_count_kv_per_layer = PerLayerUints(file, a + ".attention.head_count_kv");
  }
  if (Expected<std::string> m = file.GetString("tokenizer.ggml.model"); m.ok()) s.tokenizer_model = *m;
  if (Expected<const gguf::Array*> tokens = file.GetArray("tokenizer.ggml.tokens"); tokens.ok()) {
    s.vocab_size = (*tokens)->size();
  }
  s.has_chat_template = file.Find("tokenizer.chat_template") != nullptr;
  return s;
}

}  // namespace trit::gguf
