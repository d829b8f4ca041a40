#include <fmt/format.h>

#include <array>

#include "model/architecture.h"

namespace trit::model {

std::span<const Architecture* const> Architectures() {
  static const std::array<const Architecture*, 13> kAll = {
      &LlamaArchitecture(),  &Qwen2Architecture(),  &Qwen3Architecture(),  &Qwen3MoeArchitecture(),
      &Qwen35Architecture(), &GemmaArchitecture(),  &Gemma2Architecture(), &Gemma3Architecture(),
      &Gemma4Architecture(), &GptOssArchitecture(), &BitnetArchitecture(), &BitnetB158Architecture(),
      &BertArchitecture()};
  return kAll;
}

const Architecture* FindArchitecture(std::string_view name) {
  for (const Architecture* a : Architectures()) {
    if (a->name == name) return a;
  }
  return nullptr;
}

namespace {

// The file at `path` and its registered architecture; errors name the path.
Expected<std::pair<gguf::File, const Architecture*>> OpenWithArchitecture(const std::string& path) {
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
  return std::pair<gguf::File, const Architecture*>(std::move(*file), arch);
}

}  // namespace

Expected<std::unique_ptr<Model>> LoadModel(const std::string& path, const LoadOptions& options) {
  Expected<std::pair<gguf::File, const Architecture*>> opened = OpenWithArchitecture(path);
  if (!opened.ok()) return opened.status();
  const Architecture* arch = opened->second;
  if (arch->load == nullptr) {
    return Error(ErrorCode::kUnsupported,
                 "{}: '{}' is an embedding model, it does not generate text: use `trit embed` or trit serve's "
                 "/v1/embeddings",
                 path, arch->name);
  }
  Expected<std::unique_ptr<Model>> model = arch->load(std::move(opened->first), options);
  if (!model.ok()) return model.status().WithContext(path);
  return model;
}

Expected<std::unique_ptr<Encoder>> LoadEncoder(const std::string& path, const LoadOptions& options) {
  Expected<std::pair<gguf::File, const Architecture*>> opened = OpenWithArchitecture(path);
  if (!opened.ok()) return opened.status();
  const Architecture* arch = opened->second;
  if (arch->load_encoder == nullptr) {
    return Error(ErrorCode::kUnsupported,
                 "{}: '{}' generates text; embeddings come from an embedding model (architecture bert)", path,
                 arch->name);
  }
  Expected<std::unique_ptr<Encoder>> encoder = arch->load_encoder(std::move(opened->first), options);
  if (!encoder.ok()) return encoder.status().WithContext(path);
  return encoder;
}

std::string_view PoolingName(Pooling pooling) {
  switch (pooling) {
    case Pooling::kMean: return "mean";
    case Pooling::kCls: return "cls";
    case Pooling::kLast: return "last";
  }
  return "?";
}

std::optional<Pooling> ParsePooling(std::string_view name) {
  for (Pooling p : {Pooling::kMean, Pooling::kCls, Pooling::kLast}) {
    if (PoolingName(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace trit::model
