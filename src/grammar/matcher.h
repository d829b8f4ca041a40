// The state of one generation against a grammar: the set of parse stacks of
// a pushdown automaton over Unicode code points, fed UTF-8 bytes.
//
// A stack lists grammar positions, the bottom first: the top is a character
// element the next code point must match, the others are where to resume
// when the rule above them ends; an empty stack means the text so far is a
// complete sentence. The set is deduplicated and capped at kMaxStacks, so an
// ambiguous grammar costs bounded memory and time: input that would need
// more stacks is refused (last_rejection() says so).
//
// A Matcher is a value (copyable, cheap for the stack sets of usual
// grammars); one thread uses it at a time. The Grammar it shares is
// read-only, so matchers of one grammar run on any threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trit::grammar {

class Grammar;

// Parse stacks one matcher state may hold, and the steps one code point may
// take to find them (entering rules, leaving finished ones).
inline constexpr size_t kMaxStacks = 512;
inline constexpr size_t kMaxStepsPerCodePoint = 50'000;

// A UTF-8 character begun but not finished: the bits read so far and the
// code points it can still become.
struct PartialUtf8 {
  uint32_t value = 0;      // the payload bits read so far
  uint32_t n_pending = 0;  // continuation bytes still to come (0: at a character boundary)
  uint32_t min = 0;        // the smallest and largest code point the character may still become
  uint32_t max = 0;        //   (rules out overlong forms, surrogates and past U+10FFFF)

  friend bool operator==(const PartialUtf8&, const PartialUtf8&) = default;
};

class Matcher {
 public:
  // At the start of `root`. Precondition: grammar is not null.
  explicit Matcher(std::shared_ptr<const Grammar> grammar);

  // Feeds bytes (UTF-8; a character may be split across calls). Returns false
  // and leaves the state unchanged when the grammar does not allow them, and
  // for invalid UTF-8 (overlong forms, surrogates, past U+10FFFF, a stray
  // continuation byte); a byte that begins a character no stack can take is
  // refused at once.
  bool Accept(std::string_view bytes);

  // The text so far is a complete sentence of the grammar (an end-of-generation
  // token may come now). False in the middle of a UTF-8 character.
  bool CanEnd() const;
  // Complete, and the grammar allows no further byte. Where the grammar
  // would allow more but every byte is refused for the stack cap (a grammar
  // too ambiguous to go on: "([ ])+++++" after a few spaces), MustEnd is
  // false while nothing but an end token is allowed; a sampler then ends
  // the answer there all the same.
  bool MustEnd() const;

  // Why the last Accept returned false: the byte and its offset in that call,
  // and whether the grammar refused it, the UTF-8 was invalid, or the stack
  // cap was hit. Empty before any refusal.
  const std::string& last_rejection() const { return last_rejection_; }

  const std::shared_ptr<const Grammar>& grammar() const { return grammar_; }

  // The state, for TokenIndex and tests. stacks(): each stack as its length
  // followed by its positions (Grammar element indices), bottom first; no
  // two alike, sorted, so equal states have equal stacks().
  const std::vector<uint32_t>& stacks() const { return stacks_; }
  const PartialUtf8& partial() const { return partial_; }
  size_t n_stacks() const { return n_stacks_; }

  // The same grammar in the same state (last_rejection() aside).
  friend bool operator==(const Matcher& a, const Matcher& b) {
    return a.grammar_ == b.grammar_ && a.partial_ == b.partial_ && a.stacks_ == b.stacks_;
  }

 private:
  std::shared_ptr<const Grammar> grammar_;
  std::vector<uint32_t> stacks_;  // flattened stacks, see stacks()
  size_t n_stacks_ = 0;
  PartialUtf8 partial_;
  std::string last_rejection_;
};

// Whole-text check: a fresh matcher accepts `text` and can end after it.
bool Matches(std::shared_ptr<const Grammar> grammar, std::string_view text);

}  // namespace trit::grammar
