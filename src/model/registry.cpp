#include <fmt/format.h>

#include <array>

#include "model/architecture.h"

namespace trit::model {

std::span<const Architecture* const> Architectures() {
  static const std::array<const Architecture*, 7> kAll = {
      &LlamaArchitecture(),  &Qwen2Architecture(),  &Qwen3Architecture(), &GemmaArchitecture(),
      &Gemma2Architecture(), &Gemma3Architecture(), &BitnetArchitecture()};
  return kAll;
}

const Architecture* FindArchitecture(std::string_view name) {
  for (const Architecture* a : Architectures()) {
    if (a->name == name) return a;
  }
  return nullptr;
}

Expected<std::unique_ptr<Model>> LoadModel(const std::string& path, const LoadOptions& options) {
  Expected<gguf::File> file = gguf::File::Open(path);
  if (!file.ok()) return file.status();
  Expected<std::string> name = file->GetString("general.architecture");
  if (!name.ok()) return name.status().WithContext(path);
  const Architecture* arch = FindArchitecture(*name);
  if (arch == nullptr) {
    std::string known;
    for (const Architecture* a : Architectures()) known += fmt::format("{}{}", known.empty() ? "" : ", ", a->name);
    return Error(ErrorCode::kUnsupported, "{}: unknown architecture '{}' (known: {})", path, *name, known);
  }
  Expected<std::unique_ptr<Model>> model = arch->load(std::move(*file), options);
  if (!model.ok()) return model.status().WithContext(path);
  return model;
}

}  // namespace trit::model
