#include "formats/binfmt/binary_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace trit::binfmt {

Status BinaryView::ReadCString(uint64_t offset, uint64_t limit, std::string* out, std::string_view what) const {
  limit = std::min<uint64_t>(limit, bytes_.size());
  if (offset >= limit) {
    return Error(ErrorCode::kCorrupt, "{}: string offset {} is outside its table (ends at byte {})", what, offset,
                 limit);
  }
  const uint8_t* begin = bytes_.data() + offset;
  const uint8_t* end = bytes_.data() + limit;
  const uint8_t* nul = std::find(begin, end, uint8_t{0});
  if (nul == end) {
    return Error(ErrorCode::kCorrupt, "{}: string at byte {} has no terminator before byte {}", what, offset, limit);
  }
  out->assign(reinterpret_cast<const char*>(begin), static_cast<size_t>(nul - begin));
  return Status::Ok();
}

std::string Printable(std::string_view text, size_t max_len) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_len; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > max_len) out += "...";
  return out;
}

}  // namespace trit::binfmt
