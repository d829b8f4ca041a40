// Everything `trit serve` holds for one model: the loaded model every front
// end shares (engines/loaded_model.h: engine, weights, file, tokenizer,
// prompt builder) and what serving adds (names, embedder, tool-call format).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engines/loaded_model.h"
#include "grammar/token_index.h"
#include "runtime/embedder.h"
#include "server/tool_calls.h"

namespace trit::server {

struct ServedModel : engines::LoadedModel {
  std::string id;  // the name clients use in "model" (the file name without .gguf, or the pack directory's)
  // Other names the model answers to (`trit serve --alias`): clients that
  // send a fixed model name of their own work unchanged.
  std::vector<std::string> aliases;
  // With `encoder` (an embedding model: /v1/embeddings only), over it and
  // `tokenizer`.
  std::unique_ptr<runtime::Embedder> embedder;
  // How the chat template teaches the model to write tool calls.
  ToolCallFormat tool_format = ToolCallFormat::kJson;
  bool template_speaks_tools = false;  // else tools are spelled out in messages (SpellOutTools)

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

// Opens `path` (engines::LoadedModel::Open) with the engine the registry
// chooses for generation, or for embeddings when the file's architecture is
// an embedding model's (pinned by `engine`, a name or alias, when not
// empty). Errors name the file and what is wrong with it (architecture,
// tensor, tokenizer, a chat template trit cannot run); a pin that cannot be
// honoured is kInvalidArgument, its message starting with "--engine NAME:".
Expected<std::unique_ptr<ServedModel>> LoadServedModel(const std::string& path, const std::string& engine = "");

}  // namespace trit::server
