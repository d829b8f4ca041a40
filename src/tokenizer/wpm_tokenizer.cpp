// WordPiece tokenization ("bert" vocabularies), as llama.cpp's
// llm_tokenizer_wpm_session with BERT's uncased normalizer:
//   1. the text is decoded (invalid bytes become U+FFFD) and put in NFD;
//   2. White_Space ends a word; NUL, U+FFFD and control/format characters
//      are dropped; nonspacing marks (Mn, i.e. accents after NFD) are dropped;
//      the rest is lowercased;
//   3. punctuation (P*), ASCII symbols and CJK ideographs are words of their own;
//   4. each word, prefixed with '▁' (llama.cpp's converter writes word-initial
//      pieces as "▁piece" and continuation pieces "##piece" as "piece"), is
//      split greedily into the longest tokens from the left; a word with any
//      part that matches nothing becomes the unknown token as a whole.
//
// One deliberate difference from llama.cpp: llama.cpp drops every mark
// (\p{M}); BERT (Hugging Face's BertNormalizer, which produced the models'
// training data and the reference ids) drops only Mn, so spacing marks such
// as Devanagari vowel signs (Mc) stay.
#include <algorithm>

#include "tokenizer/algorithms.h"
#include "tokenizer/piece_table.h"
#include "tokenizer/unicode.h"

namespace trit::tokenizer {
namespace {

// CJK ideograph blocks, as BERT's _is_chinese_char (and llama.cpp, which keeps
// Hugging Face's 0x2B920 start of the Extension E range).
bool IsCjkIdeograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Steps 1-3: the words of `text`, each non-empty UTF-8.
std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words(1);
  const auto end_word = [&] {
    if (!words.back().empty()) words.emplace_back();
  };
  for (const char32_t cp : unicode::Nfd(unicode::DecodeUtf8(text))) {
    if (unicode::IsWhiteSpace(cp)) {
      end_word();
      continue;
    }
    if (cp == 0 || cp == unicode::kReplacementCharacter || unicode::IsControl(cp)) continue;
    if (unicode::GetCategory(cp) == unicode::Category::kMn) continue;
    const char32_t lower = unicode::ToLower(cp);
    if (unicode::IsPunctuation(cp) || (cp < 0x7F && unicode::IsSymbol(cp)) || IsCjkIdeograph(cp)) {
      end_word();
      unicode::AppendUtf8(lower, &words.back());
      words.emplace_back();
    } else {
      unicode::AppendUtf8(lower, &words.back());
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

class WpmTokenizer final : public Tokenizer {
 public:
  explicit WpmTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)), pieces_(vocab_) {
    for (TokenId id = 0; id < vocab_.size(); ++id) max_token_size_ = std::max(max_token_size_, vocab_.text(id).size());
  }

  std::string TokenToPiece(TokenId id, bool render_special, bool lstrip) const override {
    return pieces_.Piece(id, render_special, lstrip);
  }

  bool clean_spaces() const override { return true; }

 protected:
  void EncodeFragment(std::string_view text, bool /*after_special*/, std::vector<TokenId>* out) const override {
    for (const std::string& w : SplitWords(text)) {
      const std::string word = std::string(kEscapedSpace) + w;
      const size_t n_before = out->size();
      bool matched = true;
      for (size_t i = 0; i < word.size() && matched;) {
        matched = false;
        for (size_t j = std::min(word.size(), i + max_token_size_); j > i; --j) {
          const TokenId id = vocab_.Find(std::string_view(word).substr(i, j - i));
          if (id != kNoToken) {
            out->push_back(id);
            i = j;
            matched = true;
            break;
          }
        }
      }
      if (!matched) out->resize(n_before);
      if (out->size() == n_before && vocab_.special().unk != kNoToken) out->push_back(vocab_.special().unk);
    }
  }

 private:
  PieceTable pieces_;
  size_t max_token_size_ = 0;  // bytes of the longest token text
};

}  // namespace

Expected<std::unique_ptr<Tokenizer>> MakeWpmTokenizer(Vocab vocab) {
  return std::unique_ptr<Tokenizer>(new WpmTokenizer(std::move(vocab)));
}

}  // namespace trit::tokenizer
