#include "tokenizer/byte_unicode.h"

#include <array>

#include <fmt/format.h>

namespace trit::tokenizer {
namespace {

// True for the bytes GPT-2 keeps as their own code point.
constexpr bool IsPrintableByte(int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; }

struct ByteTables {
  std::array<uint32_t, 256> codepoint{};
  std::array<std::array<char, 3>, 256> utf8{};  // 1 or 2 bytes (every code point is < U+0800)
  std::array<uint8_t, 256> utf8_len{};
  std::array<int16_t, 0x144> byte_of_codepoint{};  // -1: spells no byte; U+0143 is the last used
};

constexpr ByteTables MakeTables() {
  ByteTables t;
  for (auto& b : t.byte_of_codepoint) b = -1;
  uint32_t next = 0x100;
  for (int b = 0; b < 256; ++b) {
    const uint32_t cp = IsPrintableByte(b) ? static_cast<uint32_t>(b) : next++;
    t.codepoint[b] = cp;
    t.byte_of_codepoint[cp] = static_cast<int16_t>(b);
    if (cp < 0x80) {
      t.utf8[b] = {static_cast<char>(cp), 0, 0};
      t.utf8_len[b] = 1;
    } else {
      t.utf8[b] = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F)), 0};
      t.utf8_len[b] = 2;
    }
  }
  return t;
}

constexpr ByteTables kTables = MakeTables();
static_assert(kTables.codepoint[' '] == 0x120 && kTables.codepoint['\n'] == 0x10A && kTables.codepoint[0xAD] == 0x143);

// Decodes one UTF-8 sequence at text[*i]; returns the code point and advances
// *i, or returns -1 and advances by one byte when the bytes are not valid
// UTF-8 (truncated, overlong, surrogate, above U+10FFFF).
int64_t NextCodepoint(std::string_view text, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(*i);
  int n = 0;
  uint32_t cp = 0;
  if (b0 < 0x80) {
    ++*i;
    return b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07;
  } else {
    ++*i;
    return -1;
  }
  if (*i + n > text.size()) {
    ++*i;
    return -1;
  }
  for (int k = 1; k < n; ++k) {
    const uint8_t b = byte(*i + k);
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*i;
    return -1;
  }
  *i += n;
  return cp;
}

}  // namespace

uint32_t ByteToCodepoint(uint8_t b) { return kTables.codepoint[b]; }

int CodepointToByte(uint32_t cp) {
  return cp < kTables.byte_of_codepoint.size() ? kTables.byte_of_codepoint[cp] : -1;
}

void AppendByteEncoded(std::string_view bytes, std::string* out) {
  for (const char c : bytes) {
    const uint8_t b = static_cast<uint8_t>(c);
    out->append(kTables.utf8[b].data(), kTables.utf8_len[b]);
  }
}

void AppendByteDecoded(std::string_view text, std::string* out) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    const int64_t cp = NextCodepoint(text, &i);
    const int b = cp < 0 ? -1 : CodepointToByte(static_cast<uint32_t>(cp));
    if (b >= 0) {
      out->push_back(static_cast<char>(b));
      continue;
    }
    *out += "[UNK_BYTE_0x";
    for (size_t k = start; k < i; ++k) *out += fmt::format("{:02x}", static_cast<uint8_t>(text[k]));
    *out += text;
    *out += ']';
  }
}

}  // namespace trit::tokenizer
