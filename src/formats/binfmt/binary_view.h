// Bounds-checked random-access reads over untrusted bytes in either byte
// order, for the executable formats (ELF, PE, Mach-O), whose tables are
// reached through offsets rather than read front to back as GGUF is (the
// GGUF reader's sequential ByteCursor is in gguf/byte_cursor.h). Every read
// checks the range first; a failed read returns one error naming the field,
// the byte offset and the size of the bytes viewed.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"

namespace trit::binfmt {

enum class ByteOrder { kLittle, kBig };

class BinaryView {
 public:
  BinaryView() = default;
  BinaryView(std::span<const uint8_t> bytes, ByteOrder order) : bytes_(bytes), order_(order) {}

  uint64_t size() const { return bytes_.size(); }
  ByteOrder order() const { return order_; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // Ok when [offset, offset + n) lies inside the bytes; else
  // "truncated: WHAT at byte P needs N bytes, file has S".
  Status Need(uint64_t offset, uint64_t n, std::string_view what) const {
    if (offset <= bytes_.size() && n <= bytes_.size() - offset) return Status::Ok();
    return Error(ErrorCode::kCorrupt, "truncated: {} at byte {} needs {} bytes, file has {}", what, offset, n,
                 bytes_.size());
  }

  // One unsigned integer of the view's byte order.
  template <typename T>
  Status Read(uint64_t offset, T* out, std::string_view what) const {
    static_assert(std::is_unsigned_v<T>);
    if (Status s = Need(offset, sizeof(T), what); !s.ok()) return s;
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      const size_t src = order_ == ByteOrder::kLittle ? i : sizeof(T) - 1 - i;
      value |= static_cast<T>(static_cast<T>(bytes_[offset + src]) << (8 * i));
    }
    *out = value;
    return Status::Ok();
  }

  // A NUL-terminated string starting at `offset`, ending before `limit`
  // (an offset no larger than size()); a missing terminator is an error.
  Status ReadCString(uint64_t offset, uint64_t limit, std::string* out, std::string_view what) const;

  // The sub-view [offset, offset + n) in the same byte order (after Need).
  BinaryView Sub(uint64_t offset, uint64_t n) const { return BinaryView(bytes_.subspan(offset, n), order_); }

 private:
  std::span<const uint8_t> bytes_;
  ByteOrder order_ = ByteOrder::kLittle;
};

// `text` as it should appear inside quotes in an error message: bytes outside
// printable ASCII escaped as \xNN, cut to `max_len` bytes with "..." appended.
std::string Printable(std::string_view text, size_t max_len = 96);

}  // namespace trit::binfmt
