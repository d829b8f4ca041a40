#include "engines/loaded_model.h"

#include <algorithm>
#include <thread>

#include "engines/model_format.h"
#include "engines/open_model.h"
#include "model/architecture.h"

namespace trit::engines {
namespace {

// The metadata and the tokenizer: the GGUF file itself, or a pack's (its
// tokenizer is in its GGUF file).
Status OpenMetadata(LoadedModel* m) {
  TRIT_ASSIGN_OR_RETURN(const std::string weights, WeightsFile(m->path));
  TRIT_ASSIGN_OR_RETURN(gguf::File file, gguf::File::Open(weights));
  m->file = std::make_unique<gguf::File>(std::move(file));
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*m->file);
  if (!tok.ok()) return tok.status().WithContext(m->path);
  m->tokenizer = std::move(tok).value();
  return Status::Ok();
}

// Whether the file's architecture is an embedding model's (an encoder).
Expected<bool> IsEmbeddingModel(const LoadedModel& m) {
  Expected<std::string> arch = m.file->GetString("general.architecture");
  if (!arch.ok()) return arch.status().WithContext(m.path);
  const model::Architecture* known = model::FindArchitecture(*arch);
  return known != nullptr && known->load_encoder != nullptr;
}

// The prompt builder: the chat template when asked for and usable, else
// plain text (with the reason in chat_template_error when one was refused).
Status BuildPrompts(ChatTemplateUse use, LoadedModel* m) {
  const bool raw = use == ChatTemplateUse::kSkip;
  Expected<runtime::PromptBuilder> builder = runtime::PromptBuilder::Create(*m->file, *m->tokenizer, raw);
  if (!builder.ok()) {
    m->chat_template_error = Status(ErrorCode::kUnsupported, builder.status().WithContext(m->path).message());
    builder = runtime::PromptBuilder::Create(*m->file, *m->tokenizer, /*raw=*/true);
    if (!builder.ok()) return builder.status().WithContext(m->path);
  }
  m->prompt_builder.emplace(std::move(builder).value());
  return Status::Ok();
}

}  // namespace

int DefaultThreadCount() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

Expected<LoadedModel> LoadedModel::Open(const std::string& path, const LoadOptions& options, bool* pin_rejected) {
  if (pin_rejected != nullptr) *pin_rejected = false;
  LoadedModel m;
  m.path = path;
  // Generation opens the engine first (its errors name the format and the
  // engine); choosing between generate and embed needs the architecture first.
  std::string_view capability = kCapabilityGenerate;
  if (options.purpose == LoadPurpose::kGenerateOrEmbed) {
    TRIT_RETURN_IF_ERROR(OpenMetadata(&m));
    TRIT_ASSIGN_OR_RETURN(const bool embeds, IsEmbeddingModel(m));
    if (embeds) capability = kCapabilityEmbed;
  }
  TRIT_ASSIGN_OR_RETURN(OpenedModel opened, OpenForCapability(path, capability, options.engine, pin_rejected));
  m.registry = std::move(opened.registry);
  m.engine = opened.engine;
  m.format = std::move(opened.format);
  m.model = std::move(opened.model);
  m.encoder = std::move(opened.encoder);
  if (m.file == nullptr) TRIT_RETURN_IF_ERROR(OpenMetadata(&m));

  if (m.encoder != nullptr) {
    m.n_ctx_train = m.encoder->hparams().n_ctx_train;
  } else {
    m.n_ctx_train = m.model->hparams().n_ctx_train;
    TRIT_RETURN_IF_ERROR(BuildPrompts(options.chat_template, &m));
  }
  m.n_threads = options.n_threads > 0 ? options.n_threads : DefaultThreadCount();
  m.n_ctx = options.n_ctx > 0 ? options.n_ctx : m.n_ctx_train;
  return m;
}

}  // namespace trit::engines
