// Typed reads of one metadata value, shared by File's getters and the fuzz
// target. An error names the key and the expected vs actual type, e.g.
//   metadata 'llama.context_length' is string, expected an integer
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "formats/gguf/value.h"

namespace trit::gguf {

// `value` is the key's value, nullptr when the key is absent (kNotFound).
Expected<std::string> ValueAsString(std::string_view key, const Value* value);
// Any integer type (or bool) whose value fits.
Expected<uint64_t> ValueAsUint(std::string_view key, const Value* value);
Expected<int64_t> ValueAsInt(std::string_view key, const Value* value);
// float32, or float64 converted to float.
Expected<float> ValueAsFloat(std::string_view key, const Value* value);
Expected<bool> ValueAsBool(std::string_view key, const Value* value);
// The array inside `value` (not copied: valid as long as `value` is).
Expected<const Array*> ValueAsArray(std::string_view key, const Value* value);

}  // namespace trit::gguf
