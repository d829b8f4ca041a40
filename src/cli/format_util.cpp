#include "cli/format_util.h"

#include <fmt/format.h>

namespace trit::cli {

std::string HumanCount(uint64_t count) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "B", "T"};
  if (count < 1000) return fmt::format("{}", count);
  double v = static_cast<double>(count);
  size_t i = 0;
  while (v >= 1000.0 && i + 1 < std::size(kSuffixes)) {
    v /= 1000.0;
    ++i;
  }
  return fmt::format("{:.2f}{}", v, kSuffixes[i]);
}

std::string Printable(std::string_view s, size_t max_chars) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string Quoted(std::string_view s, size_t max_chars) {
  std::string escaped;
  for (char c : s) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "\"" + string + "\"".
  std::string out(1, '"');
  out += Printable(escaped, max_chars);
  out += '"';
  return out;
}

}  // namespace trit::cli
