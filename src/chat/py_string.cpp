#include "chat/py_string.h"

namespace trit::chat::py {
namespace {

size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

uint32_t Decode(std::string_view cp) {
  const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(cp[i])); };
  switch (cp.size()) {
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default: return b(0);
  }
}

char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; }
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

std::vector<std::string_view> CodePoints(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t n = SequenceLength(static_cast<unsigned char>(s[i]));
    if (i + n > s.size()) n = 1;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        n = 1;
        break;
      }
    }
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

size_t Length(std::string_view s) { return CodePoints(s).size(); }

bool IsSpace(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

std::string Strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right) {
  const std::vector<std::string_view> cps = CodePoints(s);
  std::vector<std::string_view> strip_set;
  if (chars) strip_set = CodePoints(*chars);
  const auto strippable = [&](std::string_view cp) {
    if (!chars) return IsSpace(Decode(cp));
    for (std::string_view c : strip_set) {
      if (c == cp) return true;
    }
    return false;
  };
  size_t begin = 0;
  size_t end = cps.size();
  if (left) {
    while (begin < end && strippable(cps[begin])) ++begin;
  }
  if (right) {
    while (end > begin && strippable(cps[end - 1])) --end;
  }
  if (begin == end) return "";
  const size_t from = static_cast<size_t>(cps[begin].data() - s.data());
  const size_t to = static_cast<size_t>(cps[end - 1].data() + cps[end - 1].size() - s.data());
  return std::string(s.substr(from, to - from));
}

std::vector<std::string> Split(std::string_view s, const std::optional<std::string>& sep, int64_t max_split) {
  std::vector<std::string> out;
  if (sep) {
    size_t start = 0;
    while (max_split < 0 || static_cast<int64_t>(out.size()) < max_split) {
      const size_t hit = s.find(*sep, start);
      if (hit == std::string_view::npos) break;
      out.emplace_back(s.substr(start, hit - start));
      start = hit + sep->size();
    }
    out.emplace_back(s.substr(start));
    return out;
  }
  const std::vector<std::string_view> cps = CodePoints(s);
  size_t i = 0;
  while (true) {
    while (i < cps.size() && IsSpace(Decode(cps[i]))) ++i;
    if (i >= cps.size()) break;
    const size_t from = static_cast<size_t>(cps[i].data() - s.data());
    if (max_split >= 0 && static_cast<int64_t>(out.size()) >= max_split) {
      // The rest, with trailing whitespace removed, is the last piece.
      out.push_back(Strip(s.substr(from), std::nullopt, false, true));
      break;
    }
    size_t j = i;
    while (j < cps.size() && !IsSpace(Decode(cps[j]))) ++j;
    const size_t to = j < cps.size() ? static_cast<size_t>(cps[j].data() - s.data()) : s.size();
    out.emplace_back(s.substr(from, to - from));
    i = j;
  }
  return out;
}

std::vector<std::string> SplitLines(std::string_view s) {
  std::vector<std::string> out;
  const std::vector<std::string_view> cps = CodePoints(s);
  std::string line;
  for (size_t i = 0; i < cps.size(); ++i) {
    const uint32_t cp = Decode(cps[i]);
    const bool is_break = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C || cp == 0x1D ||
                          cp == 0x1E || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!is_break) {
      line += cps[i];
      continue;
    }
    if (cp == '\r' && i + 1 < cps.size() && cps[i + 1] == "\n") ++i;
    out.push_back(std::move(line));
    line.clear();
  }
  if (!line.empty()) out.push_back(std::move(line));
  return out;
}

std::string Replace(std::string_view s, std::string_view old_text, std::string_view new_text, int64_t count) {
  std::string out;
  int64_t done = 0;
  if (old_text.empty()) {  // Python inserts new_text around every code point
    const std::vector<std::string_view> cps = CodePoints(s);
    for (std::string_view cp : cps) {
      if (count < 0 || done < count) {
        out += new_text;
        ++done;
      }
      out += cp;
    }
    if (count < 0 || done < count) out += new_text;
    return out;
  }
  size_t start = 0;
  while (count < 0 || done < count) {
    const size_t hit = s.find(old_text, start);
    if (hit == std::string_view::npos) break;
    out += s.substr(start, hit - start);
    out += new_text;
    start = hit + old_text.size();
    ++done;
  }
  out += s.substr(start);
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

std::string Capitalize(std::string_view s) {
  std::string out = Lower(s);
  if (!out.empty()) out[0] = AsciiUpper(out[0]);
  return out;
}

std::string TitleMethod(std::string_view s) {
  std::string out(s);
  bool previous_cased = false;
  for (char& c : out) {
    if (IsAsciiLetter(c)) {
      c = previous_cased ? AsciiLower(c) : AsciiUpper(c);
      previous_cased = true;
    } else {
      previous_cased = false;
    }
  }
  return out;
}

std::string TitleFilter(std::string_view s) {
  // jinja2: "".join(w[0].upper() + w[1:].lower() for w in re.split(r"([-\s({\[<]+)", s) if w)
  std::string out;
  bool word_start = true;
  for (std::string_view cp : CodePoints(s)) {
    const uint32_t c = Decode(cp);
    const bool separator = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || IsSpace(c);
    if (separator) {
      out += cp;
      word_start = true;
    } else if (word_start) {
      out += cp.size() == 1 ? std::string(1, AsciiUpper(cp[0])) : std::string(cp);
      word_start = false;
    } else {
      out += cp.size() == 1 ? std::string(1, AsciiLower(cp[0])) : std::string(cp);
    }
  }
  return out;
}

}  // namespace trit::chat::py
