// The model's metadata through the C API: hyper-parameters, special tokens,
// and GGUF metadata entries as text.
#include <fmt/format.h>

#include <type_traits>

#include "api/c_buffer.h"
#include "api/model_handle.h"

namespace trit::api {
namespace {

// A scalar value as text; an array is refused (nullopt-like: false).
bool ScalarText(const gguf::Value& value, std::string* out) {
  return std::visit(
      [&](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, gguf::Array>) {
          return false;
        } else if constexpr (std::is_same_v<T, std::string>) {
          *out = v;
        } else if constexpr (std::is_same_v<T, bool>) {
          *out = v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
          *out = fmt::format("{}", static_cast<int>(v));
        } else {
          *out = fmt::format("{}", v);  // integers in decimal; floats shortest round-trip
        }
        return true;
      },
      value.storage());
}

}  // namespace
}  // namespace trit::api

extern "C" {

const char* trit_model_path(const trit_model* model) { return model != nullptr ? model->path.c_str() : ""; }
const char* trit_model_engine(const trit_model* model) {
  return model != nullptr ? model->engine->info().name.c_str() : "";
}
const char* trit_model_architecture(const trit_model* model) {
  return model != nullptr ? model->hparams().architecture.c_str() : "";
}
int64_t trit_model_n_vocab(const trit_model* model) { return model != nullptr ? model->hparams().n_vocab : 0; }
int64_t trit_model_n_ctx_train(const trit_model* model) { return model != nullptr ? model->hparams().n_ctx_train : 0; }
int64_t trit_model_n_ctx(const trit_model* model) { return model != nullptr ? model->n_ctx : 0; }
int64_t trit_model_n_embd(const trit_model* model) { return model != nullptr ? model->hparams().n_embd : 0; }
int64_t trit_model_n_layer(const trit_model* model) { return model != nullptr ? model->hparams().n_layer : 0; }

int32_t trit_model_token_bos(const trit_model* model) {
  return model != nullptr ? model->tokenizer->vocab().special().bos : TRIT_NO_TOKEN;
}
int32_t trit_model_token_eos(const trit_model* model) {
  return model != nullptr ? model->tokenizer->vocab().special().eos : TRIT_NO_TOKEN;
}
int trit_model_token_is_end_of_generation(const trit_model* model, int32_t token) {
  if (model == nullptr || !model->tokenizer->vocab().Valid(token)) return 0;
  return model->tokenizer->vocab().IsEndOfGeneration(token) ? 1 : 0;
}
int trit_model_has_chat_template(const trit_model* model) {
  return model != nullptr && model->prompt_builder->chat() ? 1 : 0;
}

size_t trit_model_meta_count(const trit_model* model) { return model != nullptr ? model->file->metadata().size() : 0; }
const char* trit_model_meta_key(const trit_model* model, size_t i) {
  if (model == nullptr || i >= model->file->metadata().size()) return nullptr;
  return model->file->metadata()[i].key.c_str();
}

trit_status trit_model_meta_string(const trit_model* model, const char* key, char* out, size_t capacity,
                                   size_t* n_out) {
  return trit::api::Guarded("trit_model_meta_string", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (key == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "key is NULL");
    const trit::gguf::Value* value = model->file->Find(key);
    if (value == nullptr) return Fail(TRIT_STATUS_NOT_FOUND, fmt::format("{}: no metadata key '{}'", model->path, key));
    std::string text;
    if (!ScalarText(*value, &text)) {
      const trit::gguf::Array& a = *value->get_if<trit::gguf::Array>();
      return Fail(TRIT_STATUS_UNSUPPORTED, fmt::format("{}: metadata '{}' is an array of {} {} (only scalars are given as text)",
                                                       model->path, key, a.size(), trit::gguf::ValueTypeName(a.element_type)));
    }
    return WriteText(text, out, capacity, n_out);
  });
}

}  // extern "C"
