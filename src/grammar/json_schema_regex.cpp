#include "grammar/json_schema_regex.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

namespace trit::grammar::schema {
namespace {

constexpr int kMaxGroupDepth = 64;

// What a class item matches: `sure` under both regex engines, `maybe` under
// either. A positive class produces the union of `sure`; a negated one the
// complement of the union of `maybe` (so it never produces a character either
// engine would count as excluded).
struct Chars {
  CodeSet sure;
  CodeSet maybe;
};

Chars Exactly(CodeSet s) { return {s, s}; }

const CodeSet& NonAscii() {
  static const CodeSet s = CodeSet::Span(0x80, 0x10FFFF).Intersect(CodeSet::All());
  return s;
}

Chars Digit() { return {CodeSet::Span('0', '9'), CodeSet::Span('0', '9').Union(NonAscii())}; }
Chars Word() {
  CodeSet w = CodeSet::Span('0', '9').Union(CodeSet::Span('a', 'z')).Union(CodeSet::Span('A', 'Z')).Union(CodeSet::Of('_'));
  return {w, w.Union(NonAscii())};
}
Chars Space() {
  // ECMA and Python agree on \t \n \v \f \r and space; Python adds \x1c-\x1f
  // and both add non-ASCII spaces (which are never produced).
  CodeSet sure = CodeSet::Span('\t', '\r').Union(CodeSet::Of(' '));
  return {sure, sure.Union(CodeSet::Span(0x1C, 0x1F)).Union(NonAscii())};
}
Chars Negate(const Chars& c) { return {c.maybe.Complement(), c.sure.Complement()}; }
Chars Dot() {
  // ECMA's `.` excludes \n \r U+2028 U+2029; Python's only \n.
  CodeSet sure = CodeSet::All().Minus(CodeSet::Of('\n')).Minus(CodeSet::Of('\r')).Minus(CodeSet::Span(0x2028, 0x2029));
  return {sure, CodeSet::All().Minus(CodeSet::Of('\n'))};
}

class PatternParser {
 public:
  PatternParser(std::string_view pattern, RuleSet* rules) : pattern_(pattern), rules_(rules) {}

  Expected<std::string> Convert() {
    if (Status s = Decode(); !s.ok()) return s;
    std::vector<std::string> branches;
    while (true) {
      Expected<std::string> branch = Branch(0, /*top=*/true);
      if (!branch) return branch.status();
      branches.push_back(std::move(*branch));
      if (AtEnd()) break;
      if (Peek() == ')') return Fail("unbalanced ')'");
      ++pos_;  // '|'
    }
    std::string body = branches.size() == 1 ? branches[0] : Join(branches);
    return fmt::format("\"\\\"\" {} \"\\\"\"", body);
  }

 private:
  Status Decode() {
    for (size_t i = 0; i < pattern_.size();) {
      const auto b = static_cast<unsigned char>(pattern_[i]);
      int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
      if (n == 0 || i + n > pattern_.size()) return Fail("not valid UTF-8");
      char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
      for (int k = 1; k < n; ++k) {
        const auto cont = static_cast<unsigned char>(pattern_[i + k]);
        if ((cont >> 6) != 2) return Fail("not valid UTF-8");
        c = (c << 6) | (cont & 0x3F);
      }
      const char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
      if (c < min_for_length[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return Fail("not valid UTF-8");
      chars_.push_back(c);
      i += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  Status Fail(std::string_view what) const {
    return Error(ErrorCode::kUnsupported, "pattern '{}': {} (at character {})", pattern_, what, pos_);
  }

  bool AtEnd() const { return pos_ >= chars_.size(); }
  char32_t Peek(size_t ahead = 0) const { return pos_ + ahead < chars_.size() ? chars_[pos_ + ahead] : 0; }

  static std::string Join(const std::vector<std::string>& alts) {
    std::string out = "(";
    for (size_t i = 0; i < alts.size(); ++i) out += (i > 0 ? " | " : "") + alts[i];
    return out + ")";
  }

  // A sequence up to '|' or ')' (or the end). At the top level, `^` may open
  // it and `$` close it; a missing one lets any characters stand there.
  Expected<std::string> Branch(int depth, bool top) {
    std::vector<std::string> parts;
    bool anchored_start = false, anchored_end = false;
    if (top && Peek() == '^' && !AtEnd()) {
      anchored_start = true;
      ++pos_;
    }
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      if (Peek() == '$') {
        ++pos_;
        if (!top || !(AtEnd() || Peek() == '|')) return Fail("'$' is supported only at the end of a top-level branch");
        anchored_end = true;
        break;
      }
      if (Peek() == '^') return Fail("'^' is supported only at the start of a top-level branch");
      Expected<std::string> atom = Quantified(depth);
      if (!atom) return atom.status();
      if (!atom->empty()) parts.push_back(std::move(*atom));
    }
    if (top && !anchored_start) parts.insert(parts.begin(), rules_->JsonChar() + "*");
    if (top && !anchored_end) parts.push_back(rules_->JsonChar() + "*");
    if (parts.empty()) return std::string("\"\"");
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? " " : "") + parts[i];
    return out;
  }

  // One atom and its quantifier.
  Expected<std::string> Quantified(int depth) {
    Expected<std::string> atom = Atom(depth);
    if (!atom) return atom;
    size_t min = 1;
    std::optional<size_t> max = 1;
    const char32_t q = Peek();
    if (q == '*' || q == '+' || q == '?') {
      ++pos_;
      min = q == '+' ? 1 : 0;
      max = q == '?' ? std::optional<size_t>(1) : std::nullopt;
    } else if (q == '{') {
      Status s = Counts(&min, &max);
      if (!s.ok()) return s;
    } else {
      return atom;
    }
    if (Peek() == '?') ++pos_;  // lazy: the same strings
    if (Peek() == '*' || Peek() == '+' || Peek() == '?' || Peek() == '{') return Fail("a quantifier after a quantifier");
    return rules_->Repeat(*atom, min, max);
  }

  Status Counts(size_t* min, std::optional<size_t>* max) {
    ++pos_;  // '{'
    auto number = [&]() -> std::optional<size_t> {
      size_t v = 0;
      size_t n = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        v = v * 10 + (Peek() - '0');
        ++pos_;
        if (++n > 6) return std::nullopt;
      }
      if (n == 0) return std::nullopt;
      return v;
    };
    std::optional<size_t> lo = number();
    if (!lo) return Fail("'{' that is not a quantifier {n}, {n,} or {n,m} (write \\{ for the character)");
    std::optional<size_t> hi = lo;
    if (Peek() == ',') {
      ++pos_;
      hi = Peek() == '}' ? std::nullopt : number();
      if (Peek() != '}' || (hi == std::nullopt && chars_[pos_ - 1] != ',')) {
        return Fail("'{' that is not a quantifier {n}, {n,} or {n,m}");
      }
    }
    if (Peek() != '}') return Fail("'{' that is not a quantifier {n}, {n,} or {n,m}");
    ++pos_;
    if (hi && *hi < *lo) return Fail("a quantifier {n,m} with n > m");
    if (*lo > kMaxSchemaCount || (hi && *hi > kMaxSchemaCount)) {
      return Fail(fmt::format("a repeat count above {}, the most trit expands", kMaxSchemaCount));
    }
    *min = *lo;
    *max = hi;
    return Status::Ok();
  }

  Expected<std::string> Atom(int depth) {
    const char32_t c = Peek();
    switch (c) {
      case '(': return GroupAtom(depth);
      case '[': {
        Expected<Chars> set = Class();
        if (!set) return set.status();
        return Produce(*set);
      }
      case '.':
        ++pos_;
        return Produce(Dot());
      case '\\': {
        Expected<Chars> set = Escape(/*in_class=*/false);
        if (!set) return set.status();
        return Produce(*set);
      }
      case '*': case '+': case '?': return Fail("nothing to repeat");
      case '{': case '}': return Fail("'{' or '}' outside a quantifier (write \\{ or \\} for the character)");
      default:
        ++pos_;
        return Produce(Exactly(CodeSet::Of(c)));
    }
  }

  Expected<std::string> Produce(const Chars& chars) {
    if (chars.sure.empty()) return Fail("a character set that matches no character");
    return JsonCharOf(chars.sure);
  }

  Expected<std::string> GroupAtom(int depth) {
    if (depth >= kMaxGroupDepth) return Fail("groups nested too deeply");
    ++pos_;  // '('
    if (Peek() == '?') {
      if (Peek(1) == ':') {
        pos_ += 2;
      } else if (Peek(1) == '<' && Peek(2) != '=' && Peek(2) != '!') {
        pos_ += 2;
        if (Status s = SkipGroupName(); !s.ok()) return s;
      } else if (Peek(1) == 'P' && Peek(2) == '<') {
        pos_ += 3;
        if (Status s = SkipGroupName(); !s.ok()) return s;
      } else if (Peek(1) == '=' || Peek(1) == '!' || Peek(1) == '<') {
        return Fail("lookaround assertions are not supported");
      } else {
        return Fail("inline flags and other (?...) groups are not supported");
      }
    }
    std::vector<std::string> alts;
    while (true) {
      Expected<std::string> branch = Branch(depth + 1, /*top=*/false);
      if (!branch) return branch;
      alts.push_back(std::move(*branch));
      if (AtEnd()) return Fail("unclosed '('");
      if (Peek() == ')') break;
      ++pos_;  // '|'
    }
    ++pos_;  // ')'
    return Join(alts);
  }

  Status SkipGroupName() {
    while (!AtEnd() && Peek() != '>') {
      const char32_t c = Peek();
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
        return Fail("a group name of letters, digits and '_'");
      }
      ++pos_;
    }
    if (AtEnd()) return Fail("unclosed group name");
    ++pos_;  // '>'
    return Status::Ok();
  }

  Expected<Chars> Class() {
    ++pos_;  // '['
    bool negated = false;
    if (Peek() == '^') {
      negated = true;
      ++pos_;
    }
    // ECMA reads "[]" as an empty class and Python as a literal ']': refused.
    if (Peek() == ']') return Fail("']' first in a class (ECMA and Python read it differently); write \\]");
    Chars all{CodeSet{}, CodeSet{}};
    while (true) {
      if (AtEnd()) return Fail("unclosed '['");
      if (Peek() == ']') {
        ++pos_;
        break;
      }
      if (Peek() == '[') return Fail("'[' inside a class (write \\[)");
      Expected<Chars> first = ClassAtom();
      if (!first) return first;
      if (Peek() == '-' && Peek(1) != ']' && pos_ + 1 < chars_.size()) {
        ++pos_;  // '-'
        Expected<Chars> last = ClassAtom();
        if (!last) return last;
        const auto single = [](const Chars& ch) {
          return ch.sure.ranges().size() == 1 && ch.sure.ranges()[0].first == ch.sure.ranges()[0].second &&
                 ch.maybe.ranges().size() == 1 && ch.maybe.ranges()[0] == ch.sure.ranges()[0];
        };
        if (!single(*first) || !single(*last)) return Fail("a class range whose end is not one character");
        const char32_t lo = first->sure.ranges()[0].first, hi = last->sure.ranges()[0].first;
        if (lo > hi) return Fail("a class range out of order");
        CodeSet range = CodeSet::Span(lo, hi).Intersect(CodeSet::All());
        all.sure = all.sure.Union(range);
        all.maybe = all.maybe.Union(range);
        continue;
      }
      all.sure = all.sure.Union(first->sure);
      all.maybe = all.maybe.Union(first->maybe);
    }
    return negated ? Negate(all) : all;
  }

  Expected<Chars> ClassAtom() {
    if (Peek() == '\\') return Escape(/*in_class=*/true);
    return Exactly(CodeSet::Of(chars_[pos_++]));
  }

  Expected<Chars> Escape(bool in_class) {
    ++pos_;  // '\'
    if (AtEnd()) return Fail("a '\\' at the end");
    const char32_t c = chars_[pos_++];
    switch (c) {
      case 'd': return Digit();
      case 'D': return Negate(Digit());
      case 'w': return Word();
      case 'W': return Negate(Word());
      case 's': return Space();
      case 'S': return Negate(Space());
      case 't': return Exactly(CodeSet::Of('\t'));
      case 'n': return Exactly(CodeSet::Of('\n'));
      case 'r': return Exactly(CodeSet::Of('\r'));
      case 'f': return Exactly(CodeSet::Of('\f'));
      case 'v': return Exactly(CodeSet::Of('\v'));
      case 'b':
        if (in_class) return Exactly(CodeSet::Of('\b'));
        return Fail("word-boundary assertions (\\b) are not supported");
      case 'x': return Hex(2);
      case 'u': return Hex(4);
      default: break;
    }
    if (c == 'B') return Fail("word-boundary assertions (\\B) are not supported");
    if (c >= '0' && c <= '9') return Fail("backreferences and octal escapes are not supported");
    if (c == 'k') return Fail("named backreferences are not supported");
    if (c == 'p' || c == 'P') return Fail("Unicode property escapes are not supported");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) {
      return Fail("an escape that ECMA and Python do not read alike");
    }
    return Exactly(CodeSet::Of(c));  // escaped punctuation: the character itself
  }

  Expected<Chars> Hex(int n) {
    char32_t v = 0;
    for (int i = 0; i < n; ++i) {
      const char32_t h = Peek();
      int d = h >= '0' && h <= '9' ? static_cast<int>(h - '0')
              : h >= 'a' && h <= 'f' ? static_cast<int>(h - 'a' + 10)
              : h >= 'A' && h <= 'F' ? static_cast<int>(h - 'A' + 10) : -1;
      if (d < 0) return Fail(fmt::format("\\{} needs {} hex digits", n == 2 ? 'x' : 'u', n));
      v = v * 16 + static_cast<char32_t>(d);
      ++pos_;
    }
    if (v >= 0xD800 && v <= 0xDFFF) return Fail("a surrogate code point");
    return Exactly(CodeSet::Of(v));
  }

  std::string_view pattern_;
  RuleSet* rules_;
  std::vector<char32_t> chars_;
  size_t pos_ = 0;
};

}  // namespace

Expected<std::string> PatternToGbnf(std::string_view pattern, RuleSet* rules) {
  return PatternParser(pattern, rules).Convert();
}

}  // namespace trit::grammar::schema
