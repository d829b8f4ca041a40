// Bounds-checked little-endian reads over untrusted bytes, for the GGUF
// parser. Every read checks the bytes left first; a failed read returns an
// error naming the field, the byte offset and the file size.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"

namespace trit::gguf {

// `text` as it should appear inside quotes in an error message: bytes outside
// printable ASCII escaped as \xNN, cut to `max_len` bytes with "..." appended.
std::string Printable(std::string_view text, size_t max_len = 96);

class ByteCursor {
 public:
  explicit ByteCursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  // Ok when `n` more bytes are there; else "truncated at byte P reading WHAT (need N bytes, file has S)".
  // `suffix` is appended to `what` ("key" + " length"), so callers need not format a label per read.
  Status Need(uint64_t n, std::string_view what, std::string_view suffix = {}) const {
    if (n <= remaining()) return Status::Ok();
    return Error(ErrorCode::kCorrupt, "truncated at byte {} reading {}{} (need {} bytes, file has {})",
                 pos_, what, suffix, n, bytes_.size());
  }

  // Reads one little-endian scalar (the host is little-endian; see reader.cpp).
  template <typename T>
  Status Read(T* out, std::string_view what, std::string_view suffix = {}) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (Status s = Need(sizeof(T), what, suffix); !s.ok()) return s;
    std::memcpy(out, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Status::Ok();
  }

  // A view of the next `n` bytes (after Need(n) succeeded) and advances past them.
  std::span<const uint8_t> Take(uint64_t n) {
    const auto view = bytes_.subspan(pos_, n);
    pos_ += n;
    return view;
  }

  // A GGUF string: uint64 length, then that many bytes (no terminator).
  Status ReadString(std::string* out, std::string_view what) {
    uint64_t length = 0;
    if (Status s = Read(&length, what, " length"); !s.ok()) return s;
    if (Status s = Need(length, what); !s.ok()) return s;
    const auto view = Take(length);
    out->assign(reinterpret_cast<const char*>(view.data()), view.size());
    return Status::Ok();
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

}  // namespace trit::gguf
