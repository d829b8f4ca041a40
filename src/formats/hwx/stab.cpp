#include "formats/hwx/stab.h"

#include <charconv>
#include <vector>

namespace trit::hwx {
namespace {

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::optional<TensorStab> ParseTensorStab(std::string_view text) {
  const size_t colon = text.find(":t");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  TensorStab t;
  t.name = std::string(text.substr(0, colon));
  const std::vector<std::string_view> fields = Split(text.substr(colon + 1), ':');
  if (fields.size() != 5) return std::nullopt;
  static constexpr char kDims[4] = {'n', 'c', 'h', 'w'};
  for (int d = 0; d < 4; ++d) {
    // "[tID=]ar1;0;EXTENT;ID=sSTRIDEd"
    const std::vector<std::string_view> parts = Split(fields[d], ';');
    if (parts.size() != 4 || !parts[0].ends_with("ar1") || parts[1] != "0") return std::nullopt;
    if (!ParseNumber(parts[2], &t.extent[d])) return std::nullopt;
    const std::string_view s = parts[3];
    const size_t eq = s.find("=s");
    if (eq == std::string_view::npos || s.size() < eq + 4 || s.back() != kDims[d]) return std::nullopt;
    if (!ParseNumber(s.substr(eq + 2, s.size() - eq - 3), &t.stride[d])) return std::nullopt;
  }
  if (!ParseNumber(fields[4], &t.type_id)) return std::nullopt;
  return t;
}

std::optional<TypeStab> ParseTypeStab(std::string_view text) {
  const size_t colon = text.find(":t");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view rest = text.substr(colon + 2);
  const size_t eq = rest.find('=');
  if (eq == std::string_view::npos || rest.substr(eq + 1).starts_with("ar")) return std::nullopt;
  TypeStab t;
  t.name = std::string(text.substr(0, colon));
  if (!ParseNumber(rest.substr(0, eq), &t.id)) return std::nullopt;
  return t;
}

}  // namespace trit::hwx
