// Human-readable numbers for command output (sizes and durations:
// base/units.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace trit::cli {

// 292480 -> "292.48K", 6738415616 -> "6.74B".
std::string HumanCount(uint64_t count);
// A string for one line of terminal output: control characters escaped
// (\n, \t, \xNN) and cut to `max_chars` with "..." when longer.
std::string Printable(std::string_view s, size_t max_chars);
// Printable(s) in double quotes, with '"' and '\\' escaped so the quotes stay unambiguous.
std::string Quoted(std::string_view s, size_t max_chars);

}  // namespace trit::cli
