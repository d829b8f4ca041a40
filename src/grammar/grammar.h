// The internal form of a grammar (gbnf.h parses text into it): rules of
// alternatives, each a sequence of elements, all in one flat array so that a
// parse position is one index.
//
//   elements_: [alt 0 of rule 0 ..., kEnd, alt 1 of rule 0 ..., kEnd, alt 0 of rule 1 ..., kEnd, ...]
//
// A kChars element matches one code point of a character class; a kRule
// element calls a rule (one of its alternatives); kEnd ends an alternative
// (the rule returns to its caller). Repetitions and groups are already helper
// rules here, and no rule is left-recursive (the parser refuses that), so
// entering rules always reaches a kChars element or a kEnd in finitely many
// steps.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trit::grammar {

inline constexpr uint32_t kMaxCodePoint = 0x10FFFF;

enum class ElementKind : uint8_t { kEnd, kRule, kChars };

struct Element {
  ElementKind kind;
  uint32_t value;  // kRule: the rule id; kChars: the class id; kEnd: 0
};

// An inclusive range of code points.
struct CodePointRange {
  uint32_t first;
  uint32_t last;
  friend bool operator==(const CodePointRange&, const CodePointRange&) = default;
};

class Grammar {
 public:
  // What the parser hands over. ranges of a class are sorted, disjoint and not
  // adjacent (negated classes already complemented).
  struct Parts {
    std::vector<Element> elements;
    std::vector<uint32_t> rule_first_alt;  // (n_rules + 1) rule r's alternatives: alt_starts[first[r], first[r + 1])
    std::vector<uint32_t> alt_starts;      // (n_alts) the first element of each alternative
    std::vector<std::string> rule_names;   // (n_rules) helper rules are named "<rule>_<n>"
    std::vector<uint32_t> class_first_range;  // (n_classes + 1) class c's ranges: ranges[first[c], first[c + 1])
    std::vector<CodePointRange> ranges;
    uint32_t root = 0;
  };
  explicit Grammar(Parts parts);

  uint32_t root() const { return parts_.root; }
  size_t n_rules() const { return parts_.rule_names.size(); }
  size_t n_elements() const { return parts_.elements.size(); }
  size_t n_classes() const { return parts_.class_first_range.size() - 1; }
  const Element& element(uint32_t pos) const { return parts_.elements[pos]; }
  std::span<const uint32_t> alternatives(uint32_t rule) const {
    return std::span<const uint32_t>(parts_.alt_starts)
        .subspan(parts_.rule_first_alt[rule], parts_.rule_first_alt[rule + 1] - parts_.rule_first_alt[rule]);
  }
  const std::string& rule_name(uint32_t rule) const { return parts_.rule_names[rule]; }
  std::span<const CodePointRange> class_ranges(uint32_t cls) const {
    return std::span<const CodePointRange>(parts_.ranges)
        .subspan(parts_.class_first_range[cls], parts_.class_first_range[cls + 1] - parts_.class_first_range[cls]);
  }

  // Whether class `cls` holds code point c (ASCII by bitmap, the rest by
  // binary search).
  bool ClassContains(uint32_t cls, uint32_t c) const {
    if (c < 128) return (ascii_[2 * cls + (c >> 6)] >> (c & 63)) & 1;
    return ClassContainsSlow(cls, c);
  }
  // Whether class `cls` holds any code point of [first, last].
  bool ClassIntersects(uint32_t cls, uint32_t first, uint32_t last) const;
  // Whether class `cls` holds a character at all: `[]` holds none, and a
  // class of surrogates only holds none that UTF-8 text can spell.
  bool ClassMatchesAny(uint32_t cls) const { return matches_any_[cls] != 0; }

  // The grammar in GBNF again, one rule a line (helpers included), for
  // errors and tests.
  std::string ToString() const;

 private:
  bool ClassContainsSlow(uint32_t cls, uint32_t c) const;

  Parts parts_;
  std::vector<uint64_t> ascii_;  // (n_classes, 2) the ASCII members of each class as a bitmap
  std::vector<uint8_t> matches_any_;  // (n_classes) ClassMatchesAny
};

}  // namespace trit::grammar
