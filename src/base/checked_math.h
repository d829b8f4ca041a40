// Overflow-safe arithmetic for sizes and offsets read from files. Every
// count * size and offset + length taken from untrusted bytes goes through
// these before it is compared with a file size or used to allocate.
#pragma once

#include <cstdint>
#include <optional>

namespace trit {

inline std::optional<uint64_t> CheckedAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<uint64_t> CheckedMul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Rounds up to a multiple of `alignment` (> 0); nullopt on overflow.
inline std::optional<uint64_t> CheckedAlignUp(uint64_t value, uint64_t alignment) {
  const uint64_t rem = value % alignment;
  if (rem == 0) return value;
  return CheckedAdd(value, alignment - rem);
}

}  // namespace trit
