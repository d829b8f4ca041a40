// Byte-level BPE (tokenizer.ggml.model "gpt2"), as llama.cpp's
// llm_tokenizer_bpe: pre-tokenize (pretokenizer.h), spell each piece's bytes
// as GPT-2's printable characters (byte_unicode.h), merge (bpe_merges.h).
// Decoding maps token characters back to bytes; the pre type says whether
// the facade then applies llama.cpp's clean_spaces.
//
// SentencePiece-style BPE (model "gemma4", the pre type's spm_style): spaces
// become U+2581 before the split, pieces merge as raw UTF-8, bytes fall back
// to "<0xXX>" tokens, and decoding turns U+2581 back into spaces and byte
// tokens into their byte.
#include <string>
#include <string_view>
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
      std::string& piece = pieces_[static_cast<size_t>(id)];
      const TokenType type = vocab_.type(id);
      if (type == TokenType::kNormal && pre_.spm_style()) {
        piece = UnescapeSpaces(vocab_.text(id));
      } else if (type == TokenType::kNormal) {
        AppendByteDecoded(vocab_.text(id), &piece);
      } else if (type == TokenType::kByte && pre_.spm_style()) {
        piece = ByteOfToken(vocab_.text(id));
      }
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
      case TokenType::kNormal:
      case TokenType::kByte: piece = pieces_[static_cast<size_t>(id)]; break;  // a byte's only when spm_style
      case TokenType::kUndefined:
      case TokenType::kUnused: break;
    }
    if (lstrip && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    return std::string(piece);
  }

  // llama.cpp's clean_spaces, as the pre type sets it (the facade applies it).
  bool clean_spaces() const override { return pre_.clean_spaces(); }

 protected:
  void EncodeFragment(std::string_view text, bool /*after_special*/, std::vector<TokenId>* out) const override {
    if (pre_.spm_style()) return EncodeSpmStyle(text, out);
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
  static constexpr std::string_view kSpaceMark = "\xe2\x96\x81";  // U+2581

  static std::string UnescapeSpaces(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
      if (text.substr(i, kSpaceMark.size()) == kSpaceMark) {
        out += ' ';
        i += kSpaceMark.size();
      } else {
        out += text[i++];
      }
    }
    return out;
  }

  // "<0xAB>" -> the byte 0xAB; empty for any other text.
  static std::string ByteOfToken(std::string_view text) {
    if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>') return {};
    auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    const int hi = nibble(text[3]), lo = nibble(text[4]);
    if (hi < 0 || lo < 0) return {};
    return std::string(1, static_cast<char>(hi * 16 + lo));
  }

  // llama.cpp's llm_tokenizer_bpe_session::tokenize for its gemma4 pre type.
  void EncodeSpmStyle(std::string_view text, std::vector<TokenId>* out) const {
    std::string escaped;
    escaped.reserve(text.size());
    for (char c : text) {
      if (c == ' ') {
        escaped += kSpaceMark;
      } else {
        escaped += c;
      }
    }
    std::vector<std::string_view> words;
    pre_.Split(escaped, &words);
    for (std::string_view word : words) {
      if (word.find_first_not_of('\n') == std::string_view::npos) {
        const TokenId whole = vocab_.Find(word);
        if (whole != kNoToken) {
          out->push_back(whole);
          continue;
        }
      }
      merges_.EncodeWord(word, pre_.ignore_merges(), out, /*hex_bytes=*/true);
    }
  }

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
  if (type == "gemma4") vocab.ForceAddBos();  // llama.cpp overrides a file's false for this pre type
  return std::unique_ptr<Tokenizer>(new BpeTokenizer(std::move(vocab), std::move(pre).value()));
}

}  // namespace trit::tokenizer
