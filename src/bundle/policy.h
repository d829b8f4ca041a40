// The policy `trit bundle check` enforces, read from a JSON file (format in
// docs/BUNDLE.md). Unknown keys and wrong types are errors naming the field,
// so a misspelt rule can never be silently ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::bundle {

enum class RpathRule { kAny, kRelative };

struct BundlePolicy {
  std::vector<std::string> forbid;   // globs of library / file names that must not appear
  std::vector<std::string> require;  // "dir/file" relative to a bundle root, or a file name anywhere in it
  std::vector<std::string> system;   // globs of dependencies the OS provides (not shipped)
  std::optional<std::string> max_glibc;  // "2.31": no ELF may need GLIBC_ newer than this
  bool one_cxx_runtime = false;
  RpathRule rpath = RpathRule::kAny;
};

// Parses the policy text; errors are kInvalidArgument and name the field.
Expected<BundlePolicy> ParseBundlePolicy(const std::string& json_text);

// fnmatch(3) glob match; case-insensitive when `fold_case` (PE names).
bool GlobMatch(const std::string& pattern, const std::string& name, bool fold_case);

}  // namespace trit::bundle
