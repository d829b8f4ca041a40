// GGUF metadata values as JSON for `--json` output.
#pragma once

#include <nlohmann/json.hpp>

#include "formats/gguf/value.h"

namespace trit::cli {

// Scalars become JSON numbers/bools/strings. Arrays of at most
// `max_array_items` elements become JSON arrays; longer ones are summarised as
// {"element_type": "string", "length": 512} so that a 150k-token vocabulary
// does not flood the output.
nlohmann::ordered_json ValueToJson(const gguf::Value& value, size_t max_array_items);
nlohmann::ordered_json ArrayToJson(const gguf::Array& array, size_t max_array_items);

// One-line human rendering: strings quoted and escaped, arrays as
// "[512 x string] "<unk>", "<s>", ..." with the first few elements.
std::string ValueToText(const gguf::Value& value, size_t max_chars);

}  // namespace trit::cli
