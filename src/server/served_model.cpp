#include "server/served_model.h"

#include <algorithm>
#include <filesystem>

#include "engines/model_format.h"
#include "engines/open_model.h"
#include "model/architecture.h"
#include "runtime/constrained_sampler.h"

namespace trit::server {

bool ServedModel::Answers(std::string_view name) const {
  return name == id || std::find(aliases.begin(), aliases.end(), name) != aliases.end();
}

std::vector<std::string> ServedModel::names() const {
  std::vector<std::string> out{id};
  out.insert(out.end(), aliases.begin(), aliases.end());
  return out;
}

const grammar::TokenIndex& ServedModel::token_index() const {
  std::call_once(token_index_once_, [this] { token_index_ = runtime::IndexVocabulary(*tokenizer); });
  return *token_index_;
}

Expected<std::unique_ptr<ServedModel>> LoadServedModel(const std::string& path, const std::string& engine) {
  auto served = std::make_unique<ServedModel>();
  served->path = path;
  std::filesystem::path name = std::filesystem::path(path);
  if (!name.has_filename()) name = name.parent_path();  // a pack directory given as "dir/"
  std::string id = name.filename().string();
  if (id.ends_with(".gguf")) id.resize(id.size() - 5);
  served->id = id;
  Expected<std::string> weights = engines::WeightsFile(path);  // a pack's tokenizer is in its GGUF file
  if (!weights.ok()) return weights.status();
  Expected<gguf::File> file = gguf::File::Open(*weights);
  if (!file.ok()) return file.status();
  served->file = std::make_unique<gguf::File>(std::move(file).value());
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*served->file);
  if (!tok.ok()) return tok.status().WithContext(path);
  served->tokenizer = std::move(tok).value();
  Expected<std::string> arch = served->file->GetString("general.architecture");
  if (!arch.ok()) return arch.status().WithContext(path);
  const model::Architecture* known = model::FindArchitecture(*arch);
  if (known != nullptr && known->load_encoder != nullptr) {
    Expected<engines::OpenedModel> opened = engines::OpenForCapability(path, engines::kCapabilityEmbed, engine);
    if (!opened.ok()) return opened.status();
    served->registry = std::move(opened->registry);
    served->engine = opened->engine;
    served->encoder = std::move(opened->encoder);
    served->n_ctx_train = served->encoder->hparams().n_ctx_train;
    served->embedder = std::make_unique<runtime::Embedder>(*served->encoder, *served->tokenizer);
    return served;
  }
  Expected<engines::OpenedModel> opened = engines::OpenForCapability(path, engines::kCapabilityGenerate, engine);
  if (!opened.ok()) return opened.status();
  served->registry = std::move(opened->registry);
  served->engine = opened->engine;
  served->model = std::move(opened->model);
  served->n_ctx_train = served->model->hparams().n_ctx_train;
  Expected<runtime::PromptBuilder> builder =
      runtime::PromptBuilder::Create(*served->file, *served->tokenizer, /*raw=*/false);
  if (!builder.ok()) return builder.status().WithContext(path);
  served->prompt_builder = std::make_unique<runtime::PromptBuilder>(std::move(builder).value());
  if (served->file->Find("tokenizer.chat_template") != nullptr) {
    if (Expected<std::string> source = served->file->GetString("tokenizer.chat_template"); source.ok()) {
      served->tool_format = DetectToolCallFormat(*source);
      served->template_speaks_tools = TemplateSpeaksTools(*source);
    }
  }
  return served;
}

}  // namespace trit::server
