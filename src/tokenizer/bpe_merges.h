// The merge table of a byte-level BPE vocabulary and the merge loop over one
// word, as llama.cpp's llm_tokenizer_bpe_session::tokenize.
//
// Symbols are strings, numbered: a token's text has the token's id; a string
// that a merge names but that is no token gets an id past the vocabulary.
// Merges are looked up by the pair of symbol ids (a hash of the pair), so
// the loop never builds or compares strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocab.h"

namespace trit::tokenizer {

class BpeMerges {
 public:
  // Ranks are the merges' positions in tokenizer.ggml.merges ("left right",
  // split at the first space after the first byte); a repeated pair keeps its
  // first rank, as in llama.cpp.
  explicit BpeMerges(const Vocab& vocab);

  // Appends the ids of one byte-encoded word (a piece of the pre-tokenizer
  // after AppendByteEncoded): start from its characters, repeatedly merge the
  // adjacent pair of lowest rank (leftmost first), then map each symbol to
  // its token; a symbol that is no token gives the tokens of its single
  // bytes that are tokens (llama.cpp's fallback), spelled as the byte itself
  // or, with `hex_bytes` (SentencePiece-style vocabularies), as "<0xXX>".
  // With `ignore_merges`, a word that is a token is that token.
  void EncodeWord(std::string_view word, bool ignore_merges, std::vector<TokenId>* out,
                  bool hex_bytes = false) const;

 private:
  struct Merge {
    int32_t rank;
    int32_t result;  // symbol id of left + right
  };
  static uint64_t Key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  // The symbol id of `text`, or -1 when no token and no merge names it.
  int32_t FindSymbol(std::string_view text) const;
  int32_t InternSymbol(const std::string& text);

  const Vocab& vocab_;
  std::vector<std::string> extra_texts_;                    // symbols past the vocabulary, by id - n_vocab
  std::unordered_map<std::string, int32_t> extra_symbols_;  // their ids
  std::unordered_map<uint64_t, Merge> merges_;              // by Key(left, right)
};

}  // namespace trit::tokenizer
