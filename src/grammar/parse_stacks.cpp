#include "grammar/parse_stacks.h"

#include <algorithm>
#include <bit>

#include "base/check.h"

namespace trit::grammar {
namespace {

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

Utf8Result Utf8Step(PartialUtf8* partial, uint8_t byte) {
  PartialUtf8& p = *partial;
  if (p.n_pending == 0) {
    if (byte < 0x80) {
      p = {byte, 0, byte, byte};
      return Utf8Result::kComplete;
    }
    // Leads C0/C1 (always overlong) and F5-F7 (past U+10FFFF) are rejected
    // by the bounds below.
    if (byte >= 0xC0 && byte <= 0xDF) {
      p = {byte & 0x1Fu, 1, 0x80, 0x7FF};
    } else if (byte >= 0xE0 && byte <= 0xEF) {
      p = {byte & 0x0Fu, 2, 0x800, byte == 0xED ? 0xD7FFu : 0xFFFFu};  // ED A0-BF would be surrogates
    } else if (byte >= 0xF0 && byte <= 0xF7) {
      p = {byte & 0x07u, 3, 0x10000, kMaxCodePoint};
    } else {
      return Utf8Result::kInvalid;  // a continuation byte, or F8-FF
    }
  } else {
    if ((byte & 0xC0) != 0x80) return Utf8Result::kInvalid;
    p.value = (p.value << 6) | (byte & 0x3Fu);
    --p.n_pending;
  }
  uint32_t first = 0;
  uint32_t last = 0;
  PendingRange(p, &first, &last);
  if (first > last) return Utf8Result::kInvalid;
  if (p.n_pending == 0) {
    p.min = p.max = p.value;
    return Utf8Result::kComplete;
  }
  return Utf8Result::kPending;
}

void PendingRange(const PartialUtf8& partial, uint32_t* first, uint32_t* last) {
  const uint32_t shift = 6 * partial.n_pending;
  const uint64_t lo = uint64_t{partial.value} << shift;
  const uint64_t hi = lo | ((uint64_t{1} << shift) - 1);
  *first = static_cast<uint32_t>(std::max<uint64_t>(lo, partial.min));
  *last = static_cast<uint32_t>(std::min<uint64_t>(hi, partial.max));
  if (lo > partial.max) *first = 1, *last = 0;  // empty (lo may not fit in 32 bits)
}

void ParseStacks::Reset(const Grammar* grammar) {
  grammar_ = grammar;
  if (bytes_used() > kKeepBytes) {
    *this = ParseStacks();
    grammar_ = grammar;
  }
  nodes_.assign(1, Node{UINT32_MAX, 0});
  visited_.assign(1, 0);
  generation_ = 0;
  // The hash tables start small again (keeping their memory) and grow with
  // use: clearing them at the size the largest walk left would make every
  // later one-token Allows or Accept on this thread pay for that walk. At
  // their first size only the slots filled since are cleared: a Reset comes
  // before every Accept and Allows, most of which fill a few slots.
  ClearSlots(&node_slots_, &node_slots_used_, kFirstNodeSlots);
  states_.clear();
  state_nodes_.clear();
  ClearSlots(&state_slots_, &state_slots_used_, kFirstStateSlots);
  transitions_.clear();
}

void ParseStacks::ClearSlots(std::vector<uint32_t>* slots, std::vector<uint32_t>* used, size_t first_size) {
  if (slots->size() == first_size) {
    for (uint32_t i : *used) (*slots)[i] = 0;
  } else {
    slots->assign(first_size, 0);
  }
  used->clear();
}

size_t ParseStacks::bytes_used() const {
  return nodes_.capacity() * sizeof(Node) + node_slots_.capacity() * 4 + visited_.capacity() * 4 +
         states_.capacity() * sizeof(State) + state_nodes_.capacity() * 4 + state_slots_.capacity() * 4 +
         transitions_.capacity() * 4 + (node_slots_used_.capacity() + state_slots_used_.capacity()) * 4;
}

uint32_t ParseStacks::Intern(uint32_t pos, uint32_t parent) {
  const uint64_t key = (uint64_t{pos} << 32) | parent;
  size_t mask = node_slots_.size() - 1;
  for (size_t i = Mix(key) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = node_slots_[i];
    if (slot == 0) {
      const auto id = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({pos, parent});
      visited_.push_back(0);
      node_slots_[i] = id + 1;
      node_slots_used_.push_back(static_cast<uint32_t>(i));
      if (nodes_.size() * 2 > node_slots_.size()) GrowNodeTable();
      return id;
    }
    const Node& n = nodes_[slot - 1];
    if (n.pos == pos && n.parent == parent) return slot - 1;
  }
}

void ParseStacks::GrowNodeTable() {
  node_slots_.assign(node_slots_.size() * 2, 0);
  const size_t mask = node_slots_.size() - 1;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    const uint64_t key = (uint64_t{nodes_[id].pos} << 32) | nodes_[id].parent;
    size_t i = Mix(key) & mask;
    while (node_slots_[i] != 0) i = (i + 1) & mask;
    node_slots_[i] = id + 1;
  }
  node_slots_used_.clear();  // past the first size, Reset clears the whole table
}

uint64_t ParseStacks::StateHash(std::span<const uint32_t> nodes, const PartialUtf8& partial) const {
  uint64_t h = Mix((uint64_t{partial.value} << 32) ^ (uint64_t{partial.n_pending} << 24) ^ partial.min ^
                   (uint64_t{partial.max} << 40));
  for (uint32_t n : nodes) h = Mix(h ^ n);
  return h;
}

int32_t ParseStacks::InternState(std::span<const uint32_t> sorted_nodes, const PartialUtf8& partial) {
  const size_t mask = state_slots_.size() - 1;
  for (size_t i = StateHash(sorted_nodes, partial) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = state_slots_[i];
    if (slot == 0) {
      const auto id = static_cast<int32_t>(states_.size());
      State s;
      s.first_node = static_cast<uint32_t>(state_nodes_.size());
      s.n_nodes = static_cast<uint32_t>(sorted_nodes.size());
      s.partial = partial;
      state_nodes_.insert(state_nodes_.end(), sorted_nodes.begin(), sorted_nodes.end());
      states_.push_back(s);
      state_slots_[i] = static_cast<uint32_t>(id) + 1;
      state_slots_used_.push_back(static_cast<uint32_t>(i));
      if (states_.size() * 2 > state_slots_.size()) GrowStateTable();
      return id;
    }
    const State& s = states_[slot - 1];
    if (s.partial == partial && s.n_nodes == sorted_nodes.size() &&
        std::equal(sorted_nodes.begin(), sorted_nodes.end(), state_nodes_.begin() + s.first_node)) {
      return static_cast<int32_t>(slot - 1);
    }
  }
}

void ParseStacks::GrowStateTable() {
  state_slots_.assign(state_slots_.size() * 2, 0);
  const size_t mask = state_slots_.size() - 1;
  for (size_t id = 0; id < states_.size(); ++id) {
    const State& s = states_[id];
    std::span<const uint32_t> nodes(state_nodes_.data() + s.first_node, s.n_nodes);
    size_t i = StateHash(nodes, s.partial) & mask;
    while (state_slots_[i] != 0) i = (i + 1) & mask;
    state_slots_[i] = static_cast<uint32_t>(id) + 1;
  }
  state_slots_used_.clear();
}

// Continues a stack at `pos` over `parent`: an alternative that ends there
// returns to the parent (or completes the stack); anything else becomes a
// node to expand. Each node is expanded once per Advance (generation_), which
// both deduplicates the stacks and bounds the work. False when over a cap.
bool ParseStacks::Continue(uint32_t pos, uint32_t parent) {
  uint32_t node = parent;
  if (grammar_->element(pos).kind != ElementKind::kEnd) node = Intern(pos, parent);
  if (visited_[node] == generation_) return true;
  visited_[node] = generation_;
  if (++steps_ > kMaxStepsPerCodePoint) return false;
  if (node == 0) {
    out_.push_back(0);  // the stack is empty: the text can end here
  } else {
    work_.push_back(node);
  }
  return true;
}

int32_t ParseStacks::Start() {
  ++generation_;
  work_.clear();
  out_.clear();
  steps_ = 0;
  for (uint32_t alt : grammar_->alternatives(grammar_->root())) {
    if (!Continue(alt, 0)) return kTooManyStacks;
  }
  tops_.clear();
  const int32_t state = Advance(-1, 0);
  // A grammar that can read nothing at all (root ::= []) starts with no
  // stack: it refuses every byte and cannot end.
  return state == kRefused ? InternState({}, PartialUtf8{}) : state;
}

// Expands the pending work into stacks whose tops are character elements.
// With state >= 0, first moves each stack of `state` whose top accepts
// `code_point` past it.
int32_t ParseStacks::Advance(int32_t state, uint32_t code_point) {
  if (state >= 0) {
    if (++generation_ == 0) {  // wrapped: forget every mark
      std::fill(visited_.begin(), visited_.end(), 0);
      generation_ = 1;
    }
    work_.clear();
    out_.clear();
    steps_ = 0;
    const State& s = states_[static_cast<size_t>(state)];
    tops_.assign(state_nodes_.begin() + s.first_node, state_nodes_.begin() + s.first_node + s.n_nodes);
    for (uint32_t top : tops_) {
      if (top == 0) continue;
      const Node n = nodes_[top];
      if (!grammar_->ClassContains(grammar_->element(n.pos).value, code_point)) continue;
      if (!Continue(n.pos + 1, n.parent)) return kTooManyStacks;
    }
  }
  while (!work_.empty()) {
    const uint32_t node = work_.back();
    work_.pop_back();
    const Node n = nodes_[node];
    const Element& e = grammar_->element(n.pos);
    if (e.kind == ElementKind::kChars) {
      // A stack waiting on a class that holds no character is dead: dropped,
      // so that CanEnd and MustEnd only count stacks that can go on.
      if (!grammar_->ClassMatchesAny(e.value)) continue;
      out_.push_back(node);
      if (out_.size() > kMaxStacks) return kTooManyStacks;
      continue;
    }
    TRIT_DCHECK(e.kind == ElementKind::kRule);
    // The return position; none for a tail call (the parent is where to go).
    const uint32_t ret =
        grammar_->element(n.pos + 1).kind == ElementKind::kEnd ? n.parent : Intern(n.pos + 1, n.parent);
    for (uint32_t alt : grammar_->alternatives(e.value)) {
      if (!Continue(alt, ret)) return kTooManyStacks;
    }
  }
  if (out_.empty()) return kRefused;
  std::sort(out_.begin(), out_.end());
  return InternState(out_, PartialUtf8{});
}

bool ParseStacks::AnyTopIntersects(int32_t state, uint32_t first, uint32_t last) const {
  const State& s = states_[static_cast<size_t>(state)];
  for (uint32_t i = 0; i < s.n_nodes; ++i) {
    const uint32_t top = state_nodes_[s.first_node + i];
    if (top != 0 && grammar_->ClassIntersects(grammar_->element(nodes_[top].pos).value, first, last)) return true;
  }
  return false;
}

int32_t ParseStacks::StepOnce(int32_t state, uint8_t byte) {
  PartialUtf8 p = states_[static_cast<size_t>(state)].partial;
  switch (Utf8Step(&p, byte)) {
    case Utf8Result::kInvalid:
      return kBadUtf8;
    case Utf8Result::kComplete:
      return Advance(state, p.value);
    case Utf8Result::kPending:
      break;
  }
  // A character begun: refused at once unless some stack could take one of
  // the code points it may still become.
  uint32_t first = 0;
  uint32_t last = 0;
  PendingRange(p, &first, &last);
  if (!AnyTopIntersects(state, first, last)) return kRefused;
  const State& s = states_[static_cast<size_t>(state)];
  tops_.assign(state_nodes_.begin() + s.first_node, state_nodes_.begin() + s.first_node + s.n_nodes);
  return InternState(tops_, p);
}

int32_t ParseStacks::Step(int32_t state, uint8_t byte) {
  int32_t table = states_[static_cast<size_t>(state)].table;
  if (table >= 0) {
    const int32_t known = transitions_[static_cast<size_t>(table) * 256 + byte];
    if (known != kUnknown) return known;
  }
  const int32_t next = StepOnce(state, byte);
  table = states_[static_cast<size_t>(state)].table;
  if (table < 0) {
    table = static_cast<int32_t>(transitions_.size() / 256);
    transitions_.resize(transitions_.size() + 256, kUnknown);
    states_[static_cast<size_t>(state)].table = table;
  }
  transitions_[static_cast<size_t>(table) * 256 + byte] = next;
  return next;
}

bool ParseStacks::CanEnd(int32_t state) const {
  const State& s = states_[static_cast<size_t>(state)];
  return s.partial.n_pending == 0 && s.n_nodes > 0 && state_nodes_[s.first_node] == 0;  // node 0 sorts first
}

bool ParseStacks::MustEnd(int32_t state) const {
  return CanEnd(state) && states_[static_cast<size_t>(state)].n_nodes == 1;
}

bool ParseStacks::AsciiLoops(int32_t state, const uint64_t bytes[2]) {
  const auto index = static_cast<size_t>(state);
  for (int w = 0; w < 2; ++w) {
    if (bytes[w] & states_[index].loop_known[w] & ~states_[index].loop_yes[w]) return false;
  }
  for (int w = 0; w < 2; ++w) {
    uint64_t unknown = bytes[w] & ~states_[index].loop_known[w];
    while (unknown != 0) {
      const int bit = std::countr_zero(unknown);
      unknown &= unknown - 1;
      const bool loops = Step(state, static_cast<uint8_t>(64 * w + bit)) == state;
      states_[index].loop_known[w] |= uint64_t{1} << bit;
      if (!loops) return false;
      states_[index].loop_yes[w] |= uint64_t{1} << bit;
    }
  }
  return true;
}

// The top classes split U+0080..U+10FFFF into intervals on which every class
// is all in or all out, so one code point of each interval speaks for all.
bool ParseStacks::NonAsciiLoops(int32_t state) {
  const auto index = static_cast<size_t>(state);
  if (states_[index].nonascii_loops >= 0) return states_[index].nonascii_loops == 1;
  constexpr size_t kMaxProbes = 64;
  std::vector<uint32_t> cuts = {0x80, kMaxCodePoint + 1};
  const State& s = states_[index];
  for (uint32_t i = 0; i < s.n_nodes && cuts.size() <= 2 * kMaxProbes; ++i) {
    const uint32_t top = state_nodes_[s.first_node + i];
    if (top == 0) continue;
    for (const CodePointRange& r : grammar_->class_ranges(grammar_->element(nodes_[top].pos).value)) {
      if (r.last < 0x80) continue;
      cuts.push_back(std::max<uint32_t>(r.first, 0x80));
      cuts.push_back(r.last + 1);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  bool loops = cuts.size() <= kMaxProbes + 1;
  for (size_t i = 0; loops && i + 1 < cuts.size(); ++i) {
    uint32_t probe = cuts[i];
    if (probe >= 0xD800 && probe <= 0xDFFF) {
      if (cuts[i + 1] <= 0xE000) continue;  // surrogates only: no character is there
      probe = 0xE000;
    }
    loops = Advance(state, probe) == state;
  }
  states_[index].nonascii_loops = loops ? 1 : 0;
  return loops;
}

int32_t ParseStacks::Import(const std::vector<uint32_t>& stacks, const PartialUtf8& partial) {
  std::vector<uint32_t> tops;
  for (size_t i = 0; i < stacks.size();) {
    const uint32_t length = stacks[i++];
    uint32_t node = 0;
    for (uint32_t k = 0; k < length; ++k) node = Intern(stacks[i + k], node);
    i += length;
    tops.push_back(node);
  }
  std::sort(tops.begin(), tops.end());
  tops.erase(std::unique(tops.begin(), tops.end()), tops.end());
  return InternState(tops, partial);
}

void ParseStacks::Export(int32_t state, std::vector<uint32_t>* stacks, size_t* n_stacks,
                         PartialUtf8* partial) const {
  const State& s = states_[static_cast<size_t>(state)];
  // Sorted, so that equal states export equal vectors (node ids, and so the
  // order of top nodes, depend on the scratch's history).
  std::vector<std::vector<uint32_t>> each(s.n_nodes);
  for (uint32_t i = 0; i < s.n_nodes; ++i) {
    for (uint32_t node = state_nodes_[s.first_node + i]; node != 0; node = nodes_[node].parent) {
      each[i].push_back(nodes_[node].pos);
    }
    std::reverse(each[i].begin(), each[i].end());
  }
  std::sort(each.begin(), each.end());
  stacks->clear();
  for (const std::vector<uint32_t>& stack : each) {
    stacks->push_back(static_cast<uint32_t>(stack.size()));
    stacks->insert(stacks->end(), stack.begin(), stack.end());
  }
  *n_stacks = s.n_nodes;
  *partial = s.partial;
}

void ParseStacks::Compact(std::span<int32_t> live) {
  std::vector<std::vector<uint32_t>> flat(live.size());
  std::vector<PartialUtf8> partials(live.size());
  size_t n_stacks = 0;
  for (size_t i = 0; i < live.size(); ++i) Export(live[i], &flat[i], &n_stacks, &partials[i]);
  const Grammar* grammar = grammar_;
  *this = ParseStacks();
  Reset(grammar);
  for (size_t i = 0; i < live.size(); ++i) live[i] = Import(flat[i], partials[i]);
}

ParseStacks& ThreadScratch(const Grammar* grammar) {
  thread_local ParseStacks stacks;
  stacks.Reset(grammar);
  return stacks;
}

Status CheckStartState(const Grammar& grammar) {
  ParseStacks stacks;
  stacks.Reset(&grammar);
  if (stacks.Start() == kTooManyStacks) {
    return Error(ErrorCode::kInvalidArgument,
                 "the grammar is too ambiguous at its start: it needs more than {} parse stacks or {} steps",
                 kMaxStacks, kMaxStepsPerCodePoint);
  }
  return Status::Ok();
}

}  // namespace trit::grammar
