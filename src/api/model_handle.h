// What a trit_model* points at: the loaded model every front end shares
// (engines/loaded_model.h: the engine's model, the GGUF file's metadata, the
// tokenizer, the prompt builder and the context and thread defaults).
// Immutable after trit_model_load, so several threads may use one model.
#pragma once

#include <memory>

#include "api/errors.h"
#include "base/status.h"
#include "engines/loaded_model.h"
#include "trit/trit.h"

struct trit_model : trit::engines::LoadedModel {
  explicit trit_model(trit::engines::LoadedModel loaded) : LoadedModel(std::move(loaded)) {}

  const trit::model::HParams& hparams() const { return model->hparams(); }
};

namespace trit::api {

// Loads `options` (already read through ReadCStruct) into *out.
Status LoadModel(const trit_model_options& options, std::unique_ptr<trit_model>* out);

// Fails with "model is NULL" (and returns false) when `model` is NULL.
bool CheckModel(const trit_model* model, trit_status* status) noexcept;

}  // namespace trit::api
