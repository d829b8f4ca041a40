// How deep JSON text nests, read before parsing it: nlohmann's parser
// recurses per level, so untrusted text is refused past a bound first, and
// no input can exhaust the stack.
#pragma once

#include <string_view>

namespace trit {

// Whether no array or object in `text` lies deeper than `max_depth` levels.
// Brackets inside strings (escapes included) do not count; the text need not
// be valid JSON (the parser says what else is wrong).
bool JsonNestingWithin(std::string_view text, int max_depth);

}  // namespace trit
