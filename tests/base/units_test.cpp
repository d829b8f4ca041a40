// base/units.h: the byte and duration spellings every command prints.
#include "base/units.h"

#include <gtest/gtest.h>

namespace trit {
namespace {

TEST(FormatBytesTest, ExactBelowOneKibThenTwoDecimals) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.00 KiB");
  EXPECT_EQ(FormatBytes(1185376), "1.13 MiB");
  EXPECT_EQ(FormatBytes((uint64_t{1} << 20) - 1), "1024.00 KiB");  // rounds up, stays in KiB
  EXPECT_EQ(FormatBytes(uint64_t{7} << 30), "7.00 GiB");
  EXPECT_EQ(FormatBytes(uint64_t{3} << 40), "3.00 TiB");
  EXPECT_EQ(FormatBytes(uint64_t{1} << 50), "1024.00 TiB");  // TiB is the largest unit
}

TEST(FormatDurationTest, MinutesAndSecondsThenHours) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(-3), "0:00");
  EXPECT_EQ(FormatDuration(5.4), "0:05");
  EXPECT_EQ(FormatDuration(5.5), "0:06");
  EXPECT_EQ(FormatDuration(65.4), "1:05");
  EXPECT_EQ(FormatDuration(3599.4), "59:59");
  EXPECT_EQ(FormatDuration(3725), "1:02:05");
}

}  // namespace
}  // namespace trit
