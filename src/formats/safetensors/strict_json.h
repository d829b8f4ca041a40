// JSON text of safetensors headers and index files, parsed into nlohmann's
// DOM with what the DOM would hide refused: the DOM keeps only the last of
// two equal keys, so a tensor listed twice would silently lose one entry.
// Private to formats/safetensors: only its .cpp files include this, so the
// public headers stay free of JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::safetensors {

struct StrictJson {
  nlohmann::json doc;
  // The first key given twice in one object: the keys of the objects that
  // enclose it, from the top, then the key itself. nullopt when none was.
  std::optional<std::vector<std::string>> duplicate_key;
};

// Parses `text` after checking that it nests at most `max_depth` levels.
// Errors are kCorrupt: "<what> nests deeper than N levels", "<what> is not
// valid JSON: <the parser's message>".
Expected<StrictJson> ParseStrictJson(std::string_view text, int max_depth, std::string_view what);

// `text` as a message shows it: in single quotes, bytes outside printable
// ASCII (and ' and \) as \xNN, cut after 120 bytes with "...".
std::string Quoted(std::string_view text);

// What a JSON value is, for "expected X, found Y": a number as written, "the
// string '...'", "an object", "an array", "null", "boolean".
std::string Found(const nlohmann::json& v);

}  // namespace trit::safetensors
