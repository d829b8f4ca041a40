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
  std::string model;                // tokenizer.ggml.model: "bert", "gpt2", "llama" (SentencePiece) or "gemma4"
  std::string pre;                  // tokenizer.ggml.pre; empty: not written (LlamaHfVocab)
  std::vector<std::string> tokens;  // (n_vocab) in id order, as written: WordPiece in llama.cpp's
                                    // "phantom space" form ("##ing" -> "ing", "play" -> "▁play", "[CLS]" kept)
  std::vector<int32_t> token_types;  // (n_vocab) gguf TokenType: 1 normal, 3 control, 4 user-defined
  std::vector<std::string> merges;   // gpt2 and LlamaHfVocab: "a b", a space inside a token written as U+0120
  HfSpecialIds special;
  std::vector<float> scores;         // llama and gemma4: (n_vocab) SentencePiece scores (LlamaHfVocab: -1000)
  std::optional<bool> add_bos, add_eos, add_sep;  // written only when derived
  std::optional<bool> add_space_prefix;           // llama only: written when set
  bool lowercase = false;  // WordPiece: the normalizer lowercases (BertNormalizer.lowercase / Lowercase)
};

// Parses tokenizer.json text and, when not empty, tokenizer_config.json text.
// Errors name the field, e.g. `model.vocab["x"]: id 5 is given twice`.
// Checked: every id 0..n-1 present exactly once (model.vocab and added_tokens
// together), strings where strings belong, merges whose two tokens and whose
// concatenation are in model.vocab, a pre-tokenizer trit can name (gpt2).
Expected<HfTokenizer> ParseHfTokenizer(std::string_view tokenizer_json, std::string_view tokenizer_config_json);

// A SentencePiece vocabulary as llama.cpp's _create_vocab_sentencepiece
// reads it: the pieces of tokenizer.model (bytes of its ModelProto) with
// their scores and types (a user-defined piece read as normal: llama.cpp
// asks only IsUnknown, IsControl, IsUnused, IsByte), padded to `n_vocab` with "[PAD<id>]" (score
// -10000, unused), added_tokens_decoder of tokenizer_config.json applied,
// and the special ids and add_* flags found in tokenizer.json (may be empty)
// and tokenizer_config.json as gguf-py's SpecialVocab finds them.
// add_space_prefix: tokenizer_config.json's add_prefix_space when a boolean.
// Errors name the field (a piece's index, the wire offset of a bad record).
Expected<HfTokenizer> ParseSentencePieceTokenizer(std::string_view model_proto, std::string_view tokenizer_json,
                                                  std::string_view tokenizer_config_json, size_t n_vocab);

// A SentencePiece-style BPE tokenizer.json (model BPE with byte_fallback, a
// Sequence decoder: Gemma 4's) as gguf-py's LlamaHfVocab lists it, with the
// merges gguf-py's SpecialVocab(load_merges=True) adds:
//   - model.vocab's ids first, typed byte (<0xNN>), control (a special token
//     of transformers 5's all_special_tokens) or normal; then the added
//     tokens past model.vocab, control when special in that sense, else
//     user-defined; every score -1000;
//   - all_special_tokens: tokenizer_config.json's *_token strings (the
//     named ones and model-specific ones such as image_token; GemmaTokenizer's
//     defaults <bos> <eos> <unk> <pad> <mask> where a named one is absent) and
//     extra_special_tokens (a list, or a dict's values). added_tokens'
//     "special" flag does not count, nor v4's additional_special_tokens.
// model is "llama" (LlamaHfVocab's), pre empty (not written); the
// architecture may rename the model (Gemma 4: "gemma4").
Expected<HfTokenizer> ParseLlamaHfVocab(std::string_view tokenizer_json, std::string_view tokenizer_config_json);

// Writes the tokenizer.ggml.* keys of `tok` to `writer`: model, pre, tokens,
// token_type, merges (gpt2), scores and add_space_prefix (llama), the special token ids that are set and the
// add_*_token flags that were derived. No scores: the converter writes none
// for these kinds. Refuses (kUnsupported) a WordPiece tokenizer that does not
// lowercase, since llama.cpp's and trit's WordPiece always lowercase.
Status WriteHfTokenizerMetadata(const HfTokenizer& tok, gguf::Writer& writer);

}  // namespace trit::tokenizer
