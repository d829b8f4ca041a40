#include "cli/format_util.h"

#include <gtest/gtest.h>

namespace trit::cli {
namespace {

TEST(FormatUtilTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1024), "1.00 KiB");
  EXPECT_EQ(HumanBytes(1185376), "1.13 MiB");
  EXPECT_EQ(HumanBytes(uint64_t{7} << 30), "7.00 GiB");
}

TEST(FormatUtilTest, HumanCount) {
  EXPECT_EQ(HumanCount(999), "999");
  EXPECT_EQ(HumanCount(292480), "292.48K");
  EXPECT_EQ(HumanCount(6738415616), "6.74B");
}

TEST(FormatUtilTest, PrintableEscapesAndCuts) {
  EXPECT_EQ(Printable("a\nb\tc", 100), "a\\nb\\tc");
  EXPECT_EQ(Printable(std::string("\x01z", 2), 100), "\\x01z");
  EXPECT_EQ(Printable("abcdef", 3), "abc...");
  EXPECT_EQ(Printable("\xe2\x96\x81the", 100), "\xe2\x96\x81the");  // UTF-8 kept as is
}

TEST(FormatUtilTest, QuotedEscapesQuotesAndBackslashes) {
  EXPECT_EQ(Quoted("llama", 100), "\"llama\"");
  EXPECT_EQ(Quoted("\"", 100), "\"\\\"\"");
  EXPECT_EQ(Quoted("a\\b\n", 100), "\"a\\\\b\\n\"");
}

}  // namespace
}  // namespace trit::cli
