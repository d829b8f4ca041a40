// SentencePiece-style tokenization ("llama" vocabularies), as llama.cpp's
// llm_tokenizer_spm_session:
//   1. spaces become U+2581 '▁'; a fragment at the start of the text or after
//      a special token gets one more in front when add_space_prefix is set;
//   2. the text is split into UTF-8 characters (symbols);
//   3. repeatedly, the adjacent pair whose concatenation is a token with the
//      highest score is merged (ties: the leftmost pair), using a priority
//      queue of candidate pairs, so the whole is O(n log n);
//   4. each final symbol is its token, or else its bytes as byte tokens
//      "<0xNN>" (byte fallback).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <queue>

#include "tokenizer/algorithms.h"
#include "tokenizer/piece_table.h"
#include "tokenizer/unicode.h"

namespace trit::tokenizer {
namespace {

// A run of the escaped text; symbols form a doubly linked list in text
// order. Index is uint32_t for any fragment under 4 GiB (the common case:
// half the memory traffic for the queue) and uint64_t beyond.
template <typename Index>
struct Symbol {
  static constexpr Index kNone = static_cast<Index>(-1);
  Index prev;   // kNone at the ends
  Index next;
  Index begin;
  Index size;  // bytes; 0 once merged into its left neighbour
};

// A candidate merge of symbol `left` with its right neighbour.
template <typename Index>
struct Bigram {
  float score;
  Index left;
  Index size;  // bytes of both symbols when queued: a mismatch later means stale
};

// The pair to merge first: highest score, then leftmost (llama.cpp's order).
struct BigramLess {
  template <typename B>
  bool operator()(const B& a, const B& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

// Steps 2-4 on an escaped fragment (see top).
template <typename Index>
void EncodeEscaped(std::string_view escaped, const Vocab& vocab, const std::array<TokenId, 256>& byte_tokens,
                   std::vector<TokenId>* out) {
  using Sym = Symbol<Index>;
  constexpr Index kNone = Sym::kNone;
  // One symbol per UTF-8 character; each byte that does not start a
  // well-formed character is a symbol of its own. (llama.cpp trusts the lead
  // byte's announced length instead, so an invalid lead byte can swallow the
  // first byte of a following '▁' and the text no longer round-trips; for
  // valid UTF-8 the two agree.)
  std::vector<Sym> symbols;
  symbols.reserve(escaped.size());
  for (size_t offset = 0; offset < escaped.size();) {
    size_t end = offset;
    unicode::DecodeUtf8(escaped, &end);
    const Index index = static_cast<Index>(symbols.size());
    symbols.push_back({index == 0 ? kNone : index - 1, end == escaped.size() ? kNone : index + 1,
                       static_cast<Index>(offset), static_cast<Index>(end - offset)});
    offset = end;
  }

  std::vector<Bigram<Index>> storage;
  storage.reserve(symbols.size());
  std::priority_queue<Bigram<Index>, std::vector<Bigram<Index>>, BigramLess> queue(BigramLess{}, std::move(storage));
  const auto try_add = [&](Index left) {
    if (left == kNone || symbols[left].next == kNone) return;
    const Sym& l = symbols[left];
    const std::string_view pair(escaped.data() + l.begin, l.size + symbols[l.next].size);
    const TokenId id = vocab.Find(pair);
    if (id == kNoToken) return;
    queue.push({vocab.score(id), left, static_cast<Index>(pair.size())});
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) try_add(static_cast<Index>(i));

  while (!queue.empty()) {
    const Bigram<Index> bigram = queue.top();
    queue.pop();
    Sym& left = symbols[bigram.left];
    // Stale: the left symbol was merged away, or either side grew since
    // this pair was queued (a symbol only grows, so the sizes tell).
    if (left.size == 0 || left.next == kNone) continue;
    Sym& right = symbols[left.next];
    if (left.size + right.size != bigram.size) continue;
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next != kNone) symbols[right.next].prev = bigram.left;
    try_add(left.prev);
    try_add(bigram.left);
  }

  // Every merged symbol is a token (pairs are queued only when they are),
  // so only single characters can be missing from the vocabulary: those go
  // out as byte tokens. (llama.cpp's rev_merge re-segmentation can only be
  // reached for merged symbols, so it never applies.)
  for (Index i = 0; i != kNone; i = symbols[i].next) {
    const Sym& sym = symbols[i];
    const std::string_view piece(escaped.data() + sym.begin, sym.size);
    const TokenId id = vocab.Find(piece);
    if (id != kNoToken) {
      out->push_back(id);
      continue;
    }
    for (char c : piece) {
      const TokenId byte = byte_tokens[static_cast<uint8_t>(c)];
      if (byte != kNoToken) out->push_back(byte);
    }
  }
}

class SpmTokenizer final : public Tokenizer {
 public:
  explicit SpmTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)), pieces_(vocab_) {
    for (int b = 0; b < 256; ++b) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "<0x%02X>", b);
      TokenId id = vocab_.Find(hex);
      // llama.cpp falls back to a token that is the byte itself; with neither,
      // it throws. trit writes the unknown token (or nothing when there is none).
      if (id == kNoToken) id = vocab_.Find(std::string(1, static_cast<char>(b)));
      if (id == kNoToken) id = vocab_.special().unk;
      byte_tokens_[static_cast<size_t>(b)] = id;
    }
  }

  std::string TokenToPiece(TokenId id, bool render_special, bool lstrip) const override {
    return pieces_.Piece(id, render_special, lstrip);
  }

 protected:
  void EncodeFragment(std::string_view text, bool after_special, std::vector<TokenId>* out) const override {
    std::string escaped;
    escaped.reserve(text.size() + 3);
    if (vocab_.add_space_prefix() && after_special) escaped += kEscapedSpace;
    for (char c : text) {
      if (c == ' ') {
        escaped += kEscapedSpace;
      } else {
        escaped.push_back(c);
      }
    }
    if (escaped.empty()) return;
    if (escaped.size() < UINT32_MAX) {
      EncodeEscaped<uint32_t>(escaped, vocab_, byte_tokens_, out);
    } else {
      EncodeEscaped<uint64_t>(escaped, vocab_, byte_tokens_, out);
    }
  }

 private:
  PieceTable pieces_;
  std::array<TokenId, 256> byte_tokens_{};
};

}  // namespace

Expected<std::unique_ptr<Tokenizer>> MakeSpmTokenizer(Vocab vocab) {
  return std::unique_ptr<Tokenizer>(new SpmTokenizer(std::move(vocab)));
}

}  // namespace trit::tokenizer
