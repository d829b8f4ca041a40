// Hugging Face `tokenizer.json` (+ `tokenizer_config.json`) read into the
// tokenizer metadata that llama.cpp's convert_hf_to_gguf.py writes, for
// `trit convert`: the same `tokenizer.ggml.*` keys, so that trit's tokenizer
// (vocab.cpp) and llama.cpp both load the result.
//
// Kinds read: WordPiece (-> "bert") and byte-level BPE (-> "gpt2").
// SentencePiece-style BPE (byte_fallback), Unigram and WordLevel are refused
// with kUnsupported naming the model type. docs/TOKENIZERS.md ("Hugging Face
// tokenizer.json") says what is read, written and refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "formats/gguf/writer.h"

namespace trit::tokenizer {

// Special token ids as gguf-py's SpecialVocab finds them (by content among
// `added_tokens`, from tokenizer_config.json's *_token fields); nullopt = not set.
struct HfSpecialIds {
  std::optional<int32_t> bos, eos, unk, sep, pad, cls, mask;
};

struct HfTokenizer {
  std::string model;                // tokenizer.ggml.model: "bert" or "gpt2"
  std::string pre;                  // tokenizer.ggml.pre
  std::vector<std::string> tokens;  // (n_vocab) in id order, as written: WordPiece in llama.cpp's
                                    // "phantom space" form ("##ing" -> "ing", "play" -> "▁play", "[CLS]" kept)
  std::vector<int32_t> token_types;  // (n_vocab) gguf TokenType: 1 normal, 3 control, 4 user-defined
  std::vector<std::string> merges;   // gpt2 only: "a b", a space inside a token written as U+0120
  HfSpecialIds special;
  std::optional<bool> add_bos, add_eos, add_sep;  // written only when derived
  bool lowercase = false;  // WordPiece: the normalizer lowercases (BertNormalizer.lowercase / Lowercase)
};

// Parses tokenizer.json text and, when not empty, tokenizer_config.json text.
// Errors name the field, e.g. `model.vocab["x"]: id 5 is given twice`.
// Checked: every id 0..n-1 present exactly once (model.vocab and added_tokens
// together), strings where strings belong, merges whose two tokens and whose
// concatenation are in model.vocab, a pre-tokenizer trit can name (gpt2).
Expected<HfTokenizer> ParseHfTokenizer(std::string_view tokenizer_json, std::string_view tokenizer_config_json);

// Writes the tokenizer.ggml.* keys of `tok` to `writer`: model, pre, tokens,
// token_type, merges (gpt2), the special token ids that are set and the
// add_*_token flags that were derived. No scores: the converter writes none
// for these kinds. Refuses (kUnsupported) a WordPiece tokenizer that does not
// lowercase, since llama.cpp's and trit's WordPiece always lowercase.
Status WriteHfTokenizerMetadata(const HfTokenizer& tok, gguf::Writer& writer);

}  // namespace trit::tokenizer
