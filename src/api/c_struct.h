// Option and result structs across the C boundary: each starts with
// `struct_size`, so a program built against an older (smaller) or newer
// (larger) header works with this library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "api/errors.h"

namespace trit::api {

// Copies the caller's `in` over `*out` (which holds the defaults): the
// fields within in->struct_size are the caller's, the rest keep their
// defaults. A struct smaller than `min_size` (the first ABI version's size:
// an uninitialised struct_size, usually) is refused; a larger one is
// accepted only when every byte past what this library knows is zero (a
// newer program that set no field this library lacks).
template <typename T>
trit_status ReadCStruct(const T* in, const char* name, size_t min_size, T* out) noexcept {
  if (in->struct_size < min_size) {
    return Fail(TRIT_STATUS_INVALID_ARGUMENT,
                std::string(name) + ".struct_size is " + std::to_string(in->struct_size) + ", expected at least " +
                    std::to_string(min_size) + " (initialise the struct with its _default function)");
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = sizeof(T); i < in->struct_size; ++i) {
    if (bytes[i] != 0) {
      return Fail(TRIT_STATUS_UNSUPPORTED, std::string(name) + " sets a field (byte " + std::to_string(i) +
                                               ") this library (ABI " + std::to_string(TRIT_ABI_VERSION) +
                                               ", " + std::to_string(sizeof(T)) + " bytes) does not know");
    }
  }
  std::memcpy(static_cast<void*>(out), in, std::min(in->struct_size, sizeof(T)));
  out->struct_size = sizeof(T);
  return TRIT_STATUS_OK;
}

// Writes `value` into the caller's `*out`, no further than out->struct_size
// bytes (struct_size itself is left as the caller set it).
template <typename T>
trit_status WriteCStruct(const T& value, const char* name, size_t min_size, T* out) noexcept {
  if (out->struct_size < min_size) {
    return Fail(TRIT_STATUS_INVALID_ARGUMENT, std::string(name) + ".struct_size is " +
                                                  std::to_string(out->struct_size) + ", expected at least " +
                                                  std::to_string(min_size) + " (set it to sizeof(" + name + "))");
  }
  const size_t n = std::min(out->struct_size, sizeof(T));
  constexpr size_t kHead = sizeof(size_t);  // struct_size
  std::memcpy(reinterpret_cast<unsigned char*>(out) + kHead, reinterpret_cast<const unsigned char*>(&value) + kHead,
              n - kHead);
  return TRIT_STATUS_OK;
}

}  // namespace trit::api
