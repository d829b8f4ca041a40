// Internal to the JSON-schema converter (json_schema.cpp, json_schema_regex.cpp):
// the GBNF text it writes, built from a few exact pieces — literals, character
// classes over code points, bounded repetition, integer and number ranges,
// JSON strings and the string formats — and the table of rules they live in.
// Nothing here knows about JSON Schema keywords; json_schema.h states what the
// converter as a whole supports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trit::grammar::schema {

// Limits that keep a hostile schema from making a giant grammar (json_schema.h).
inline constexpr size_t kMaxSchemaCount = 1000;        // maxLength, maxItems, a pattern's {n,m}
inline constexpr size_t kMaxGrammarBytes = 1 << 20;    // the whole grammar's text
inline constexpr int kMaxIntegerDigits = 16;           // digits of an integer (and of a number's integer part)
inline constexpr int kMaxFractionDigits = 16;          // digits after a number's '.'
inline constexpr int64_t kMaxInteger = 9'999'999'999'999'999;  // the largest 16-digit integer

// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges.
class CodeSet {
 public:
  using Range = std::pair<char32_t, char32_t>;

  CodeSet() = default;
  static CodeSet Of(char32_t c) { return Span(c, c); }
  static CodeSet Span(char32_t lo, char32_t hi);  // lo <= hi
  static CodeSet All();                           // 0..0x10FFFF without the surrogates

  CodeSet Union(const CodeSet& other) const;
  CodeSet Minus(const CodeSet& other) const;
  CodeSet Complement() const { return All().Minus(*this); }
  CodeSet Intersect(const CodeSet& other) const { return Minus(Minus(other)); }
  bool Contains(char32_t c) const;
  bool empty() const { return ranges_.empty(); }
  const std::vector<Range>& ranges() const { return ranges_; }

 private:
  std::vector<Range> ranges_;
};

// True when `expr` is one GBNF term (a rule name, a literal or a class
// without spaces) that a suffix such as `*` may follow as it is.
bool IsTerm(std::string_view expr);

// A GBNF literal: "..." matching exactly these UTF-8 bytes.
std::string Literal(std::string_view utf8);
// A GBNF character class matching one code point of `set` (non-empty).
std::string CharClass(const CodeSet& set);
// One character of a JSON string whose decoded value is in `set`, as its JSON
// text: raw UTF-8 where JSON allows it, else the short escape (\" \\ \b \f \n
// \r \t) or \u00XX. (Other escapes of the same characters, such as \/ or
// \u0041, are not produced: the grammar is a subset that still validates.)
// Empty `set`: returns "".
std::string JsonCharOf(const CodeSet& set);

// The table of rules being written. Rule names are lowercase words joined by
// '-', made unique with a numeric suffix.
class RuleSet {
 public:
  // A new rule named after `hint`; returns its name.
  std::string Add(std::string_view hint, std::string body);
  // A name for a rule whose body comes later (Define), for recursion.
  std::string Reserve(std::string_view hint);
  void Define(const std::string& name, std::string body);

  // The shared primitive rules, each added on first use; each returns a rule name.
  std::string JsonChar();      // one character of any JSON string, escapes included
  std::string JsonString();    // any JSON string (quotes included)
  std::string JsonNumber();    // any number: 16 integer digits, 16 fraction digits, 2 exponent digits
  std::string JsonInteger();   // any integer of at most 16 digits, no leading zero
  std::string JsonValue();     // any JSON value
  std::string JsonObject();    // any JSON object
  std::string JsonArray();     // any JSON array

  // `item` repeated min..max times (max nullopt: unbounded), as GBNF's
  // x{m,n} (gbnf.h expands it unambiguously). max <= kMaxSchemaCount is the
  // caller's to check. Returns an expression ("" for zero repeats).
  std::string Repeat(std::string_view item, size_t min, std::optional<size_t> max);

  // A JSON string (quotes included) of min..max characters of any kind.
  std::string StringOfLength(size_t min, std::optional<size_t> max);
  // A string format inside quotes: "date", "time", "date-time", "uuid".
  // Returns "" for another format. `length` receives the fewest and most
  // characters the format's strings have.
  std::string StringFormat(std::string_view format, std::pair<size_t, size_t>* length);

  // Integers in [lo, hi] (both within +-kMaxInteger), exactly, as decimal
  // JSON integers without leading zeros. Returns an expression.
  std::string IntegerRange(int64_t lo, int64_t hi);

  // One end of a number range: an integer bound, inclusive or exclusive.
  struct Bound {
    int64_t value = 0;
    bool exclusive = false;
  };
  // Numbers (integer part, optional fraction, no exponent) whose value lies
  // between the bounds (nullopt: no bound on that side; a bound's value
  // within +-kMaxInteger), exactly. Returns "" when no number does.
  std::string NumberRange(std::optional<Bound> lo, std::optional<Bound> hi);

  size_t text_bytes() const { return text_bytes_; }
  // The grammar: `root ::= <root_body>` and then every rule, in the order added.
  std::string Render(std::string_view root_body) const;

 private:
  std::string UniqueName(std::string_view hint);
  std::string Shared(std::string_view name, std::string body);
  std::string PositiveRange(int64_t lo, int64_t hi);   // 1 <= lo <= hi
  std::string Magnitude(int64_t lo, bool lo_exclusive, std::optional<std::pair<int64_t, bool>> hi);

  std::vector<std::pair<std::string, std::string>> rules_;  // name, body ("" until defined)
  std::map<std::string, size_t, std::less<>> index_;        // name -> position in rules_
  // The suffix UniqueName tries first for a base name: every one below it is
  // taken (names are never given back), so a hint used n times costs O(n),
  // not O(n^2) (a 1 KiB schema of long keys took seconds before).
  std::map<std::string, int, std::less<>> next_suffix_;
  size_t text_bytes_ = 0;
};

}  // namespace trit::grammar::schema
