// Writes an HfTokenizer as the tokenizer.ggml.* keys gguf-py's GGUFWriter
// and SpecialVocab.add_to_gguf produce (ids as uint32, flags as bool).
#include <array>
#include <utility>

#include "tokenizer/hf_tokenizer_json.h"

namespace trit::tokenizer {

Status WriteHfTokenizerMetadata(const HfTokenizer& tok, gguf::Writer& writer) {
  if (tok.model == "bert" && !tok.lowercase) {
    return Error(ErrorCode::kUnsupported,
                 "WordPiece tokenizer without a lowercasing normalizer: llama.cpp's and trit's WordPiece always "
                 "lowercase, so cased text would tokenize differently");
  }
  if (tok.model != "bert" && tok.model != "gpt2" && tok.model != "llama" && tok.model != "gemma4") {
    return Error(ErrorCode::kInvalidArgument, "tokenizer model '{}' is not one ParseHfTokenizer produces", tok.model);
  }
  if (tok.tokens.empty() || tok.token_types.size() != tok.tokens.size()) {
    return Error(ErrorCode::kInvalidArgument, "tokenizer: {} tokens and {} token types, expected as many, at least 1",
                 tok.tokens.size(), tok.token_types.size());
  }
  auto set = [&](const char* key, gguf::Value v) { return writer.SetMetadata(key, std::move(v)); };
  if (Status s = set("tokenizer.ggml.model", gguf::Value(tok.model)); !s.ok()) return s;
  if (!tok.pre.empty()) {
    if (Status s = set("tokenizer.ggml.pre", gguf::Value(tok.pre)); !s.ok()) return s;
  }
  if (Status s = set("tokenizer.ggml.tokens", gguf::Value(gguf::Array::OfStrings(tok.tokens))); !s.ok()) return s;
  if (Status s = set("tokenizer.ggml.token_type", gguf::Value(gguf::Array::Of(gguf::ValueType::kInt32, tok.token_types)));
      !s.ok()) {
    return s;
  }
  if (tok.model == "llama" || tok.model == "gemma4") {
    if (tok.scores.size() != tok.tokens.size()) {
      return Error(ErrorCode::kInvalidArgument, "tokenizer: {} tokens and {} scores, expected as many",
                   tok.tokens.size(), tok.scores.size());
    }
    if (Status s = set("tokenizer.ggml.scores", gguf::Value(gguf::Array::Of(gguf::ValueType::kFloat32, tok.scores)));
        !s.ok()) {
      return s;
    }
  }
  if (tok.model == "gpt2" || !tok.merges.empty()) {
    if (Status s = set("tokenizer.ggml.merges", gguf::Value(gguf::Array::OfStrings(tok.merges))); !s.ok()) return s;
  }
  const std::array<std::pair<const char*, const std::optional<int32_t>*>, 7> ids = {{
      {"tokenizer.ggml.bos_token_id", &tok.special.bos},
      {"tokenizer.ggml.eos_token_id", &tok.special.eos},
      {"tokenizer.ggml.unknown_token_id", &tok.special.unk},
      {"tokenizer.ggml.seperator_token_id", &tok.special.sep},  // sic: the key GGUF uses
      {"tokenizer.ggml.padding_token_id", &tok.special.pad},
      {"tokenizer.ggml.cls_token_id", &tok.special.cls},
      {"tokenizer.ggml.mask_token_id", &tok.special.mask},
  }};
  for (const auto& [key, id] : ids) {
    if (!id->has_value()) continue;
    if (**id < 0 || static_cast<size_t>(**id) >= tok.tokens.size()) {
      return Error(ErrorCode::kInvalidArgument, "{}: id {} is outside the vocabulary (0..{})", key, **id,
                   tok.tokens.size() - 1);
    }
    if (Status s = set(key, gguf::Value(static_cast<uint32_t>(**id))); !s.ok()) return s;
  }
  const std::array<std::pair<const char*, const std::optional<bool>*>, 4> flags = {{
      {"tokenizer.ggml.add_bos_token", &tok.add_bos},
      {"tokenizer.ggml.add_eos_token", &tok.add_eos},
      {"tokenizer.ggml.add_sep_token", &tok.add_sep},
      {"tokenizer.ggml.add_space_prefix", &tok.add_space_prefix},
  }};
  for (const auto& [key, flag] : flags) {
    if (!flag->has_value()) continue;
    if (Status s = set(key, gguf::Value(**flag)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace trit::tokenizer
