#include "pack/model_matrices.h"

#include <charconv>

namespace trit::pack {

namespace {

// "blk.12.attn_q.weight" -> (12, "attn_q.weight").
std::optional<std::pair<int64_t, std::string>> SplitLayerName(const std::string& name) {
  if (!name.starts_with("blk.")) return std::nullopt;
  const size_t dot = name.find('.', 4);
  if (dot == std::string::npos || dot == 4 || dot + 1 == name.size()) return std::nullopt;
  int64_t layer = 0;
  const auto [ptr, ec] = std::from_chars(name.data() + 4, name.data() + dot, layer);
  if (ec != std::errc() || ptr != name.data() + dot) return std::nullopt;
  return std::make_pair(layer, name.substr(dot + 1));
}

}  // namespace

std::vector<ModelMatrix> ModelMatrices(const gguf::File& file) {
  std::vector<ModelMatrix> out;
  for (const gguf::TensorInfo& t : file.tensors()) {
    if (t.shape.size() != 2) continue;
    if (auto split = SplitLayerName(t.name)) {
      out.push_back({t.name, split->second, split->first, t.shape[0], t.shape[1]});
    }
  }
  const gguf::TensorInfo* head = file.FindTensor("output.weight");
  if (head == nullptr) head = file.FindTensor("token_embd.weight");  // tied embeddings
  if (head != nullptr && head->shape.size() == 2) {
    out.push_back({head->name, "lmhead", std::nullopt, head->shape[0], head->shape[1]});
  }
  return out;
}

}  // namespace trit::pack
