// The API keys `trit serve` accepts: --api-key / TRIT_API_KEY and the lines
// of --api-key-file. Each key has a label that /metrics and messages use in
// its place, so a key is never printed, logged or echoed back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::server {

struct ApiKey {
  std::string label;
  std::string secret;
};

// "key-" and the first 8 hex digits of the key's SHA-256: a stable name for a
// key given without a label, which says nothing useful about the key itself.
std::string DefaultKeyLabel(std::string_view secret);

// Reads a key file: one key per line, either "KEY" or "LABEL KEY" (separated
// by spaces or tabs); blank lines and lines starting with '#' are skipped.
// Errors name `source` and the line, never the key.
Expected<std::vector<ApiKey>> ParseApiKeyFile(std::string_view text, std::string_view source);

class ApiKeys {
 public:
  ApiKeys() = default;  // no keys: every request is let through
  // Refuses an empty key, a key with whitespace or control characters, a
  // label other than 1-64 letters, digits, '-', '_' or '.', and two keys or
  // two labels that are the same (named by label).
  static Expected<ApiKeys> Create(std::vector<ApiKey> keys);

  bool empty() const { return keys_.empty(); }
  size_t size() const { return keys_.size(); }
  std::vector<std::string> labels() const;
  // The label of the key `presented` is, or nullptr. Every key is compared in
  // full, whatever matched before, so the time taken says nothing about
  // which key matched or how much of one did.
  const std::string* Match(std::string_view presented) const;

 private:
  std::vector<ApiKey> keys_;
};

}  // namespace trit::server
