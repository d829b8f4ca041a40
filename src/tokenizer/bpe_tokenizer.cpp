// Byte-level BPE (tokenizer.ggml.model "gpt2"), as llama.cpp's
// llm_tokenizer_bpe: pre-tokenize (pretokenizer.h), spell each piece's bytes
// as GPT-2's printable characters (byte_unicode.h), merge (bpe_merges.h).
// Decoding maps token characters back to bytes; the pre type says whether
// the facade then applies llama.cpp's clean_spaces.
#include <string>
#include <vector>

#include "tokenizer/algorithms.h"
#include "tokenizer/bpe_merges.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/pretokenizer.h"

namespace trit::tokenizer {
namespace {

class BpeTokenizer final : public Tokenizer {
 public:
  BpeTokenizer(Vocab vocab, PreTokenizer pre)
      : Tokenizer(std::move(vocab)), pre_(std::move(pre)), merges_(vocab_) {
    // Pieces of normal tokens, decoded once (llama.cpp's cache_token_to_piece).
    pieces_.resize(static_cast<size_t>(vocab_.size()));
    for (TokenId id = 0; id < vocab_.size(); ++id) {
      if (vocab_.type(id) == TokenType::kNormal) AppendByteDecoded(vocab_.text(id), &pieces_[static_cast<size_t>(id)]);
    }
  }

  std::string TokenToPiece(TokenId id, bool render_special, bool lstrip) const override {
    if (!vocab_.Valid(id)) return {};
    // As llama.cpp's token_to_piece for BPE: control and unknown tokens print
    // their text only when asked, user-defined tokens their text as is,
    // normal tokens their bytes; byte, unused and undefined tokens nothing.
    std::string_view piece;
    switch (vocab_.type(id)) {
      case TokenType::kControl:
      case TokenType::kUnknown:
        if (render_special) piece = vocab_.text(id);
        break;
      case TokenType::kUserDefined: piece = vocab_.text(id); break;
      case TokenType::kNormal: piece = pieces_[static_cast<size_t>(id)]; break;
      case TokenType::kUndefined:
      case TokenType::kUnused:
      case TokenType::kByte: break;
    }
    if (lstrip && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    return std::string(piece);
  }

  // llama.cpp's clean_spaces, as the pre type sets it (the facade applies it).
  bool clean_spaces() const override { return pre_.clean_spaces(); }

 protected:
  void EncodeFragment(std::string_view text, bool /*after_special*/, std::vector<TokenId>* out) const override {
    std::vector<std::string_view> words;
    pre_.Split(text, &words);
    std::string encoded;
    for (std::string_view word : words) {
      encoded.clear();
      AppendByteEncoded(word, &encoded);
      merges_.EncodeWord(encoded, pre_.ignore_merges(), out);
    }
  }

 private:
  PreTokenizer pre_;
  BpeMerges merges_;
  std::vector<std::string> pieces_;  // by id; normal tokens only
};

}  // namespace

Expected<std::unique_ptr<Tokenizer>> MakeBpeTokenizer(Vocab vocab) {
  Expected<PreTokenizer> pre = PreTokenizer::ForName(vocab.pre());
  if (!pre.ok()) return pre.status();
  // llama.cpp adds BOS by default for these pre types when the file does not say.
  const std::string_view type = pre->type_name();
  vocab.SetDefaultAddBos(type == "llama3" || type == "tekken" || type == "chameleon");
  return std::unique_ptr<Tokenizer>(new BpeTokenizer(std::move(vocab), std::move(pre).value()));
}

}  // namespace trit::tokenizer
