#include "cli/format_util.h"

#include <gtest/gtest.h>

namespace trit::cli {
namespace {

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
