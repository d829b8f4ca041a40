// Everything `trit serve` holds for one model: the mapped file, its
// tokenizer, the bound weights and the prompt builder (chat template).
// LoadServedModel is the one place a served model is loaded, so an engine
// registry or a model-store name resolver can be put in front of it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "formats/gguf/reader.h"
#include "grammar/token_index.h"
#include "model/encoder.h"
#include "model/model.h"
#include "runtime/embedder.h"
#include "runtime/prompt_builder.h"
#include "server/tool_calls.h"
#include "tokenizer/tokenizer.h"

namespace trit::server {

struct ServedModel {
  std::string path;
  std::string id;  // the name clients use in "model" (the file name without .gguf, or the pack directory's)
  // Other names the model answers to (`trit serve --alias`): clients that
  // send a fixed model name of their own work unchanged.
  std::vector<std::string> aliases;
  std::unique_ptr<gguf::File> file;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  // The registry owns the engine (and any plugin it came from), so it is
  // declared before, and destroyed after, the model that engine loaded.
  std::unique_ptr<engines::Registry> registry;
  const engines::Engine* engine = nullptr;  // loaded `model`; makes the scheduler's session
  std::unique_ptr<model::Model> model;  // a text-generation model, else null
  std::unique_ptr<runtime::PromptBuilder> prompt_builder;  // with `model`
  // An embedding model (architecture bert) instead: no `model` or
  // `prompt_builder`; /v1/embeddings only.
  std::unique_ptr<model::Encoder> encoder;
  std::unique_ptr<runtime::Embedder> embedder;  // over `encoder` and `tokenizer`
  int64_t n_ctx_train = 0;  // the model's trained context length
  // How the chat template teaches the model to write tool calls.
  ToolCallFormat tool_format = ToolCallFormat::kJson;
  bool template_speaks_tools = false;  // else tools are spelled out in messages (SpellOutTools)

  bool embeds() const { return encoder != nullptr; }
  // Whether a request's "model" names this model: its id or an alias.
  bool Answers(std::string_view name) const;
  // The id, then the aliases.
  std::vector<std::string> names() const;

  // The vocabulary indexed for grammar masks, built on the first request
  // that has a grammar (most servers never need it); thread-safe.
  const grammar::TokenIndex& token_index() const;

 private:
  mutable std::once_flag token_index_once_;
  mutable std::unique_ptr<grammar::TokenIndex> token_index_;
};

// Opens `path` and loads what serving it needs, with the engine the registry
// chooses for generation, or for embeddings when the file's architecture is
// an embedding model's (pinned by `engine`, a name or alias, when not
// empty). Errors name the file and what is wrong with it (architecture,
// tensor, tokenizer, chat template); a pin that cannot be honoured is
// kInvalidArgument, its message starting with "--engine NAME:".
Expected<std::unique_ptr<ServedModel>> LoadServedModel(const std::string& path, const std::string& engine = "");

}  // namespace trit::server
