#include "grammar/grammar.h"

#include <algorithm>

#include <fmt/format.h>

namespace trit::grammar {

Grammar::Grammar(Parts parts) : parts_(std::move(parts)) {
  ascii_.assign(2 * n_classes(), 0);
  for (uint32_t cls = 0; cls < n_classes(); ++cls) {
    for (const CodePointRange& r : class_ranges(cls)) {
      for (uint32_t c = r.first; c <= r.last && c < 128; ++c) ascii_[2 * cls + (c >> 6)] |= uint64_t{1} << (c & 63);
    }
    matches_any_.push_back(ClassIntersects(cls, 0, 0xD7FF) || ClassIntersects(cls, 0xE000, kMaxCodePoint) ? 1 : 0);
  }
}

bool Grammar::ClassContainsSlow(uint32_t cls, uint32_t c) const {
  return ClassIntersects(cls, c, c);
}

bool Grammar::ClassIntersects(uint32_t cls, uint32_t first, uint32_t last) const {
  const std::span<const CodePointRange> ranges = class_ranges(cls);
  // The first range that ends at or after `first`.
  auto it = std::partition_point(ranges.begin(), ranges.end(),
                                 [first](const CodePointRange& r) { return r.last < first; });
  return it != ranges.end() && it->first <= last;
}

namespace {

void AppendCodePoint(std::string* out, uint32_t c, bool in_class) {
  switch (c) {
    case '\n': *out += "\\n"; return;
    case '\r': *out += "\\r"; return;
    case '\t': *out += "\\t"; return;
    case '\\': *out += "\\\\"; return;
    default: break;
  }
  if ((!in_class && c == '"') || (in_class && (c == ']' || c == '[' || c == '-' || c == '^'))) {
    *out += '\\';
    *out += static_cast<char>(c);
  } else if (c >= 0x20 && c < 0x7F) {
    *out += static_cast<char>(c);
  } else if (c < 0x100) {
    *out += fmt::format("\\x{:02X}", c);
  } else if (c < 0x10000) {
    *out += fmt::format("\\u{:04X}", c);
  } else {
    *out += fmt::format("\\U{:08X}", c);
  }
}

}  // namespace

std::string Grammar::ToString() const {
  std::string out;
  for (uint32_t rule = 0; rule < n_rules(); ++rule) {
    out += rule_name(rule);
    out += " ::=";
    bool first_alt = true;
    for (uint32_t pos : alternatives(rule)) {
      if (!first_alt) out += " |";
      first_alt = false;
      bool in_literal = false;
      if (element(pos).kind == ElementKind::kEnd) out += " \"\"";  // an empty alternative
      for (;; ++pos) {
        const Element& e = element(pos);
        const bool single = e.kind == ElementKind::kChars && class_ranges(e.value).size() == 1 &&
                            class_ranges(e.value)[0].first == class_ranges(e.value)[0].last;
        if (in_literal && !single) {
          out += '"';
          in_literal = false;
        }
        if (e.kind == ElementKind::kEnd) break;
        if (single) {
          if (!in_literal) out += " \"";
          in_literal = true;
          AppendCodePoint(&out, class_ranges(e.value)[0].first, /*in_class=*/false);
        } else if (e.kind == ElementKind::kRule) {
          out += ' ';
          out += rule_name(e.value);
        } else {
          const std::span<const CodePointRange> ranges = class_ranges(e.value);
          if (ranges.size() == 1 && ranges[0].first == 0 && ranges[0].last == kMaxCodePoint) {
            out += " .";
            continue;
          }
          out += " [";
          for (const CodePointRange& r : ranges) {
            AppendCodePoint(&out, r.first, /*in_class=*/true);
            if (r.last != r.first) {
              out += '-';
              AppendCodePoint(&out, r.last, /*in_class=*/true);
            }
          }
          out += ']';
        }
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace trit::grammar
