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
  }
  if (Expected<std::string> m = file.GetString("tokenizer.ggml.model"); m.ok()) s.tokenizer_model = *m;
  if (Expected<const gguf::Array*> tokens = file.GetArray("tokenizer.ggml.tokens"); tokens.ok()) {
    s.vocab_size = (*tokens)->size();
  }
  s.has_chat_template = file.Find("tokenizer.chat_template") != nullptr;
  return s;
}

}  // namespace trit::gguf
