#include "grammar/gbnf.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/parse_stacks.h"

namespace trit::grammar {
namespace {

constexpr uint32_t kUnbounded = UINT32_MAX;
constexpr size_t kNoOffset = SIZE_MAX;

bool IsNameChar(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}
bool IsDigit(int c) { return c >= '0' && c <= '9'; }

int HexValue(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Sorts ranges and merges overlapping or adjacent ones.
std::vector<CodePointRange> Normalize(std::vector<CodePointRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const CodePointRange& a, const CodePointRange& b) { return a.first < b.first; });
  std::vector<CodePointRange> out;
  for (const CodePointRange& r : ranges) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// The code points of [0, kMaxCodePoint] outside `ranges` (normalized).
std::vector<CodePointRange> Complement(const std::vector<CodePointRange>& ranges) {
  std::vector<CodePointRange> out;
  uint32_t next = 0;
  for (const CodePointRange& r : ranges) {
    if (r.first > next) out.push_back({next, r.first - 1});
    next = r.last + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

struct RuleDef {
  std::string name;
  std::vector<std::vector<Element>> alts;
  bool defined = false;
  size_t first_use = kNoOffset;  // where the name first appears in a rule body
  size_t defined_at = kNoOffset;
  uint32_t n_helpers = 0;  // helpers made for this named rule so far (their names count up)
};

// Recursive descent over llama.cpp's GBNF. Recursion is only into groups,
// whose depth is capped (kMaxGroupDepth), so hostile text cannot overflow the
// call stack.
class GbnfParser {
 public:
  explicit GbnfParser(std::string_view text) : text_(text) {}

  Expected<std::shared_ptr<const Grammar>> Parse();

 private:
  int Peek(size_t k = 0) const {
    return pos_ + k < text_.size() ? static_cast<unsigned char>(text_[pos_ + k]) : -1;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }

  std::string Where(size_t offset) const;
  std::string Found() const;
  template <typename... Args>
  Status ErrorAt(size_t offset, fmt::format_string<Args...> format, Args&&... args) const {
    return Status(ErrorCode::kInvalidArgument,
                  Where(offset) + ": " + fmt::format(format, std::forward<Args>(args)...));
  }

  void SkipSpace(bool newline_ok);
  Status ParseRule();
  Status ParseAlternates(uint32_t rule, uint32_t owner, int depth, bool nested);
  Status ParseSequence(uint32_t owner, int depth, bool nested, std::vector<Element>* seq);
  Status ParseCodePoint(uint32_t* out);
  Status ParseCount(uint32_t* out);
  Status Repeat(uint32_t owner, std::vector<Element>* seq, size_t item_start, uint32_t min, uint32_t max);

  uint32_t RuleId(std::string_view name);
  Expected<uint32_t> NewHelper(uint32_t owner);
  uint32_t ClassId(std::vector<CodePointRange> ranges);
  Status Count(size_t n);
  Status AddAlternative(uint32_t rule, std::vector<Element> elements);
  Status CheckRules() const;
  Grammar::Parts Build() const;

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<RuleDef> rules_;
  std::unordered_map<std::string, uint32_t> rule_ids_;
  std::vector<std::vector<CodePointRange>> classes_;
  std::unordered_map<std::string, uint32_t> class_ids_;  // key: the ranges' bytes
  size_t n_elements_ = 0;
};

std::string GbnfParser::Where(size_t offset) const {
  offset = std::min(offset, text_.size());
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("{}:{}", line, offset - line_start + 1);
}

// The character at the current position, for "expected X, found Y".
std::string GbnfParser::Found() const {
  const int c = Peek();
  if (c < 0) return "the end of the text";
  if (c == '\n' || c == '\r') return "the end of the line";
  if (c >= 0x20 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02X}", c);
}

void GbnfParser::SkipSpace(bool newline_ok) {
  while (!AtEnd()) {
    const int c = Peek();
    if (c == '#') {
      while (!AtEnd() && Peek() != '\n' && Peek() != '\r') ++pos_;
    } else if (c == ' ' || c == '\t' || (newline_ok && (c == '\n' || c == '\r'))) {
      ++pos_;
    } else {
      break;
    }
  }
}

uint32_t GbnfParser::RuleId(std::string_view name) {
  auto [it, added] = rule_ids_.try_emplace(std::string(name), static_cast<uint32_t>(rules_.size()));
  if (added) {
    RuleDef rule;
    rule.name = std::string(name);
    rules_.push_back(std::move(rule));
  }
  return it->second;
}

// A rule for a group or a repetition inside named rule `owner`, named
// "<owner>_<n>" (no GBNF name holds '_', so it clashes with none).
Expected<uint32_t> GbnfParser::NewHelper(uint32_t owner) {
  if (rules_.size() >= kMaxGrammarRules) {
    return ErrorAt(pos_, "the grammar needs more than {} rules (groups and repetitions count as rules)",
                   kMaxGrammarRules);
  }
  const uint32_t n = ++rules_[owner].n_helpers;
  const uint32_t id = static_cast<uint32_t>(rules_.size());
  RuleDef rule;
  rule.name = fmt::format("{}_{}", rules_[owner].name, n);
  rule.defined = true;
  rules_.push_back(std::move(rule));
  return id;
}

uint32_t GbnfParser::ClassId(std::vector<CodePointRange> ranges) {
  std::string key(reinterpret_cast<const char*>(ranges.data()), ranges.size() * sizeof(CodePointRange));
  auto [it, added] = class_ids_.try_emplace(std::move(key), static_cast<uint32_t>(classes_.size()));
  if (added) classes_.push_back(std::move(ranges));
  return it->second;
}

Status GbnfParser::Count(size_t n) {
  n_elements_ += n;
  if (n_elements_ > kMaxGrammarElements) {
    return ErrorAt(pos_, "the grammar has more than {} elements once its repetitions are expanded",
                   kMaxGrammarElements);
  }
  return Status::Ok();
}

Status GbnfParser::AddAlternative(uint32_t rule, std::vector<Element> elements) {
  if (Status s = Count(1); !s.ok()) return s;  // its kEnd
  rules_[rule].alts.push_back(std::move(elements));
  return Status::Ok();
}

Expected<std::shared_ptr<const Grammar>> GbnfParser::Parse() {
  if (text_.size() > kMaxGbnfBytes) {
    return Error(ErrorCode::kInvalidArgument, "the grammar is {} bytes; at most {} are accepted", text_.size(),
                 kMaxGbnfBytes);
  }
  SkipSpace(/*newline_ok=*/true);
  if (AtEnd()) return Error(ErrorCode::kInvalidArgument, "the grammar is empty: it has no rule");
  while (!AtEnd()) {
    if (Status s = ParseRule(); !s.ok()) return s;
  }
  if (Status s = CheckRules(); !s.ok()) return s;
  auto grammar = std::make_shared<const Grammar>(Build());
  // The start state must fit the matcher's caps, or no Matcher could start.
  if (Status s = CheckStartState(*grammar); !s.ok()) return s;
  return std::shared_ptr<const Grammar>(std::move(grammar));
}

Status GbnfParser::ParseRule() {
  const size_t start = pos_;
  while (IsNameChar(Peek())) ++pos_;
  if (pos_ == start) return ErrorAt(pos_, "expected a rule name, found {}", Found());
  const std::string_view name = text_.substr(start, pos_ - start);
  SkipSpace(/*newline_ok=*/false);
  if (text_.substr(pos_, 3) != "::=") {
    return ErrorAt(pos_, "expected '::=' after the rule name '{}', found {}", name, Found());
  }
  pos_ += 3;
  SkipSpace(/*newline_ok=*/true);
  const uint32_t id = RuleId(name);
  if (rules_[id].defined) {
    return ErrorAt(start, "rule '{}' is defined twice (first at {})", name, Where(rules_[id].defined_at));
  }
  rules_[id].defined = true;
  rules_[id].defined_at = start;
  if (Status s = ParseAlternates(id, id, /*depth=*/0, /*nested=*/false); !s.ok()) return s;
  if (Peek() == '\r') {
    pos_ += Peek(1) == '\n' ? 2 : 1;
  } else if (Peek() == '\n') {
    ++pos_;
  } else if (!AtEnd()) {
    return ErrorAt(pos_, "expected a symbol, '|', a newline or the end of the text in rule '{}', found {}", name,
                   Found());
  }
  SkipSpace(/*newline_ok=*/true);
  return Status::Ok();
}

Status GbnfParser::ParseAlternates(uint32_t rule, uint32_t owner, int depth, bool nested) {
  while (true) {
    std::vector<Element> seq;
    if (Status s = ParseSequence(owner, depth, nested, &seq); !s.ok()) return s;
    if (Status s = AddAlternative(rule, std::move(seq)); !s.ok()) return s;
    if (Peek() != '|') return Status::Ok();
    ++pos_;
    SkipSpace(/*newline_ok=*/true);
  }
}

// One sequence of symbols up to '|', ')', or (outside groups) the end of the
// line. A repetition applies to the symbol before it; a literal is one symbol.
Status GbnfParser::ParseSequence(uint32_t owner, int depth, bool nested, std::vector<Element>* seq) {
  size_t last_item = kNoOffset;  // where the last symbol's elements begin in *seq
  while (!AtEnd()) {
    const int c = Peek();
    const size_t here = pos_;
    if (c == '"') {
      last_item = seq->size();
      ++pos_;
      while (Peek() != '"') {
        if (AtEnd()) return ErrorAt(here, "this string literal has no closing '\"'");
        uint32_t cp = 0;
        if (Status s = ParseCodePoint(&cp); !s.ok()) return s;
        if (Status s = Count(1); !s.ok()) return s;
        seq->push_back({ElementKind::kChars, ClassId({{cp, cp}})});
      }
      ++pos_;
    } else if (c == '[') {
      last_item = seq->size();
      ++pos_;
      const bool negated = Peek() == '^';
      if (negated) ++pos_;
      std::vector<CodePointRange> ranges;
      while (Peek() != ']') {
        if (AtEnd()) return ErrorAt(here, "this character class has no closing ']'");
        const size_t item_at = pos_;
        uint32_t first = 0;
        if (Status s = ParseCodePoint(&first); !s.ok()) return s;
        uint32_t last = first;
        if (Peek() == '-' && Peek(1) != ']' && Peek(1) >= 0) {
          ++pos_;
          if (Status s = ParseCodePoint(&last); !s.ok()) return s;
          if (last < first) return ErrorAt(item_at, "the range U+{:04X}-U+{:04X} is reversed", first, last);
        }
        ranges.push_back({first, last});
        if (ranges.size() > kMaxGrammarElements) return ErrorAt(here, "this character class is too long");
      }
      ++pos_;
      ranges = Normalize(std::move(ranges));
      if (negated) ranges = Complement(ranges);
      if (Status s = Count(1); !s.ok()) return s;
      seq->push_back({ElementKind::kChars, ClassId(std::move(ranges))});
    } else if (IsNameChar(c)) {
      last_item = seq->size();
      while (IsNameChar(Peek())) ++pos_;
      const uint32_t id = RuleId(text_.substr(here, pos_ - here));
      if (rules_[id].first_use == kNoOffset) rules_[id].first_use = here;
      if (Status s = Count(1); !s.ok()) return s;
      seq->push_back({ElementKind::kRule, id});
    } else if (c == '(') {
      if (depth + 1 > kMaxGroupDepth) return ErrorAt(here, "groups nest more than {} deep", kMaxGroupDepth);
      last_item = seq->size();
      ++pos_;
      SkipSpace(/*newline_ok=*/true);
      Expected<uint32_t> helper = NewHelper(owner);
      if (!helper.ok()) return helper.status();
      if (Status s = ParseAlternates(*helper, owner, depth + 1, /*nested=*/true); !s.ok()) return s;
      if (Peek() != ')') {
        return ErrorAt(pos_, "expected ')' to close the group opened at {}, found {}", Where(here), Found());
      }
      ++pos_;
      if (Status s = Count(1); !s.ok()) return s;
      seq->push_back({ElementKind::kRule, *helper});
    } else if (c == '.') {
      last_item = seq->size();
      ++pos_;
      if (Status s = Count(1); !s.ok()) return s;
      seq->push_back({ElementKind::kChars, ClassId({{0, kMaxCodePoint}})});
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
      if (last_item == kNoOffset) {
        return ErrorAt(here, "expected a symbol before the repetition '{}'", static_cast<char>(c));
      }
      uint32_t min = 0;
      uint32_t max = kUnbounded;
      ++pos_;
      if (c == '+') {
        min = 1;
      } else if (c == '?') {
        max = 1;
      } else if (c == '{') {
        SkipSpace(nested);
        if (IsDigit(Peek())) {
          if (Status s = ParseCount(&min); !s.ok()) return s;
          SkipSpace(nested);
          if (Peek() == '}') max = min;
        } else if (Peek() != ',') {
          return ErrorAt(pos_, "expected a count or ',' after '{{', found {}", Found());
        }
        if (Peek() == ',') {
          ++pos_;
          SkipSpace(nested);
          if (IsDigit(Peek())) {
            if (Status s = ParseCount(&max); !s.ok()) return s;
            SkipSpace(nested);
          }
        }
        if (Peek() != '}') return ErrorAt(pos_, "expected '}}' to close the repetition, found {}", Found());
        ++pos_;
        if (max < min) return ErrorAt(here, "the repetition {{{},{}}} has its maximum below its minimum", min, max);
      }
      // As in llama.cpp, a repetition may follow a repetition: x{2}{3} repeats
      // what x{2} became (and x** is left recursion, which CheckRules refuses).
      if (Status s = Repeat(owner, seq, last_item, min, max); !s.ok()) return s;
      SkipSpace(nested);
      continue;
    } else {
      break;
    }
    SkipSpace(nested);
  }
  return Status::Ok();
}

Status GbnfParser::ParseCount(uint32_t* out) {
  const size_t start = pos_;
  uint64_t value = 0;
  while (IsDigit(Peek())) {
    value = std::min<uint64_t>(value * 10 + static_cast<uint64_t>(Peek() - '0'), uint64_t{kMaxRepetition} + 1);
    ++pos_;
  }
  if (value > kMaxRepetition) {
    return ErrorAt(start, "the repetition count {} is above the limit of {}", text_.substr(start, pos_ - start),
                   kMaxRepetition);
  }
  *out = static_cast<uint32_t>(value);
  return Status::Ok();
}

// Replaces the symbol at seq[item_start...] by its repetition {min,max}:
// min copies, then for an open maximum a helper `h ::= item h | ""`, else a
// chain of max - min optional helpers `h1 ::= item h2 | ""`, ... (so that
// x{0,20} costs a few stacks, not 20 alternatives). An item of several
// elements (a literal) that is copied goes into a helper rule first.
Status GbnfParser::Repeat(uint32_t owner, std::vector<Element>* seq, size_t item_start, uint32_t min, uint32_t max) {
  std::vector<Element> item(seq->begin() + static_cast<ptrdiff_t>(item_start), seq->end());
  seq->resize(item_start);
  if (item.empty()) return Status::Ok();  // ""* is ""
  const uint64_t uses = uint64_t{min} + (max == kUnbounded ? 1 : max - min);
  if (uses == 0) return Count(0);  // x{0}: nothing
  if (item.size() > 1 && uses > 1) {
    Expected<uint32_t> wrapped = NewHelper(owner);
    if (!wrapped.ok()) return wrapped.status();
    if (Status s = AddAlternative(*wrapped, std::move(item)); !s.ok()) return s;
    if (Status s = Count(1); !s.ok()) return s;
    item = {{ElementKind::kRule, *wrapped}};
  }
  n_elements_ -= item.size();  // moved, not added: the copies below count
  for (uint32_t i = 0; i < min; ++i) {
    if (Status s = Count(item.size()); !s.ok()) return s;
    seq->insert(seq->end(), item.begin(), item.end());
  }
  if (max == min) return Status::Ok();
  const uint32_t n_helpers = max == kUnbounded ? 1 : max - min;
  if (rules_.size() + n_helpers > kMaxGrammarRules) {
    return ErrorAt(pos_, "the grammar needs more than {} rules (groups and repetitions count as rules)",
                   kMaxGrammarRules);
  }
  std::vector<uint32_t> helpers;
  for (uint32_t i = 0; i < n_helpers; ++i) {
    Expected<uint32_t> helper = NewHelper(owner);
    if (!helper.ok()) return helper.status();
    helpers.push_back(*helper);
  }
  for (uint32_t i = 0; i < n_helpers; ++i) {
    std::vector<Element> more = item;
    if (max == kUnbounded) {
      more.push_back({ElementKind::kRule, helpers[i]});
    } else if (i + 1 < n_helpers) {
      more.push_back({ElementKind::kRule, helpers[i + 1]});
    }
    if (Status s = Count(more.size()); !s.ok()) return s;
    if (Status s = AddAlternative(helpers[i], std::move(more)); !s.ok()) return s;
    if (Status s = AddAlternative(helpers[i], {}); !s.ok()) return s;
  }
  if (Status s = Count(1); !s.ok()) return s;
  seq->push_back({ElementKind::kRule, helpers[0]});
  return Status::Ok();
}

// One character of a literal or a class: an escape or one UTF-8 sequence.
Status GbnfParser::ParseCodePoint(uint32_t* out) {
  const size_t start = pos_;
  const int c = Peek();
  if (c == '\\') {
    const int e = Peek(1);
    pos_ += 2;
    int n_hex = 0;
    switch (e) {
      case 'n': *out = '\n'; return Status::Ok();
      case 'r': *out = '\r'; return Status::Ok();
      case 't': *out = '\t'; return Status::Ok();
      case '\\': case '"': case '\'': case '[': case ']': case '-': case '^': case '/':
        *out = static_cast<uint32_t>(e);
        return Status::Ok();
      case 'x': n_hex = 2; break;
      case 'u': n_hex = 4; break;
      case 'U': n_hex = 8; break;
      case -1: return ErrorAt(start, "the escape '\\' is unfinished at the end of the text");
      default:
        pos_ = start + 1;
        return ErrorAt(start, "unknown escape '\\' followed by {}", Found());
    }
    uint64_t value = 0;
    for (int i = 0; i < n_hex; ++i) {
      const int digit = HexValue(Peek());
      if (digit < 0) {
        return ErrorAt(pos_, "expected {} hex digits after '\\{}', found {}", n_hex, static_cast<char>(e), Found());
      }
      value = value * 16 + static_cast<uint64_t>(digit);
      ++pos_;
    }
    if (value > kMaxCodePoint) return ErrorAt(start, "the escape names 0x{:X}, past U+10FFFF", value);
    *out = static_cast<uint32_t>(value);
    return Status::Ok();
  }
  // UTF-8: the lead byte gives the length; overlong forms, surrogates and
  // values past U+10FFFF are refused.
  const auto b0 = static_cast<uint32_t>(c);
  int n_more = 0;
  uint32_t value = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    value = b0;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    n_more = 1, value = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n_more = 2, value = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n_more = 3, value = b0 & 0x07, min = 0x10000;
  } else {
    return ErrorAt(start, "invalid UTF-8 in the grammar text (byte 0x{:02X})", b0);
  }
  ++pos_;
  for (int i = 0; i < n_more; ++i) {
    const int b = Peek();
    if (b < 0x80 || b > 0xBF) return ErrorAt(start, "invalid UTF-8 in the grammar text (an unfinished character)");
    value = (value << 6) | (static_cast<uint32_t>(b) & 0x3F);
    ++pos_;
  }
  if (value < min || value > kMaxCodePoint || (value >= 0xD800 && value <= 0xDFFF)) {
    return ErrorAt(start, "invalid UTF-8 in the grammar text (an overlong form or a surrogate)");
  }
  *out = value;
  return Status::Ok();
}

// Every used rule defined, a root, and no left recursion: a rule that can
// reach itself again before reading a character would send a matcher
// around that loop forever.
Status GbnfParser::CheckRules() const {
  for (const RuleDef& rule : rules_) {
    if (!rule.defined) {
      return ErrorAt(rule.first_use, "rule '{}' is used but never defined", rule.name);
    }
  }
  auto root = rule_ids_.find("root");
  if (root == rule_ids_.end()) {
    return Error(ErrorCode::kInvalidArgument, "the grammar has no rule 'root' (the start rule)");
  }
  const size_t n_rules = rules_.size();
  // Nullable rules, in time linear in the grammar: an alternative becomes
  // nullable when its count of not-yet-nullable symbols drops to zero.
  std::vector<uint8_t> nullable(n_rules, 0);
  std::vector<uint32_t> pending;                           // per alternative
  std::vector<uint32_t> alt_rule;                          // per alternative
  std::vector<std::vector<uint32_t>> uses(n_rules);        // rule -> alternatives it appears in (per use)
  std::vector<uint32_t> ready;
  for (uint32_t r = 0; r < n_rules; ++r) {
    for (const std::vector<Element>& alt : rules_[r].alts) {
      const auto a = static_cast<uint32_t>(pending.size());
      bool has_chars = false;
      uint32_t n_rule_refs = 0;
      for (const Element& e : alt) {
        if (e.kind == ElementKind::kChars) has_chars = true;
        if (e.kind == ElementKind::kRule) ++n_rule_refs;
      }
      pending.push_back(has_chars ? UINT32_MAX : n_rule_refs);
      alt_rule.push_back(r);
      if (!has_chars) {
        for (const Element& e : alt) uses[e.value].push_back(a);
        if (n_rule_refs == 0 && !nullable[r]) {
          nullable[r] = 1;
          ready.push_back(r);
        }
      }
    }
  }
  while (!ready.empty()) {
    const uint32_t r = ready.back();
    ready.pop_back();
    for (uint32_t a : uses[r]) {
      if (--pending[a] == 0 && !nullable[alt_rule[a]]) {
        nullable[alt_rule[a]] = 1;
        ready.push_back(alt_rule[a]);
      }
    }
  }
  // Left corners: r -> s when s can come first in r (after nullable rules
  // only). A cycle in this graph is left recursion.
  std::vector<std::vector<uint32_t>> corners(n_rules);
  for (uint32_t r = 0; r < n_rules; ++r) {
    for (const std::vector<Element>& alt : rules_[r].alts) {
      for (const Element& e : alt) {
        if (e.kind != ElementKind::kRule) break;
        corners[r].push_back(e.value);
        if (!nullable[e.value]) break;
      }
    }
  }
  // Iterative depth-first search (no recursion on untrusted depth).
  std::vector<uint8_t> color(n_rules, 0);  // 0 new, 1 on the path, 2 done
  std::vector<std::pair<uint32_t, size_t>> path;
  for (uint32_t start = 0; start < n_rules; ++start) {
    if (color[start] != 0) continue;
    path.push_back({start, 0});
    color[start] = 1;
    while (!path.empty()) {
      auto& [r, next] = path.back();
      if (next == corners[r].size()) {
        color[r] = 2;
        path.pop_back();
        continue;
      }
      const uint32_t s = corners[r][next++];
      if (color[s] == 1) {
        std::string cycle;
        size_t i = 0;
        while (path[i].first != s) ++i;
        for (; i < path.size(); ++i) cycle += rules_[path[i].first].name + " -> ";
        cycle += rules_[s].name;
        return Error(ErrorCode::kInvalidArgument,
                     "rule '{}' is left-recursive: {} can come around without reading a character "
                     "(rules named <rule>_<n> are groups and repetitions inside <rule>; a repetition of "
                     "something that can be empty also loops)",
                     rules_[s].name, cycle);
      }
      if (color[s] == 0) {
        color[s] = 1;
        path.push_back({s, 0});
      }
    }
  }
  return Status::Ok();
}

Grammar::Parts GbnfParser::Build() const {
  Grammar::Parts parts;
  parts.elements.reserve(n_elements_);
  parts.rule_first_alt.push_back(0);
  for (const RuleDef& rule : rules_) {
    for (const std::vector<Element>& alt : rule.alts) {
      parts.alt_starts.push_back(static_cast<uint32_t>(parts.elements.size()));
      parts.elements.insert(parts.elements.end(), alt.begin(), alt.end());
      parts.elements.push_back({ElementKind::kEnd, 0});
    }
    parts.rule_first_alt.push_back(static_cast<uint32_t>(parts.alt_starts.size()));
    parts.rule_names.push_back(rule.name);
  }
  parts.class_first_range.push_back(0);
  for (const std::vector<CodePointRange>& ranges : classes_) {
    parts.ranges.insert(parts.ranges.end(), ranges.begin(), ranges.end());
    parts.class_first_range.push_back(static_cast<uint32_t>(parts.ranges.size()));
  }
  parts.root = rule_ids_.at("root");
  return parts;
}

}  // namespace

Expected<std::shared_ptr<const Grammar>> ParseGbnf(std::string_view text) { return GbnfParser(text).Parse(); }

}  // namespace trit::grammar
