// The matcher's engine: sets of parse stacks as interned states, and steps
// between them by one byte, with per-(state, byte) memoization for the
// token-mask walk. Internal to grammar/ (matcher.h and token_index.h are the
// interface).
//
// Stacks are hash-consed: a node is (position, parent node), node 0 is the
// empty stack, so equal stacks are the same node and a state (a sorted set
// of top nodes and a pending UTF-8 prefix) is interned by value. That makes
// "this byte leads back to the same state" an integer comparison, which is
// what lets a mask accept whole trie subtrees at once.
//
// Entering a rule whose call is the last element of its alternative pushes
// no return position (a tail call), so right recursion such as the helper
// `x-star ::= x x-star | ""` keeps stacks flat instead of growing with the
// text.
//
// A ParseStacks is scratch for one thread; it grows with use and is emptied
// by Reset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "grammar/grammar.h"
#include "grammar/matcher.h"

namespace trit::grammar {

// What a step gives when it gives no state.
inline constexpr int32_t kRefused = -1;        // the grammar allows no such byte here
inline constexpr int32_t kBadUtf8 = -2;        // not UTF-8 (overlong, surrogate, past U+10FFFF, stray byte)
inline constexpr int32_t kTooManyStacks = -3;  // kMaxStacks or kMaxStepsPerCodePoint would be passed
inline constexpr int32_t kUnknown = -4;        // (memo tables) not computed yet

enum class Utf8Result { kInvalid, kPending, kComplete };
// Adds `byte` to the character `partial` began (n_pending == 0: a new one).
// kComplete leaves the code point in partial->value (n_pending 0); kPending
// means the character is a valid prefix (partial->min..max are the code
// points it can still become).
Utf8Result Utf8Step(PartialUtf8* partial, uint8_t byte);
// The code points a pending character can still become: [*first, *last].
void PendingRange(const PartialUtf8& partial, uint32_t* first, uint32_t* last);

class ParseStacks {
 public:
  // Empties the scratch (keeping its memory unless it grew past
  // kKeepBytes) and sets the grammar.
  void Reset(const Grammar* grammar);

  // The state at the start of `root`, or kTooManyStacks.
  int32_t Start();
  // The state of flattened stacks (Matcher::stacks()) and a pending character.
  int32_t Import(const std::vector<uint32_t>& stacks, const PartialUtf8& partial);
  // Flattens `state` for a Matcher, its stacks in sorted order (one state, one vector).
  void Export(int32_t state, std::vector<uint32_t>* stacks, size_t* n_stacks, PartialUtf8* partial) const;

  // The state after `byte`, or kRefused / kBadUtf8 / kTooManyStacks.
  int32_t Step(int32_t state, uint8_t byte);  // memoized
  int32_t StepOnce(int32_t state, uint8_t byte);  // not memoized (for one-off texts)

  bool CanEnd(int32_t state) const;
  bool MustEnd(int32_t state) const;
  bool AtBoundary(int32_t state) const { return states_[static_cast<size_t>(state)].partial.n_pending == 0; }

  // Whether every ASCII byte in `bytes` (a 128-bit set) leads `state`, at a
  // character boundary, back to `state`. Memoized per state and byte.
  bool AsciiLoops(int32_t state, const uint64_t bytes[2]);
  // Whether every code point from U+0080 up leads `state` back to itself
  // (false too when that would take too many probes to tell).
  bool NonAsciiLoops(int32_t state);

  // Bytes of scratch held now.
  size_t bytes_used() const;
  // Keeps only `live` states (renumbered in place): empties the memo tables
  // and the nodes no live state uses, when the scratch has grown too big.
  void Compact(std::span<int32_t> live);

  static constexpr size_t kKeepBytes = size_t{16} << 20;

 private:
  struct Node {
    uint32_t pos;     // a position in the grammar's elements
    uint32_t parent;  // the node below (0: the bottom)
  };
  struct State {
    uint32_t first_node;  // state_nodes_[first_node, first_node + n_nodes): sorted top nodes
    uint32_t n_nodes;
    PartialUtf8 partial;
    int32_t table = -1;            // transitions_[table * 256 + byte], or -1: none yet
    uint64_t loop_known[2] = {};   // ASCII bytes whose step from here is known...
    uint64_t loop_yes[2] = {};     // ...and of those, the ones leading back here
    int8_t nonascii_loops = -1;    // -1 unknown, 0 no, 1 yes
  };

  uint32_t Intern(uint32_t pos, uint32_t parent);
  int32_t InternState(std::span<const uint32_t> sorted_nodes, const PartialUtf8& partial);
  int32_t Advance(int32_t state, uint32_t code_point);
  bool Continue(uint32_t pos, uint32_t parent);
  bool AnyTopIntersects(int32_t state, uint32_t first, uint32_t last) const;
  void GrowNodeTable();
  void GrowStateTable();
  // Empties an open-addressing table: the `used` slots at `first_size`, else
  // the whole table, shrunk back to `first_size`.
  static void ClearSlots(std::vector<uint32_t>* slots, std::vector<uint32_t>* used, size_t first_size);
  static constexpr size_t kFirstNodeSlots = 1024;
  static constexpr size_t kFirstStateSlots = 256;
  uint64_t StateHash(std::span<const uint32_t> nodes, const PartialUtf8& partial) const;

  const Grammar* grammar_ = nullptr;
  std::vector<Node> nodes_;              // node 0: the empty stack
  std::vector<uint32_t> node_slots_;     // open addressing over nodes_: id + 1, 0 empty
  std::vector<uint32_t> node_slots_used_;  // the filled slots' indices, so Reset clears only those
  std::vector<uint32_t> visited_;        // (nodes) the Advance generation that last reached each node
  uint32_t generation_ = 0;
  std::vector<State> states_;
  std::vector<uint32_t> state_nodes_;
  std::vector<uint32_t> state_slots_;    // open addressing over states_: id + 1, 0 empty
  std::vector<uint32_t> state_slots_used_;
  std::vector<int32_t> transitions_;     // 256 per state with a table
  // Advance's scratch.
  std::vector<uint32_t> work_;
  std::vector<uint32_t> out_;
  std::vector<uint32_t> tops_;
  size_t steps_ = 0;
};

// This thread's scratch, reset for `grammar`: matchers and masks run on many
// threads at once, one matcher each, and hold nothing between calls. Not
// re-entrant: a caller is done with it before the next call on its thread.
ParseStacks& ThreadScratch(const Grammar* grammar);

// Whether the start state of `grammar` fits the caps (ParseGbnf's last check).
Status CheckStartState(const Grammar& grammar);

}  // namespace trit::grammar
