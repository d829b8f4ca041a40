// Byte-level BPE pre-tokenization: the regular expressions that cut text into
// words before merges, chosen by tokenizer.ggml.pre (llama.cpp's
// LLAMA_VOCAB_PRE_TYPE_* and the pre-tokenizer of the model's Hugging Face
// tokenizer.json), with the decoding flags that go with each type.
//
// The regexes are run with PCRE2 (Unicode categories, JIT) and never leak out
// of pretokenizer.cpp. Each regex of a type splits every piece the previous
// one produced; within a piece, each match becomes a piece and so does the
// text between matches (Hugging Face's Split with "Isolated" behaviour, and
// llama.cpp's unicode_regex_split). A regex sees only its piece: lookaheads
// and `$` stop at the piece's end.
//
// Any bytes are accepted. A byte that is not part of valid UTF-8 is never
// matched by a pattern item (PCRE2_MATCH_INVALID_UTF), so it ends up in the
// text between matches and stays in the output unchanged; byte-level BPE then
// encodes it losslessly. (llama.cpp instead replaces each such byte by
// U+FFFD before splitting; Hugging Face accepts only valid UTF-8.)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::tokenizer {

class PreTokenizer {
 public:
  // The pre-tokenizer for a tokenizer.ggml.pre value; an unknown name is
  // refused by name, listing the supported ones.
  static Expected<PreTokenizer> ForName(std::string_view pre);

  // Every accepted tokenizer.ggml.pre value, sorted.
  static std::vector<std::string_view> SupportedNames();

  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;
  ~PreTokenizer();

  // Appends the pieces of `text` to `*pieces`, in order: views into `text`
  // that are non-empty and together cover it exactly. Thread-safe.
  void Split(std::string_view text, std::vector<std::string_view>* pieces) const;

  // llama.cpp's pre type this name selects ("gpt2", "llama3", ...).
  std::string_view type_name() const;
  // Decode removes the spaces llama.cpp's clean_spaces removes (" ." -> "." ...).
  bool clean_spaces() const;
  // A word that is itself a token is emitted whole, without merges (llama3, tekken).
  bool ignore_merges() const;
  // SentencePiece-style BPE (gemma4): spaces become U+2581 before the split,
  // words are merged as raw UTF-8 (no byte-level spelling), bytes that are no
  // token fall back to "<0xXX>" tokens, and a word of newlines that is a
  // token is that token.
  bool spm_style() const;

 private:
  struct Impl;
  explicit PreTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trit::tokenizer
