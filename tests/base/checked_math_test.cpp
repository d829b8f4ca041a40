#include "base/checked_math.h"

#include <gtest/gtest.h>

#include <limits>

namespace trit {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(CheckedMathTest, AddDetectsOverflow) {
  EXPECT_EQ(CheckedAdd(2, 3), 5u);
  EXPECT_EQ(CheckedAdd(kMax - 1, 1), kMax);
  EXPECT_FALSE(CheckedAdd(kMax, 1).has_value());
}

TEST(CheckedMathTest, MulDetectsOverflow) {
  EXPECT_EQ(CheckedMul(1u << 20, 1u << 20), uint64_t{1} << 40);
  EXPECT_EQ(CheckedMul(0, kMax), 0u);
  EXPECT_FALSE(CheckedMul(uint64_t{1} << 32, uint64_t{1} << 32).has_value());
}

TEST(CheckedMathTest, AlignUp) {
  EXPECT_EQ(CheckedAlignUp(0, 32), 0u);
  EXPECT_EQ(CheckedAlignUp(1, 32), 32u);
  EXPECT_EQ(CheckedAlignUp(32, 32), 32u);
  EXPECT_EQ(CheckedAlignUp(14152, 32), 14176u);
  EXPECT_EQ(CheckedAlignUp(10, 3), 12u);  // not only powers of two
  EXPECT_FALSE(CheckedAlignUp(kMax, 32).has_value());
}

}  // namespace
}  // namespace trit
