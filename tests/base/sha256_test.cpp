#include "base/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace trit {
namespace {

// FIPS 180-2 / NIST example vectors.
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.Update("abc");
  EXPECT_EQ(abc.FinishHex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 two_blocks;
  two_blocks.Update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  EXPECT_EQ(two_blocks.FinishHex(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 million;
  const std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.Update(chunk);
  EXPECT_EQ(million.FinishHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, SplitUpdatesEqualOneUpdate) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  Sha256 whole;
  whole.Update(text);
  const std::string expected = whole.FinishHex();
  for (size_t split : {1u, 55u, 56u, 63u, 64u, 65u, 128u, 299u}) {
    Sha256 parts;
    parts.Update(std::string_view(text).substr(0, split));
    parts.Update(std::string_view(text).substr(split));
    EXPECT_EQ(parts.FinishHex(), expected) << split;
  }
}

}  // namespace
}  // namespace trit
