#include "server/served_model.h"

#include <algorithm>
#include <filesystem>

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
  engines::LoadOptions options;
  options.engine = engine;
  options.purpose = engines::LoadPurpose::kGenerateOrEmbed;
  TRIT_ASSIGN_OR_RETURN(engines::LoadedModel loaded, engines::LoadedModel::Open(path, options));
  if (!loaded.chat_template_error.ok()) return loaded.chat_template_error;  // a server has no --raw
  auto served = std::make_unique<ServedModel>();
  static_cast<engines::LoadedModel&>(*served) = std::move(loaded);
  std::filesystem::path name = std::filesystem::path(path);
  if (!name.has_filename()) name = name.parent_path();  // a pack directory given as "dir/"
  std::string id = name.filename().string();
  if (id.ends_with(".gguf")) id.resize(id.size() - 5);
  served->id = id;
  if (served->embeds()) {
    served->embedder = std::make_unique<runtime::Embedder>(*served->encoder, *served->tokenizer);
    return served;
  }
  if (served->file->Find("tokenizer.chat_template") != nullptr) {
    if (Expected<std::string> source = served->file->GetString("tokenizer.chat_template"); source.ok()) {
      served->tool_format = DetectToolCallFormat(*source);
      served->template_speaks_tools = TemplateSpeaksTools(*source);
    }
  }
  return served;
}

}  // namespace trit::server
