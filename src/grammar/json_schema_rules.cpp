#include "grammar/json_schema_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/check.h"

namespace trit::grammar::schema {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr char32_t kSurrogateFirst = 0xD800;
constexpr char32_t kSurrogateLast = 0xDFFF;

// A code point as a GBNF escape: \xXX, \uXXXX or \UXXXXXXXX.
std::string EscapeCodePoint(char32_t c) {
  if (c < 0x80) return fmt::format("\\x{:02x}", static_cast<uint32_t>(c));
  if (c < 0x10000) return fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
  return fmt::format("\\U{:08x}", static_cast<uint32_t>(c));
}

bool IsPlainClassChar(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// "[...]" alternatives of `s` that need no escape (alphanumerics) are written
// as themselves, everything else escaped, so that no character is special.
std::string ClassMember(char32_t c) {
  return IsPlainClassChar(c) ? std::string(1, static_cast<char>(c)) : EscapeCodePoint(c);
}

// The names of the shared rules (RuleSet::JsonChar ...): never given to another rule.
constexpr std::string_view kSharedNames[] = {
    "char", "string", "integer", "number", "fraction", "exponent", "value", "object", "array", "hex",
    "date-year", "date-mult4", "date-leap-year", "date", "time", "date-time", "uuid"};

// True when `expr` is one parenthesized group: "(...)" whose first '('
// closes at its last character (skipping literals and classes).
bool IsGroup(std::string_view expr) {
  if (expr.size() < 2 || expr.front() != '(' || expr.back() != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    const char c = expr[i];
    if (c == '"' || c == '[') {
      const char close = c == '"' ? '"' : ']';
      for (++i; i < expr.size() && expr[i] != close; ++i) {
        if (expr[i] == '\\') ++i;
      }
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i + 1 == expr.size();
    }
  }
  return false;
}

std::string Group(std::string_view expr) { return IsGroup(expr) ? std::string(expr) : fmt::format("({})", expr); }

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string Alternatives(const std::vector<std::string>& alts) {
  if (alts.size() == 1) return alts[0];
  return Group(Join(alts, " | "));
}

// `[0-9]` n times, as an expression.
std::string Digits(int n) {
  std::vector<std::string> parts(static_cast<size_t>(n), "[0-9]");
  return Join(parts, " ");
}

std::string DigitClass(char lo, char hi) {
  if (lo == hi) return Literal(std::string(1, lo));
  return fmt::format("[{}-{}]", lo, hi);
}

bool AllChar(std::string_view s, char c) { return std::all_of(s.begin(), s.end(), [c](char x) { return x == c; }); }

// Digit strings of lo.size() digits (leading zeros allowed) between lo and hi.
std::string FixedWidthRange(std::string_view lo, std::string_view hi) {
  TRIT_CHECK(lo.size() == hi.size() && !lo.empty() && lo <= hi);
  if (lo.size() == 1) return DigitClass(lo[0], hi[0]);
  const std::string_view lo_rest = lo.substr(1), hi_rest = hi.substr(1);
  const int n_rest = static_cast<int>(lo_rest.size());
  if (lo[0] == hi[0]) return Literal(std::string(1, lo[0])) + " " + FixedWidthRange(lo_rest, hi_rest);
  std::vector<std::string> alts;
  char full_lo = lo[0], full_hi = hi[0];
  if (!AllChar(lo_rest, '0')) {
    alts.push_back(Literal(std::string(1, lo[0])) + " " + FixedWidthRange(lo_rest, std::string(lo_rest.size(), '9')));
    ++full_lo;
  }
  const bool hi_partial = !AllChar(hi_rest, '9');
  if (hi_partial) --full_hi;
  if (full_lo <= full_hi) alts.push_back(DigitClass(full_lo, full_hi) + " " + Digits(n_rest));
  if (hi_partial) {
    alts.push_back(Literal(std::string(1, hi[0])) + " " + FixedWidthRange(std::string(hi_rest.size(), '0'), hi_rest));
  }
  return Alternatives(alts);
}

int64_t Pow10(int n) {
  int64_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

int DigitCount(int64_t v) { return static_cast<int>(std::to_string(v).size()); }

}  // namespace

// --- CodeSet ---------------------------------------------------------------

CodeSet CodeSet::Span(char32_t lo, char32_t hi) {
  TRIT_CHECK(lo <= hi);
  CodeSet s;
  s.ranges_.emplace_back(lo, hi);
  return s;
}

CodeSet CodeSet::All() {
  CodeSet s;
  s.ranges_ = {{0, kSurrogateFirst - 1}, {kSurrogateLast + 1, kMaxCodePoint}};
  return s;
}

CodeSet CodeSet::Union(const CodeSet& other) const {
  std::vector<Range> all = ranges_;
  all.insert(all.end(), other.ranges_.begin(), other.ranges_.end());
  std::sort(all.begin(), all.end());
  CodeSet out;
  for (const Range& r : all) {
    if (!out.ranges_.empty() && r.first <= out.ranges_.back().second + 1) {
      out.ranges_.back().second = std::max(out.ranges_.back().second, r.second);
    } else {
      out.ranges_.push_back(r);
    }
  }
  return out;
}

CodeSet CodeSet::Minus(const CodeSet& other) const {
  CodeSet out;
  for (Range r : ranges_) {
    char32_t next = r.first;  // the first code point of r not yet placed or removed
    bool done = false;
    for (const Range& cut : other.ranges_) {
      if (cut.second < next || cut.first > r.second) continue;
      if (cut.first > next) out.ranges_.emplace_back(next, cut.first - 1);
      if (cut.second >= r.second) {
        done = true;
        break;
      }
      next = cut.second + 1;
    }
    if (!done) out.ranges_.emplace_back(next, r.second);
  }
  return out;
}

bool CodeSet::Contains(char32_t c) const {
  return std::any_of(ranges_.begin(), ranges_.end(), [c](const Range& r) { return r.first <= c && c <= r.second; });
}

// --- Text pieces -----------------------------------------------------------

bool IsTerm(std::string_view expr) {
  // Literals and classes written here escape spaces and '|', so a space or a
  // '|' means a sequence or alternatives.
  return !expr.empty() && expr.find_first_of(" |") == std::string_view::npos;
}

std::string Literal(std::string_view utf8) {
  std::string out = "\"";
  for (char ch : utf8) {
    const auto b = static_cast<unsigned char>(ch);
    if (b == '"' || b == '\\') {
      out += '\\';
      out += ch;
    } else if (b < 0x20 || b == 0x7F) {
      out += fmt::format("\\x{:02x}", b);
    } else {
      out += ch;  // printable ASCII and the bytes of UTF-8 sequences, as they are
    }
  }
  out += '"';
  return out;
}

std::string CharClass(const CodeSet& set) {
  TRIT_CHECK(!set.empty());
  std::string out = "[";
  for (const auto& [lo, hi] : set.ranges()) {
    out += ClassMember(lo);
    if (hi != lo) {
      if (hi != lo + 1) out += '-';
      out += ClassMember(hi);
    }
  }
  out += ']';
  return out;
}

std::string JsonCharOf(const CodeSet& set) {
  static const CodeSet kNeedEscape = CodeSet::Span(0, 0x1F).Union(CodeSet::Of('"')).Union(CodeSet::Of('\\'));
  std::vector<std::string> alts;
  const CodeSet raw = set.Minus(kNeedEscape);
  if (!raw.empty()) alts.push_back(CharClass(raw));
  const CodeSet escaped = set.Intersect(kNeedEscape);
  for (const auto& [lo, hi] : escaped.ranges()) {
    for (char32_t c = lo; c <= hi; ++c) {
      std::string escape;
      switch (c) {
        case '"': escape = "\\\""; break;
        case '\\': escape = "\\\\"; break;
        case '\b': escape = "\\b"; break;
        case '\f': escape = "\\f"; break;
        case '\n': escape = "\\n"; break;
        case '\r': escape = "\\r"; break;
        case '\t': escape = "\\t"; break;
        default: escape = fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
      }
      alts.push_back(Literal(escape));
    }
  }
  if (alts.empty()) return "";
  return Alternatives(alts);
}

// --- RuleSet ---------------------------------------------------------------

std::string RuleSet::UniqueName(std::string_view hint) {
  std::string base;
  for (char c : hint) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      base += c;
    } else if (c >= 'A' && c <= 'Z') {
      base += static_cast<char>(c - 'A' + 'a');
    } else if (!base.empty() && base.back() != '-') {
      base += '-';
    }
    if (base.size() >= 40) break;
  }
  while (!base.empty() && base.back() == '-') base.pop_back();
  if (base.empty() || base == "root") base = "r-" + base;
  while (!base.empty() && base.back() == '-') base.pop_back();
  std::string name = base;
  const auto taken = [&](const std::string& n) {
    return index_.count(n) > 0 || std::find(std::begin(kSharedNames), std::end(kSharedNames), n) != std::end(kSharedNames);
  };
  if (!taken(name)) return name;
  int& next = next_suffix_.try_emplace(base, 2).first->second;
  for (;; ++next) {
    name = fmt::format("{}-{}", base, next);
    if (!taken(name)) break;
  }
  ++next;
  return name;
}

std::string RuleSet::Reserve(std::string_view hint) {
  std::string name = UniqueName(hint);
  index_.emplace(name, rules_.size());
  rules_.emplace_back(name, "");
  text_bytes_ += name.size() + 6;
  return name;
}

void RuleSet::Define(const std::string& name, std::string body) {
  auto it = index_.find(name);
  TRIT_CHECK(it != index_.end() && rules_[it->second].second.empty());
  text_bytes_ += body.size();
  rules_[it->second].second = std::move(body);
}

std::string RuleSet::Add(std::string_view hint, std::string body) {
  std::string name = Reserve(hint);
  Define(name, std::move(body));
  return name;
}

std::string RuleSet::Shared(std::string_view name, std::string body) {
  if (index_.count(name) == 0) {
    index_.emplace(std::string(name), rules_.size());
    rules_.emplace_back(std::string(name), std::move(body));
    text_bytes_ += name.size() + rules_.back().second.size() + 6;
  }
  return std::string(name);
}

std::string RuleSet::JsonChar() {
  // Any character but '"', '\' and the controls, raw; or an escape. \u
  // escapes of surrogates are left out (a lone one is not a character, and a
  // pair would count as one character where minLength/maxLength count two).
  const std::string hex = Shared("hex", "[0-9a-fA-F]");
  const CodeSet raw = CodeSet::All().Minus(CodeSet::Span(0, 0x1F)).Minus(CodeSet::Of('"')).Minus(CodeSet::Of('\\'));
  return Shared("char", fmt::format("{} | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] {} {} {} | [dD] [0-7] {} {}))",
                                    CharClass(raw), hex, hex, hex, hex, hex));
}

std::string RuleSet::JsonString() {
  const std::string c = JsonChar();
  return Shared("string", fmt::format("\"\\\"\" {}* \"\\\"\"", c));
}

std::string RuleSet::JsonInteger() {
  return Shared("integer", fmt::format("\"-\"? (\"0\" | [1-9] {})", Repeat("[0-9]", 0, kMaxIntegerDigits - 1)));
}

std::string RuleSet::JsonNumber() {
  const std::string frac = Shared("fraction", fmt::format("\".\" {}", Repeat("[0-9]", 1, kMaxFractionDigits)));
  const std::string exp = Shared("exponent", fmt::format("[eE] [-+]? {}", Repeat("[0-9]", 1, 2)));
  return Shared("number", fmt::format("{} {}? {}?", JsonInteger(), frac, exp));
}

std::string RuleSet::JsonValue() {
  if (index_.count("value") > 0) return "value";
  Shared("value", "object | array | string | number | \"true\" | \"false\" | \"null\"");
  const std::string s = JsonString();
  JsonNumber();
  Shared("object", fmt::format("\"{{\" ({} \":\" value (\",\" {} \":\" value)*)? \"}}\"", s, s));
  Shared("array", "\"[\" (value (\",\" value)*)? \"]\"");
  return "value";
}

std::string RuleSet::JsonObject() {
  JsonValue();
  return "object";
}

std::string RuleSet::JsonArray() {
  JsonValue();
  return "array";
}

std::string RuleSet::Repeat(std::string_view item, size_t min, std::optional<size_t> max) {
  TRIT_CHECK(!max || *max >= min);
  if (max && *max == 0) return "";
  std::string term(item);
  if (!IsTerm(term)) term = Group(term);
  if (!max) return min == 0 ? term + "*" : min == 1 ? term + "+" : fmt::format("{}{{{},}}", term, min);
  if (min == *max) return min == 1 ? term : fmt::format("{}{{{}}}", term, min);
  if (min == 0 && *max == 1) return term + "?";
  return fmt::format("{}{{{},{}}}", term, min, *max);
}

std::string RuleSet::StringOfLength(size_t min, std::optional<size_t> max) {
  if (min == 0 && !max) return JsonString();
  return fmt::format("\"\\\"\" {} \"\\\"\"", Repeat(JsonChar(), min, max));
}

std::string RuleSet::StringFormat(std::string_view format, std::pair<size_t, size_t>* length) {
  const auto date = [&] {
    // Years 0001-9999 (Python's datetime has no year 0); each month's days,
    // and 29 February in leap years only (divisible by 4, not by 100 unless by 400).
    const std::string year = Shared("date-year", "[1-9] [0-9] [0-9] [0-9] | \"0\" ([1-9] [0-9] [0-9] | \"0\" ([1-9] [0-9] | \"0\" [1-9]))");
    const std::string mult4 = Shared("date-mult4", "[02468] [48] | [2468] \"0\" | [13579] [26]");  // 04..96
    const std::string leap = Shared("date-leap-year", fmt::format("[0-9] [0-9] {} | {} \"00\"", mult4, mult4));
    const std::string d28 = "(\"0\" [1-9] | \"1\" [0-9] | \"2\" [0-8])";
    return Shared("date", fmt::format(
        "{} \"-\" ((\"01\" | \"03\" | \"05\" | \"07\" | \"08\" | \"10\" | \"12\") \"-\" ({} | \"29\" | \"30\" | \"31\") | "
        "(\"04\" | \"06\" | \"09\" | \"11\") \"-\" ({} | \"29\" | \"30\") | \"02-\" {}) | {} \"-02-29\"",
        year, d28, d28, d28, leap));
  };
  const auto time = [&] {
    // HH:MM:SS, up to 9 fraction digits, Z or an offset (RFC 3339 full-time, no leap second).
    const std::string hour = "([01] [0-9] | \"2\" [0-3])";
    return Shared("time", fmt::format("{} \":\" [0-5] [0-9] \":\" [0-5] [0-9] (\".\" {})? (\"Z\" | [-+] {} \":\" [0-5] [0-9])",
                                      hour, Repeat("[0-9]", 1, 9), hour));
  };
  std::string body;
  if (format == "date") {
    body = date();
    *length = {10, 10};
  } else if (format == "time") {
    body = time();
    *length = {9, 24};
  } else if (format == "date-time") {
    body = Shared("date-time", fmt::format("{} \"T\" {}", date(), time()));
    *length = {20, 35};
  } else if (format == "uuid") {
    const std::string h = Shared("hex", "[0-9a-fA-F]");
    const auto n = [&](size_t count) { return Repeat(h, count, count); };
    body = Shared("uuid", fmt::format("{} \"-\" {} \"-\" {} \"-\" {} \"-\" {}", n(8), n(4), n(4), n(4), n(12)));
    *length = {36, 36};
  } else {
    return "";
  }
  return fmt::format("\"\\\"\" {} \"\\\"\"", body);
}

std::string RuleSet::PositiveRange(int64_t lo, int64_t hi) {
  TRIT_CHECK(1 <= lo && lo <= hi && hi <= kMaxInteger);
  std::vector<std::string> alts;
  const int lo_digits = DigitCount(lo), hi_digits = DigitCount(hi);
  // Whole digit counts (10^(n-1) .. 10^n - 1) in a row become one [1-9] [0-9]{a,b}.
  int full_first = -1;
  auto flush_full = [&](int last) {
    if (full_first < 0) return;
    std::string rest = Repeat("[0-9]", static_cast<size_t>(full_first - 1), static_cast<size_t>(last - 1));
    alts.push_back(rest.empty() ? "[1-9]" : "[1-9] " + rest);
    full_first = -1;
  };
  for (int n = lo_digits; n <= hi_digits; ++n) {
    const int64_t a = std::max(lo, Pow10(n - 1));
    const int64_t b = std::min(hi, Pow10(n) - 1);
    if (a == Pow10(n - 1) && b == Pow10(n) - 1) {
      if (full_first < 0) full_first = n;
      continue;
    }
    flush_full(n - 1);
    alts.push_back(FixedWidthRange(std::to_string(a), std::to_string(b)));
  }
  flush_full(hi_digits);
  return Alternatives(alts);
}

std::string RuleSet::IntegerRange(int64_t lo, int64_t hi) {
  TRIT_CHECK(lo <= hi && lo >= -kMaxInteger && hi <= kMaxInteger);
  std::vector<std::string> alts;
  if (lo <= -1) alts.push_back("\"-\" " + PositiveRange(std::max<int64_t>(1, -hi), -lo));
  if (lo <= 0 && hi >= 0) alts.push_back("\"0\"");
  if (hi >= 1) alts.push_back(PositiveRange(std::max<int64_t>(1, lo), hi));
  return Alternatives(alts);
}

// Non-negative numbers m (integer part and an optional fraction) with
// lo <= m (lo < m when lo_exclusive) and m <= hi.first (< when hi.second);
// no upper bound but the digit count when hi is nullopt. Integer part I and
// fraction F: I == lo needs a nonzero F when lo is exclusive; lo < I < hi
// takes any F; I == hi needs F absent or all zeros (none when hi is exclusive).
std::string RuleSet::Magnitude(int64_t lo, bool lo_exclusive, std::optional<std::pair<int64_t, bool>> hi) {
  const std::string any_frac = fmt::format("(\".\" {})?", Repeat("[0-9]", 1, kMaxFractionDigits));
  const std::string zero_frac = fmt::format("(\".\" {})?", Repeat("\"0\"", 1, kMaxFractionDigits));
  const std::string nonzero_frac = fmt::format("\".\" {} [1-9] {}", Repeat("\"0\"", 0, kMaxFractionDigits - 1),
                                               Repeat("[0-9]", 0, kMaxFractionDigits - 1));
  const int64_t top = hi ? hi->first : kMaxInteger;
  std::vector<std::string> alts;
  if (hi && lo == top) {
    // Only I == lo: m == lo exactly (when neither end is exclusive).
    if (!lo_exclusive && !hi->second) alts.push_back(IntegerRange(lo, lo) + " " + zero_frac);
    return alts.empty() ? "" : Alternatives(alts);
  }
  alts.push_back(IntegerRange(lo, lo) + " " + (lo_exclusive ? nonzero_frac : any_frac));
  const int64_t mid_hi = hi ? top - 1 : top;
  if (lo + 1 <= mid_hi) alts.push_back(IntegerRange(lo + 1, mid_hi) + " " + any_frac);
  if (hi && !hi->second) alts.push_back(IntegerRange(top, top) + " " + zero_frac);
  return Alternatives(alts);
}

std::string RuleSet::NumberRange(std::optional<Bound> lo, std::optional<Bound> hi) {
  if (lo && hi && (lo->value > hi->value || (lo->value == hi->value && (lo->exclusive || hi->exclusive)))) return "";
  std::vector<std::string> alts;
  // x >= 0: magnitudes from max(lo, 0) (0 inclusive when lo < 0) to hi.
  if (!hi || hi->value > 0 || (hi->value == 0 && !hi->exclusive)) {
    const bool from_lo = lo && lo->value >= 0;
    const int64_t a = from_lo ? lo->value : 0;
    const bool a_excl = from_lo && lo->exclusive;
    std::optional<std::pair<int64_t, bool>> b;
    if (hi) b = std::make_pair(hi->value, hi->exclusive);
    std::string m = Magnitude(a, a_excl, b);
    if (!m.empty()) alts.push_back(std::move(m));
  }
  // x < 0: "-" and magnitudes in (max(0, -hi), -lo]; zero is on the side above.
  if (!lo || lo->value < 0) {
    const bool from_hi = hi && hi->value < 0;
    const int64_t a = from_hi ? -hi->value : 0;
    const bool a_excl = from_hi ? hi->exclusive : true;
    std::optional<std::pair<int64_t, bool>> b;
    if (lo) b = std::make_pair(-lo->value, lo->exclusive);
    std::string m = Magnitude(a, a_excl, b);
    if (!m.empty()) alts.push_back("\"-\" " + Group(m));
  }
  if (alts.empty()) return "";
  return Alternatives(alts);
}

std::string RuleSet::Render(std::string_view root_body) const {
  std::string out = fmt::format("root ::= {}\n", root_body);
  for (const auto& [name, body] : rules_) {
    TRIT_CHECK(!body.empty());
    out += fmt::format("{} ::= {}\n", name, body);
  }
  return out;
}

}  // namespace trit::grammar::schema
