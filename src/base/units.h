// Sizes and durations as people read them in command output and logs: one
// spelling for every command (`trit show`, `models`, `bench`, `pull`'s
// progress, ...), so the same byte count never prints two ways.
#pragma once

#include <cstdint>
#include <string>

namespace trit {

// Binary units with two decimals: 1185376 -> "1.13 MiB", 7 << 30 ->
// "7.00 GiB"; below 1 KiB the exact count, 512 -> "512 B"; TiB is the
// largest unit (2^50 -> "1024.00 TiB").
std::string FormatBytes(uint64_t bytes);

// A duration as a clock reads, rounded to the second: 65.4 -> "1:05",
// 3725 -> "1:02:05" (hours only when there are any). Negative is "0:00".
std::string FormatDuration(double seconds);

}  // namespace trit
