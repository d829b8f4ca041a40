// A model opened for a front end: the one loader that `trit run`, `trit
// serve`'s model pool and the C API (and through it Python) wrap. Opening a
// path gives the engine the registry chose (or the pin named), the model it
// loaded, the GGUF file's metadata, the tokenizer, the prompt builder (chat
// template, BOS rule, special tokens) and the context and thread defaults.
// A new architecture or front-end feature that needs something at load time
// adds it here, once.
//
// The path is already resolved: turning a MODEL argument (a store name, a
// URL) into a path is the front end's (store/resolve.h), since the CLI may
// pull a URL where the C API refuses to start a download.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "formats/gguf/reader.h"
#include "model/encoder.h"
#include "model/model.h"
#include "runtime/prompt_builder.h"
#include "tokenizer/tokenizer.h"

namespace trit::engines {

// What the model is opened for.
enum class LoadPurpose {
  kGenerate,         // a text-generation model; an embedding model is refused by the registry
  kGenerateOrEmbed,  // an embedding model (its architecture has an encoder) is opened for embed
};

// Whether prompts go through the model's chat template.
enum class ChatTemplateUse {
  kUse,   // when the file has one (a template trit cannot run: chat_template_error)
  kSkip,  // plain text after BOS (`trit run --raw`)
};

struct LoadOptions {
  std::string engine;  // a name or alias to pin (`--engine`); empty: the registry chooses
  LoadPurpose purpose = LoadPurpose::kGenerate;
  ChatTemplateUse chat_template = ChatTemplateUse::kUse;
  int n_threads = 0;  // threads a session uses; 0: one per hardware thread
  int64_t n_ctx = 0;  // context a session holds; 0: the model's trained length
};

// One per hardware thread, at least one: the default for every `n_threads = 0`.
int DefaultThreadCount();

// Members are destroyed bottom up: the prompt builder before the tokenizer it
// points at, the model before the registry that holds its engine's plugin.
struct LoadedModel {
  std::unique_ptr<Registry> registry;
  const Engine* engine = nullptr;  // loaded `model` (or `encoder`); makes sessions
  std::string path;                // as opened (a GGUF file or a pack directory)
  std::string format;              // as sniffed from the path ("gguf", "pack")
  std::unique_ptr<gguf::File> file;  // metadata (a pack's GGUF file); the weights are the engine's mapping
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::unique_ptr<model::Model> model;      // a text-generation model, else null
  std::unique_ptr<model::Encoder> encoder;  // an embedding model (LoadPurpose::kGenerateOrEmbed), else null
  // With `model`: chat() when the file's template is used, else plain text
  // after BOS (no template, ChatTemplateUse::kSkip, or one trit cannot run).
  std::optional<runtime::PromptBuilder> prompt_builder;
  // Ok, or why the file's chat template cannot be used (kUnsupported,
  // naming the path and the construct): `prompt_builder` is then plain. The
  // front end decides whether that fails the load (CLI, server) or only
  // chat rendering (the C API).
  Status chat_template_error;
  int n_threads = 1;        // LoadOptions::n_threads, 0 resolved
  int64_t n_ctx = 0;        // LoadOptions::n_ctx, 0 resolved to n_ctx_train
  int64_t n_ctx_train = 0;  // the model's trained context length

  bool embeds() const { return encoder != nullptr; }

  // Opens `path` as `options` say. Errors name the path and what is wrong
  // (format, architecture, tensor, tokenizer); a pin that cannot be honoured
  // is kInvalidArgument, its message starting with "--engine NAME:", and
  // sets *pin_rejected when given (engines::OpenForCapability).
  static Expected<LoadedModel> Open(const std::string& path, const LoadOptions& options = {},
                                    bool* pin_rejected = nullptr);
};

}  // namespace trit::engines
