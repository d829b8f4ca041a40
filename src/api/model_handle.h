// What a trit_model* points at: the model the registry's engine loaded, the
// GGUF file's metadata, the tokenizer and the compiled chat template.
// Immutable after trit_model_load, so several threads may use one model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/errors.h"
#include "base/status.h"
#include "chat/chat_template.h"
#include "engines/open_model.h"
#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"
#include "trit/trit.h"

struct trit_model {
  // Destroyed last (members go bottom up): the tokenizer and file first,
  // then the model before the registry that holds its engine's plugin.
  trit::engines::OpenedModel opened;
  std::string path;
  std::unique_ptr<trit::gguf::File> file;  // metadata (the weights are the engine's mapping)
  std::unique_ptr<trit::tokenizer::Tokenizer> tokenizer;
  std::optional<trit::chat::ChatTemplate> chat_template;
  trit::Status chat_template_error;  // why chat_template is empty
  int n_threads = 1;                 // per generate / verify call
  int64_t n_ctx = 0;                 // per generate / verify call

  const trit::model::HParams& hparams() const { return opened.model->hparams(); }
};

namespace trit::api {

// Loads `options` (already read through ReadCStruct) into *out.
Status LoadModel(const trit_model_options& options, std::unique_ptr<trit_model>* out);

// Fails with "model is NULL" (and returns false) when `model` is NULL.
bool CheckModel(const trit_model* model, trit_status* status) noexcept;

}  // namespace trit::api
