#include "store/model_name.h"

#include <cctype>

namespace trit::store {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

}  // namespace

Status ValidateModelName(std::string_view name) {
  if (name.empty()) return Error(ErrorCode::kInvalidArgument, "model name is empty");
  if (name.size() > kMaxModelNameLength) {
    return Error(ErrorCode::kInvalidArgument, "model name is {} characters long, at most {} allowed", name.size(),
                 kMaxModelNameLength);
  }
  if (std::isalnum(static_cast<unsigned char>(name[0])) == 0) {
    return Error(ErrorCode::kInvalidArgument,
                 "model name '{}' must start with a letter or digit (names stay inside the models directory)",
                 name);
  }
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i])) {
      return Error(ErrorCode::kInvalidArgument,
                   "model name has character 0x{:02x} at position {}: only letters, digits, '.', '_' and '-' "
                   "are allowed",
                   static_cast<unsigned char>(name[i]), i);
    }
  }
  return Status::Ok();
}

Expected<std::string> NameFromSource(std::string_view source) {
  std::string_view s = source;
  if (const size_t q = s.find_first_of("?#"); q != std::string_view::npos && s.find("://") != std::string_view::npos) {
    s = s.substr(0, q);
  }
  if (const size_t scheme = s.find("://"); scheme != std::string_view::npos) {
    s = s.substr(scheme + 3);
    // A URL names its file after the host: "https://host/" has none.
    s = s.find('/') == std::string_view::npos ? std::string_view() : s.substr(s.find('/'));
  }
  while (!s.empty() && s.back() == '/') s.remove_suffix(1);
  if (const size_t slash = s.find_last_of('/'); slash != std::string_view::npos) s = s.substr(slash + 1);
  if (s.size() >= 5) {
    std::string lower;
    for (char c : s.substr(s.size() - 5)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == ".gguf") s.remove_suffix(5);
  }
  std::string name;
  for (char c : s) {
    name += IsNameChar(c) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  }
  // Leading characters that may not start a name go.
  while (!name.empty() && std::isalnum(static_cast<unsigned char>(name[0])) == 0) name.erase(0, 1);
  if (name.size() > kMaxModelNameLength) name.resize(kMaxModelNameLength);
  if (Status st = ValidateModelName(name); !st.ok()) {
    return Error(ErrorCode::kInvalidArgument, "cannot derive a model name from '{}'; give one with --name",
                 source);
  }
  return name;
}

}  // namespace trit::store
