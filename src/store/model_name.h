// Names of models in the store. A name is also a file name inside the
// models directory, so it must not be able to leave it: only letters,
// digits, '.', '_' and '-', starting with a letter or digit, at most 128
// characters (so "..", "a/b" and "" are refused).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace trit::store {

inline constexpr size_t kMaxModelNameLength = 128;

// OK, or an error saying which character or rule the name breaks.
Status ValidateModelName(std::string_view name);

// The name a pull gives a file when no --name is given: the last path
// segment of the source (URL query and fragment dropped) without ".gguf",
// lower-cased, other characters than the allowed ones replaced by '-'.
// An error when nothing usable is left.
Expected<std::string> NameFromSource(std::string_view source);

}  // namespace trit::store
