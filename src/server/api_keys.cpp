#include "server/api_keys.h"

#include <fmt/format.h>

#include <set>

#include "base/sha256.h"

namespace trit::server {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// Whether `presented` equals `secret`, reading every byte of both whatever
// they hold (the loop's length is the presented key's, which the client knows).
bool SameSecret(std::string_view presented, std::string_view secret) {
  unsigned diff = presented.size() == secret.size() ? 0u : 1u;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i]) ^ static_cast<unsigned char>(secret[i % secret.size()]);
  }
  return diff == 0;
}

}  // namespace

std::string DefaultKeyLabel(std::string_view secret) {
  Sha256 hash;
  hash.Update(secret);
  return "key-" + hash.FinishHex().substr(0, 8);
}

Expected<std::vector<ApiKey>> ParseApiKeyFile(std::string_view text, std::string_view source) {
  std::vector<ApiKey> keys;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && IsSpace(line[i])) ++i;
      const size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      if (i > start) fields.push_back(line.substr(start, i - start));
    }
    if (fields.empty() || fields[0].starts_with('#')) continue;
    if (fields.size() > 2) {
      return Error(ErrorCode::kInvalidArgument,
                   "{}: line {} has {} fields; expected 'KEY' or 'LABEL KEY' (the key is not shown)", source,
                   line_no, fields.size());
    }
    ApiKey key;
    key.secret = std::string(fields.back());
    key.label = fields.size() == 2 ? std::string(fields[0]) : DefaultKeyLabel(key.secret);
    keys.push_back(std::move(key));
  }
  if (keys.empty()) return Error(ErrorCode::kInvalidArgument, "{}: no API key in the file", source);
  return keys;
}

Expected<ApiKeys> ApiKeys::Create(std::vector<ApiKey> keys) {
  std::set<std::string_view> labels, secrets;
  for (const ApiKey& key : keys) {
    if (key.secret.empty()) return Error(ErrorCode::kInvalidArgument, "API key '{}' is empty", key.label);
    for (char c : key.secret) {
      if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
        return Error(ErrorCode::kInvalidArgument,
                     "API key '{}' holds a space or a control character (it must fit an HTTP header)", key.label);
      }
    }
    if (key.label.empty()) return Error(ErrorCode::kInvalidArgument, "an API key has an empty label");
    for (char c : key.label) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                         c == '_' || c == '.';
      if (!plain || key.label.size() > 64) {
        return Error(ErrorCode::kInvalidArgument,
                     "API key label '{}' must be 1 to 64 letters, digits, '-', '_' or '.' (it appears in /metrics)",
                     key.label.size() > 64 ? key.label.substr(0, 64) + "..." : key.label);
      }
    }
    if (!labels.insert(key.label).second) {
      return Error(ErrorCode::kInvalidArgument, "two API keys are labelled '{}'", key.label);
    }
    if (!secrets.insert(key.secret).second) {
      return Error(ErrorCode::kInvalidArgument, "API key '{}' is given twice", key.label);
    }
  }
  ApiKeys out;
  out.keys_ = std::move(keys);
  return out;
}

std::vector<std::string> ApiKeys::labels() const {
  std::vector<std::string> out;
  for (const ApiKey& key : keys_) out.push_back(key.label);
  return out;
}

const std::string* ApiKeys::Match(std::string_view presented) const {
  const std::string* found = nullptr;
  for (const ApiKey& key : keys_) {
    const bool same = SameSecret(presented, key.secret);
    // Both sides of the choice cost the same; no early exit.
    found = same ? &key.label : found;
  }
  return presented.empty() ? nullptr : found;
}

}  // namespace trit::server
