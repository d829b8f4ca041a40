// A vocabulary indexed for grammar masks: which tokens may come next in a
// Matcher's state, computed for the whole vocabulary at once.
//
// The tokens' bytes form a trie, laid out in depth-first order; a mask walks
// it from the matcher's state, advancing the parse by one byte per trie edge,
// so a byte the grammar refuses prunes every token that starts with that
// prefix at once. The walk memoizes the parse per (state, byte), so a state
// that recurs (inside a string, every character leads back to the same
// state) costs one table lookup per trie node; and a subtree whose bytes all
// lead a state back to itself is accepted whole, without visiting it. See
// README.md for the numbers.
//
// Thread safety: const methods run concurrently for different matchers (the
// walk's scratch is per thread).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/matcher.h"

namespace trit::grammar {

class TokenIndex {
 public:
  // token_bytes[id]: the bytes token id stands for ("" for control tokens);
  // end_tokens: the end-of-generation ids (ids outside the vocabulary are
  // ignored).
  TokenIndex(std::vector<std::string> token_bytes, std::vector<int32_t> end_tokens);

  int32_t n_vocab() const { return static_cast<int32_t>(token_bytes_.size()); }
  std::string_view token_bytes(int32_t id) const { return token_bytes_[static_cast<size_t>(id)]; }
  bool IsEnd(int32_t id) const;

  // Precondition: allowed.size() == n_vocab(). Sets allowed[id] = 1 for each
  // token the matcher may take next, 0 otherwise: a token is allowed when
  // Matcher::Accept would take all its bytes. End tokens are allowed exactly
  // when matcher.CanEnd(); tokens with empty bytes that are not end tokens
  // never are.
  void FillMask(const Matcher& matcher, std::span<uint8_t> allowed) const;

  // Whether one token is allowed, as FillMask would say (cheap: used to check
  // a sampled token before computing a whole mask). False for ids outside
  // the vocabulary.
  bool Allows(const Matcher& matcher, int32_t token) const;

  // Advances the matcher by the token's bytes. Precondition: Allows(*matcher,
  // token). End tokens leave the state unchanged.
  void Accept(Matcher* matcher, int32_t token) const;

  // Trie nodes (not counting the root), for benchmarks and tests.
  size_t n_nodes() const { return nodes_.size(); }

 private:
  // One trie node: the edge byte into it and where its subtree ends, in
  // depth-first order, so the children of node i are i + 1 and then each
  // previous child's subtree_end, up to i's own subtree_end.
  struct Node {
    uint32_t subtree_end;  // the index after this node's subtree
    uint32_t token_begin;  // the subtree's tokens: order_[token_begin, TokenEnd(i)), those
    uint32_t n_here;       //   whose bytes end at this node first (a vocabulary may repeat a piece)
    uint8_t byte;          // the edge byte into this node
    uint8_t flags;         // kValidUtf8 | kNonAsciiBelow | kAllValid
    uint64_t ascii_below[2];  // the ASCII bytes on edges below this node
  };
  // This node's bytes are whole UTF-8 characters and every token below is
  // valid UTF-8 (a character cut off at its end is allowed): from a character
  // boundary, the bytes below read as characters.
  static constexpr uint8_t kValidUtf8 = 1;
  static constexpr uint8_t kNonAsciiBelow = 2;  // some edge below carries a byte >= 0x80
  // Every token in this node's subtree, this node's own included, is valid
  // UTF-8 (its last character may be cut off).
  static constexpr uint8_t kAllValid = 4;

  uint32_t TokenEnd(size_t node) const {
    const uint32_t end = nodes_[node].subtree_end;
    return end < nodes_.size() ? nodes_[end].token_begin : static_cast<uint32_t>(order_.size());
  }

  std::vector<std::string> token_bytes_;  // (n_vocab)
  std::vector<uint8_t> is_end_;           // (n_vocab) 1: an end-of-generation token
  std::vector<int32_t> end_tokens_;       // the end tokens, deduplicated
  std::vector<Node> nodes_;               // the trie without its root, depth-first
  std::vector<int32_t> order_;            // ids of the tokens in the trie, in depth-first order of their bytes
};

}  // namespace trit::grammar
