#include "grammar/token_index.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "base/check.h"
#include "grammar/grammar.h"
#include "grammar/parse_stacks.h"

namespace trit::grammar {
namespace {

// Scratch above this is compacted during a walk (a hostile grammar could
// otherwise make every trie node a new state with many stacks).
constexpr size_t kWalkBudgetBytes = size_t{64} << 20;

// Whether `bytes` is UTF-8 whose last character may be cut off (but could
// still be completed).
bool ValidUtf8Prefix(std::string_view bytes) {
  PartialUtf8 p;
  for (char c : bytes) {
    if (Utf8Step(&p, static_cast<uint8_t>(c)) == Utf8Result::kInvalid) return false;
  }
  return true;
}

}  // namespace

TokenIndex::TokenIndex(std::vector<std::string> token_bytes, std::vector<int32_t> end_tokens)
    : token_bytes_(std::move(token_bytes)) {
  TRIT_CHECK(token_bytes_.size() < size_t{INT32_MAX});
  is_end_.assign(token_bytes_.size(), 0);
  for (int32_t id : end_tokens) {
    if (id < 0 || static_cast<size_t>(id) >= token_bytes_.size() || is_end_[static_cast<size_t>(id)]) continue;
    is_end_[static_cast<size_t>(id)] = 1;
    end_tokens_.push_back(id);
  }
  // The trie's tokens in byte order: a piece sorts before its extensions, so
  // a depth-first layout falls out of one pass over the sorted list.
  for (size_t id = 0; id < token_bytes_.size(); ++id) {
    if (!token_bytes_[id].empty() && !is_end_[id]) order_.push_back(static_cast<int32_t>(id));
  }
  std::sort(order_.begin(), order_.end(), [this](int32_t a, int32_t b) {
    const int order = token_bytes_[static_cast<size_t>(a)].compare(token_bytes_[static_cast<size_t>(b)]);
    return order != 0 ? order < 0 : a < b;
  });
  std::vector<uint32_t> path;        // nodes from the root down to the current one
  std::vector<uint8_t> prefix_ok;    // (path) the node's bytes are valid UTF-8 (a character may be unfinished)
  std::vector<PartialUtf8> decoder;  // (path) the UTF-8 decoder after the node's bytes
  std::string_view previous;
  std::vector<uint8_t> token_valid(order_.size());
  for (size_t k = 0; k < order_.size(); ++k) {
    const std::string_view bytes = token_bytes_[static_cast<size_t>(order_[k])];
    token_valid[k] = ValidUtf8Prefix(bytes) ? 1 : 0;
    size_t common = 0;
    while (common < previous.size() && common < bytes.size() && previous[common] == bytes[common]) ++common;
    while (path.size() > common) {
      nodes_[path.back()].subtree_end = static_cast<uint32_t>(nodes_.size());
      path.pop_back();
      prefix_ok.pop_back();
      decoder.pop_back();
    }
    for (size_t d = path.size(); d < bytes.size(); ++d) {
      PartialUtf8 p = decoder.empty() ? PartialUtf8{} : decoder.back();
      const bool was_ok = prefix_ok.empty() || prefix_ok.back();
      const Utf8Result r = Utf8Step(&p, static_cast<uint8_t>(bytes[d]));
      path.push_back(static_cast<uint32_t>(nodes_.size()));
      prefix_ok.push_back(was_ok && r != Utf8Result::kInvalid ? 1 : 0);
      decoder.push_back(r == Utf8Result::kInvalid ? PartialUtf8{} : p);
      nodes_.push_back(Node{.subtree_end = 0,
                            .token_begin = static_cast<uint32_t>(k),
                            .n_here = 0,
                            .byte = static_cast<uint8_t>(bytes[d]),
                            .flags = static_cast<uint8_t>(
                                prefix_ok.back() && r == Utf8Result::kComplete ? kValidUtf8 : 0),
                            .ascii_below = {0, 0}});
    }
    ++nodes_[path.back()].n_here;
    previous = bytes;
  }
  for (uint32_t node : path) nodes_[node].subtree_end = static_cast<uint32_t>(nodes_.size());
  // Summaries, children before parents.
  std::vector<uint8_t> all_valid(nodes_.size());  // every token in the subtree is valid UTF-8
  for (size_t i = nodes_.size(); i-- > 0;) {
    Node& node = nodes_[i];
    bool valid = true;
    for (uint32_t k = node.token_begin; valid && k < node.token_begin + node.n_here; ++k) valid = token_valid[k];
    for (size_t c = i + 1; c < node.subtree_end; c = nodes_[c].subtree_end) {
      const Node& child = nodes_[c];
      if (child.byte < 0x80) {
        node.ascii_below[child.byte >> 6] |= uint64_t{1} << (child.byte & 63);
      } else {
        node.flags |= kNonAsciiBelow;
      }
      node.ascii_below[0] |= child.ascii_below[0];
      node.ascii_below[1] |= child.ascii_below[1];
      node.flags |= child.flags & kNonAsciiBelow;
      valid = valid && all_valid[c];
    }
    all_valid[i] = valid ? 1 : 0;
    if (valid) node.flags |= kAllValid;
    // kValidUtf8 was set at creation when the node's own bytes are whole
    // characters; it stays only if the tokens below are valid too.
    if (!valid) node.flags &= static_cast<uint8_t>(~kValidUtf8);
  }
}

bool TokenIndex::IsEnd(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < is_end_.size() && is_end_[static_cast<size_t>(id)] != 0;
}

void TokenIndex::FillMask(const Matcher& matcher, std::span<uint8_t> allowed) const {
  TRIT_CHECK(allowed.size() == token_bytes_.size());
  std::fill(allowed.begin(), allowed.end(), uint8_t{0});  // not memset: an empty span's data() may be null
  if (matcher.CanEnd()) {
    for (int32_t id : end_tokens_) allowed[static_cast<size_t>(id)] = 1;
  }
  ParseStacks& stacks = ThreadScratch(matcher.grammar().get());
  const int32_t start = stacks.Import(matcher.stacks(), matcher.partial());
  auto mark = [&](uint32_t first, uint32_t last) {
    for (uint32_t k = first; k < last; ++k) allowed[static_cast<size_t>(order_[k])] = 1;
  };
  // Depth-first over the trie in layout order; `open` holds the ancestors of
  // the current node: where each one's subtree ends and the state after it.
  std::vector<std::pair<uint32_t, int32_t>> open = {{static_cast<uint32_t>(nodes_.size()), start}};
  size_t until_budget_check = 4096;
  for (size_t i = 0; i < nodes_.size();) {
    while (i >= open.back().first) open.pop_back();
    const Node& node = nodes_[i];
    const int32_t parent = open.back().second;
    // A subtree under a character's lead byte, from a state where every
    // non-ASCII character and every ASCII byte below leads back to the
    // state, is accepted whole without reading the character: inside a
    // string, the thousands of scripts' first characters in a vocabulary
    // then cost a check each instead of a parse step each.
    if (node.byte >= 0xC2 && (node.flags & kAllValid) && stacks.AtBoundary(parent) &&
        stacks.AsciiLoops(parent, node.ascii_below) && stacks.NonAsciiLoops(parent)) {
      mark(node.token_begin, TokenEnd(i));
      i = node.subtree_end;
      continue;
    }
    const int32_t state = stacks.Step(parent, node.byte);
    if (state < 0) {
      i = node.subtree_end;  // no token under this prefix
      continue;
    }
    mark(node.token_begin, node.token_begin + node.n_here);
    if (node.subtree_end == i + 1) {
      ++i;
      continue;
    }
    // A subtree whose every byte leads this state back to itself is accepted
    // whole: each of its tokens is a run of such characters.
    if ((node.flags & kValidUtf8) && stacks.AtBoundary(state) && stacks.AsciiLoops(state, node.ascii_below) &&
        (!(node.flags & kNonAsciiBelow) || stacks.NonAsciiLoops(state))) {
      mark(node.token_begin + node.n_here, TokenEnd(i));
      i = node.subtree_end;
      continue;
    }
    open.push_back({node.subtree_end, state});
    ++i;
    if (--until_budget_check == 0) {
      until_budget_check = 4096;
      if (stacks.bytes_used() > kWalkBudgetBytes) {
        std::vector<int32_t> live(open.size());
        for (size_t k = 0; k < open.size(); ++k) live[k] = open[k].second;
        stacks.Compact(live);
        for (size_t k = 0; k < open.size(); ++k) open[k].second = live[k];
      }
    }
  }
}

bool TokenIndex::Allows(const Matcher& matcher, int32_t token) const {
  if (token < 0 || token >= n_vocab()) return false;
  if (IsEnd(token)) return matcher.CanEnd();
  const std::string_view bytes = token_bytes(token);
  if (bytes.empty()) return false;
  ParseStacks& stacks = ThreadScratch(matcher.grammar().get());
  int32_t state = stacks.Import(matcher.stacks(), matcher.partial());
  for (char c : bytes) {
    state = stacks.StepOnce(state, static_cast<uint8_t>(c));
    if (state < 0) return false;
  }
  return true;
}

void TokenIndex::Accept(Matcher* matcher, int32_t token) const {
  TRIT_CHECK(token >= 0 && token < n_vocab());
  if (IsEnd(token)) return;
  const std::string_view bytes = token_bytes(token);
  TRIT_CHECK(!bytes.empty() && matcher->Accept(bytes));
}

}  // namespace trit::grammar
