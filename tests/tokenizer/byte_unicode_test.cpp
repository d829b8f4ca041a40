// GPT-2's byte <-> code point mapping, checked against its definition
// (bytes_to_unicode in OpenAI's encoder.py) and landmarks of byte-level
// vocabularies ('Ġ' is the space, 'Ċ' the newline).
#include "tokenizer/byte_unicode.h"

#include <gtest/gtest.h>

#include <set>

namespace trit::tokenizer {
namespace {

TEST(ByteUnicode, MatchesBytesToUnicode) {
  // encoder.py: bs = printable ranges; the others get 256 + n in byte order.
  int n = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    const uint32_t expected = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + n++);
    EXPECT_EQ(ByteToCodepoint(static_cast<uint8_t>(b)), expected) << b;
    EXPECT_EQ(CodepointToByte(expected), b);
  }
  EXPECT_EQ(n, 68);
  EXPECT_EQ(ByteToCodepoint(' '), 0x120u);   // 'Ġ'
  EXPECT_EQ(ByteToCodepoint('\n'), 0x10Au);  // 'Ċ'
  EXPECT_EQ(ByteToCodepoint('\t'), 0x109u);  // 'ĉ'
  EXPECT_EQ(CodepointToByte(' '), -1);
  EXPECT_EQ(CodepointToByte(0x144), -1);
  EXPECT_EQ(CodepointToByte(0x4E00), -1);
}

TEST(ByteUnicode, EncodeDecodeEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::string encoded;
  AppendByteEncoded(all, &encoded);
  std::string decoded;
  AppendByteDecoded(encoded, &decoded);
  EXPECT_EQ(decoded, all);
  std::string hello;
  AppendByteEncoded(" Hello\n", &hello);
  EXPECT_EQ(hello, "\xC4\xA0Hello\xC4\x8A");  // "ĠHelloĊ"
}

TEST(ByteUnicode, CharactersOutsideTheMapAreMarkedAsLlamaCppDoes) {
  std::string out;
  AppendByteDecoded("a\xE4\xB8\x80", &out);  // 'a' then U+4E00, which spells no byte
  EXPECT_EQ(out, "a[UNK_BYTE_0xe4b880a\xE4\xB8\x80]");
  out.clear();
  AppendByteDecoded("\xFF", &out);  // not UTF-8
  EXPECT_EQ(out, "[UNK_BYTE_0xff\xFF]");
}

}  // namespace
}  // namespace trit::tokenizer
