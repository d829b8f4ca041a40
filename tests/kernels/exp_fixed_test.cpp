// ExpFixed (exp_fixed.h): within 2 ulp of libm's exp over the clamp range
// (a dense sweep), e^0 = 1 exactly, and the clamp's values at and beyond its
// ends, and NaN for NaN. Its vector form's bits are checked against it through attention
// (attention_optimized_test.cpp), whose reference calls this scalar form.
#include "kernels/exp_fixed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace trit::kernels {
namespace {

TEST(ExpFixed, WithinTwoUlpOfLibmOverTheRange) {
  int64_t worst_ulp = 0;
  for (float x = kExpMin; x <= kExpMax; x = std::nextafter(x + 0.000731f, kExpMax + 1.0f)) {
    const float got = ExpFixed(x);
    const float want = std::exp(x);
    int32_t a, b;
    std::memcpy(&a, &got, 4);
    std::memcpy(&b, &want, 4);
    worst_ulp = std::max<int64_t>(worst_ulp, std::abs(static_cast<int64_t>(a) - b));
    ASSERT_LE(std::abs(static_cast<int64_t>(a) - b), 2) << "x " << x << " got " << got << " want " << want;
  }
  RecordProperty("worst_ulp", std::to_string(worst_ulp));
}

TEST(ExpFixed, ClampAndSpecialValues) {
  EXPECT_EQ(ExpFixed(0.0f), 1.0f);
  EXPECT_EQ(ExpFixed(-0.0f), 1.0f);
  const float floor = ExpFixed(kExpMin);
  EXPECT_GT(floor, 0.0f);
  EXPECT_TRUE(std::isnormal(floor));
  EXPECT_EQ(ExpFixed(-100.0f), floor);
  EXPECT_EQ(ExpFixed(-std::numeric_limits<float>::infinity()), floor);
  const float ceiling = ExpFixed(kExpMax);
  EXPECT_TRUE(std::isfinite(ceiling));
  EXPECT_EQ(ExpFixed(1000.0f), ceiling);
  EXPECT_EQ(ExpFixed(std::numeric_limits<float>::infinity()), ceiling);
}

// A corrupt model's NaN reaches here (the fuzz smoke run found it): the
// answer is NaN, not an integer conversion of NaN (undefined behaviour).
TEST(ExpFixed, NanGivesNan) {
  EXPECT_TRUE(std::isnan(ExpFixed(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(ExpFixed(-std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace trit::kernels
