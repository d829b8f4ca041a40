#include "server/served_model.h"

#include <filesystem>

#include "engines/default_registry.h"
#include "engines/model_format.h"

namespace trit::server {

Expected<std::unique_ptr<ServedModel>> LoadServedModel(const std::string& path, const std::string& engine) {
  auto served = std::make_unique<ServedModel>();
  served->path = path;
  std::string id = std::filesystem::path(path).filename().string();
  if (id.ends_with(".gguf")) id.resize(id.size() - 5);
  served->id = id;
  Expected<gguf::File> file = gguf::File::Open(path);
  if (!file.ok()) return file.status();
  served->file = std::make_unique<gguf::File>(std::move(file).value());
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*served->file);
  if (!tok.ok()) return tok.status().WithContext(path);
  served->tokenizer = std::move(tok).value();
  served->registry = engines::BuildRegistry(engines::DiscoveryFromEnvironment());
  Expected<std::string> format = engines::SniffModelFormat(path);
  if (!format.ok()) return format.status();
  Expected<const engines::Engine*> chosen =
      served->registry->Choose({std::string(engines::kCapabilityGenerate), *format, engine});
  if (!chosen.ok()) {
    if (!engine.empty()) return Error(ErrorCode::kInvalidArgument, "--engine {}: {}", engine, chosen.status().message());
    return chosen.status().WithContext(path);
  }
  served->engine = *chosen;
  Expected<std::unique_ptr<model::Model>> m = served->engine->LoadModel(path);
  if (!m.ok()) return m.status();
  served->model = std::move(m).value();
  served->n_ctx_train = served->model->hparams().n_ctx_train;
  Expected<runtime::PromptBuilder> builder =
      runtime::PromptBuilder::Create(*served->file, *served->tokenizer, /*raw=*/false);
  if (!builder.ok()) return builder.status().WithContext(path);
  served->prompt_builder = std::make_unique<runtime::PromptBuilder>(std::move(builder).value());
  return served;
}

}  // namespace trit::server
