#include "formats/binfmt/image.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace trit::binfmt {

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kElf: return "ELF";
    case Format::kPe: return "PE";
    case Format::kMachO: return "Mach-O";
  }
  return "?";
}

std::string_view DepKindName(DepKind kind) {
  switch (kind) {
    case DepKind::kNeeded: return "needed";
    case DepKind::kDelay: return "delay";
    case DepKind::kWeak: return "weak";
    case DepKind::kReexport: return "reexport";
  }
  return "?";
}

int CompareVersions(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const size_t ei = std::min(a.find('.', i), a.size());
    const size_t ej = std::min(b.find('.', j), b.size());
    const std::string_view pa = i < a.size() ? a.substr(i, ei - i) : std::string_view();
    const std::string_view pb = j < b.size() ? b.substr(j, ej - j) : std::string_view();
    auto numeric = [](std::string_view s) {
      if (s.empty() || s.size() > 18) return false;
      for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      }
      return true;
    };
    if (numeric(pa) && numeric(pb)) {
      const unsigned long long va = std::stoull(std::string(pa));
      const unsigned long long vb = std::stoull(std::string(pb));
      if (va != vb) return va < vb ? -1 : 1;
    } else if (pa != pb) {
      if (pa.empty()) return -1;
      if (pb.empty()) return 1;
      return pa < pb ? -1 : 1;
    }
    i = ei + 1;
    j = ej + 1;
  }
  return 0;
}

}  // namespace trit::binfmt
