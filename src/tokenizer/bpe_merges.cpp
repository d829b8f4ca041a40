#include "tokenizer/bpe_merges.h"

#include <algorithm>
#include <queue>

namespace trit::tokenizer {

BpeMerges::BpeMerges(const Vocab& vocab) : vocab_(vocab) {
  const std::vector<std::string>& merges = vocab.merges();
  merges_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string& m = merges[i];
    // As llama.cpp: split at the first space after the first byte; a merge
    // without one names the empty pair, which no two symbols form.
    const size_t space = m.find(' ', 1);
    if (space == std::string::npos) continue;
    const std::string left = m.substr(0, space);
    const std::string right = m.substr(space + 1);
    if (left.empty() || right.empty()) continue;  // an empty symbol never exists
    const int32_t l = InternSymbol(left);
    const int32_t r = InternSymbol(right);
    const int32_t result = InternSymbol(left + right);
    merges_.emplace(Key(l, r), Merge{static_cast<int32_t>(i), result});
  }
}

int32_t BpeMerges::FindSymbol(std::string_view text) const {
  const TokenId id = vocab_.Find(text);
  if (id != kNoToken) return id;
  if (extra_symbols_.empty()) return -1;
  auto it = extra_symbols_.find(std::string(text));
  return it == extra_symbols_.end() ? -1 : it->second;
}

int32_t BpeMerges::InternSymbol(const std::string& text) {
  const int32_t found = FindSymbol(text);
  if (found >= 0) return found;
  const int32_t id = vocab_.size() + static_cast<int32_t>(extra_texts_.size());
  extra_texts_.push_back(text);
  extra_symbols_.emplace(text, id);
  return id;
}

namespace {

struct Symbol {
  int32_t id;     // symbol id; -1: no token and in no merge
  uint32_t begin;  // byte range in the word
  uint32_t size;  // 0 once merged into its left neighbour
  int32_t prev;
  int32_t next;
};

struct Candidate {
  int32_t rank;
  int32_t left;  // indices of the symbols
  int32_t right;
  int32_t left_id;  // their ids when queued
  int32_t right_id;
  int32_t result;
};

// Lowest rank first; among equal ranks the leftmost (llama.cpp's llm_bigram_bpe::comparator).
struct LaterCandidate {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

size_t Utf8Length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

void BpeMerges::EncodeWord(std::string_view word, bool ignore_merges, std::vector<TokenId>* out,
                           bool hex_bytes) const {
  if (word.empty()) return;
  if (ignore_merges) {
    const TokenId whole = vocab_.Find(word);
    if (whole != kNoToken) {
      out->push_back(whole);
      return;
    }
  }
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  for (size_t offset = 0; offset < word.size();) {
    const size_t n = std::min(word.size() - offset, Utf8Length(static_cast<uint8_t>(word[offset])));
    const int32_t index = static_cast<int32_t>(symbols.size());
    symbols.push_back({FindSymbol(word.substr(offset, n)), static_cast<uint32_t>(offset), static_cast<uint32_t>(n),
                       index - 1, offset + n == word.size() ? -1 : index + 1});
    offset += n;
  }

  std::priority_queue<Candidate, std::vector<Candidate>, LaterCandidate> queue;
  auto consider = [&](int32_t left, int32_t right) {
    if (left < 0 || right < 0) return;
    const int32_t l = symbols[left].id;
    const int32_t r = symbols[right].id;
    if (l < 0 || r < 0) return;
    auto it = merges_.find(Key(l, r));
    if (it == merges_.end()) return;
    queue.push({it->second.rank, left, right, l, r, it->second.result});
  };
  for (int32_t i = 1; i < static_cast<int32_t>(symbols.size()); ++i) consider(i - 1, i);

  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& left = symbols[c.left];
    Symbol& right = symbols[c.right];
    if (left.size == 0 || right.size == 0) continue;
    // Stale when either side changed since the pair was queued (an id names
    // one text, so this is llama.cpp's comparison of the texts).
    if (left.id != c.left_id || right.id != c.right_id) continue;
    left.id = c.result;
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    consider(left.prev, c.left);
    consider(c.left, left.next);
  }

  for (const Symbol& s : symbols) {
    if (s.size == 0) continue;
    if (s.id >= 0 && s.id < vocab_.size()) {
      out->push_back(s.id);
      continue;
    }
    for (size_t k = s.begin; k < s.begin + s.size; ++k) {
      TokenId byte_token = kNoToken;
      if (hex_bytes) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        const uint8_t b = static_cast<uint8_t>(word[k]);
        const char name[] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
        byte_token = vocab_.Find(std::string_view(name, sizeof(name)));
      } else {
        byte_token = vocab_.Find(word.substr(k, 1));
      }
      if (byte_token != kNoToken) out->push_back(byte_token);
    }
  }
}

}  // namespace trit::tokenizer
