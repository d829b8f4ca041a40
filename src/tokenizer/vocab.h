// A tokenizer vocabulary as GGUF metadata defines it (tokenizer.ggml.*):
// token strings, scores, types, merges, special ids and flags. Built from
// metadata alone; arrays of inconsistent length, ids out of range and unknown
// model types are refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"

namespace trit::tokenizer {

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

// tokenizer.ggml.token_type values (llama.cpp's llama_token_type).
enum class TokenType : uint8_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

// tokenizer.ggml.model: "llama" (SentencePiece), "gpt2" (byte-level BPE), "gemma4" (BPE over
// '▁'-escaped UTF-8, pre type gemma4), "bert" (WordPiece).
enum class ModelType { kSpm, kBpe, kWpm };

struct SpecialIds {
  TokenId bos = kNoToken;
  TokenId eos = kNoToken;
  TokenId eot = kNoToken;  // end of turn (chat models)
  TokenId eom = kNoToken;  // end of message
  TokenId unk = kNoToken;
  TokenId sep = kNoToken;
  TokenId pad = kNoToken;
  TokenId cls = kNoToken;
  TokenId mask = kNoToken;
};

// Move-only: the lookup index holds views into the token strings.
class Vocab {
 public:
  static Expected<Vocab> FromGguf(const gguf::File& file);

  Vocab() = default;
  Vocab(Vocab&&) = default;
  Vocab& operator=(Vocab&&) = default;
  Vocab(const Vocab&) = delete;
  Vocab& operator=(const Vocab&) = delete;

  ModelType model() const { return model_; }
  std::string_view model_name() const { return model_name_; }  // as in the file: "llama", "gpt2", "gemma4", "bert"
  const std::string& pre() const { return pre_; }                // tokenizer.ggml.pre; "default" when absent
  int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
  bool Valid(TokenId id) const { return id >= 0 && id < size(); }

  // Preconditions: Valid(id).
  const std::string& text(TokenId id) const { return tokens_[static_cast<size_t>(id)]; }
  float score(TokenId id) const { return scores_.empty() ? 0.0f : scores_[static_cast<size_t>(id)]; }
  TokenType type(TokenId id) const { return types_[static_cast<size_t>(id)]; }
  bool IsControl(TokenId id) const { return type(id) == TokenType::kControl; }
  bool IsByte(TokenId id) const { return type(id) == TokenType::kByte; }

  // The id whose text is exactly `text`; kNoToken when none.
  TokenId Find(std::string_view text) const;

  // tokenizer.ggml.merges in file order ("left right"); empty for non-BPE vocabularies.
  const std::vector<std::string>& merges() const { return merges_; }

  const SpecialIds& special() const { return special_; }
  bool add_bos() const { return add_bos_; }
  // Whether the file says add_bos_token (otherwise add_bos() is the model type's default).
  bool add_bos_in_file() const { return add_bos_in_file_; }
  // For tokenizers whose default depends on more than the model type (BPE
  // pre types): takes effect only when the file did not say.
  void SetDefaultAddBos(bool add_bos) {
    if (!add_bos_in_file_) add_bos_ = add_bos;
  }
  // BOS whatever the file says (llama.cpp's override for the gemma4 pre type).
  void ForceAddBos() { add_bos_ = true; }
  bool add_eos() const { return add_eos_; }
  bool add_sep() const { return add_sep_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  bool remove_extra_whitespaces() const { return remove_extra_whitespaces_; }

  // Control, user-defined and unknown tokens, longest text first: the
  // strings that special-token parsing looks for in text.
  const std::vector<TokenId>& special_tokens_by_length() const { return special_by_length_; }

  // End-of-generation tokens (eos, eot, eom and control tokens such as
  // <|im_end|> or <end_of_turn> when present).
  bool IsEndOfGeneration(TokenId id) const;
  const std::vector<TokenId>& end_of_generation() const { return end_of_generation_; }

 private:
  ModelType model_ = ModelType::kSpm;
  std::string model_name_;
  std::string pre_;
  std::vector<std::string> tokens_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  std::vector<std::string> merges_;
  std::unordered_map<std::string_view, TokenId> index_;  // views into tokens_ (stable: never resized after load)
  SpecialIds special_;
  std::vector<TokenId> end_of_generation_;
  bool add_bos_ = false;
  bool add_bos_in_file_ = false;
  bool add_eos_ = false;
  bool add_sep_ = false;
  bool add_space_prefix_ = false;
  bool remove_extra_whitespaces_ = false;
  std::vector<TokenId> special_by_length_;
};

}  // namespace trit::tokenizer
