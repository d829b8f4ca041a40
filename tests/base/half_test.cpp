#include "base/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace trit {
namespace {

TEST(HalfTest, KnownEncodings) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);           // largest finite
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);           // rounds to +inf
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // halfway: ties to even (0)
  EXPECT_EQ(FloatToHalf(std::ldexp(1.5f, -25)), 0x0001);  // above halfway
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even mantissa
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even (up)
}

TEST(HalfTest, DecodesKnownValues) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_TRUE(std::isinf(HalfToFloat(0xfc00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
}

TEST(HalfTest, EveryHalfRoundTripsExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f)))) << h;
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << "half 0x" << std::hex << h;
  }
}

TEST(HalfTest, RoundsToNearest) {
  // Between two adjacent halves, the nearer one wins.
  for (uint32_t h = 0x0001; h < 0x7bff; h += 97) {
    const float lo = HalfToFloat(static_cast<uint16_t>(h));
    const float hi = HalfToFloat(static_cast<uint16_t>(h + 1));
    EXPECT_EQ(FloatToHalf(lo + (hi - lo) * 0.25f), h);
    EXPECT_EQ(FloatToHalf(lo + (hi - lo) * 0.75f), h + 1);
  }
}

// The batch conversion (F16C where the CPU has it) gives FloatToHalf's bits
// for every class of input: a stride through all 2^32 patterns (normals of
// every exponent, subnormals, overflow, infinities, quiet and signalling
// NaNs of both signs), every half's neighbours and the ties between them.
TEST(HalfTest, BatchConversionIsTheScalarOneBitForBit) {
  std::vector<float> in;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4093) in.push_back(BitsToFloat(static_cast<uint32_t>(u)));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t f = FloatBits(HalfToFloat(static_cast<uint16_t>(h)));
    for (uint32_t d : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u}) in.push_back(BitsToFloat(f + d));
  }
  for (uint32_t nan : {0x7f800001u, 0x7fc00000u, 0x7fbfffffu, 0xff800001u, 0xffc00001u, 0x7f801fffu}) in.push_back(BitsToFloat(nan));
  std::vector<uint16_t> got(in.size());
  FloatsToHalves(in.data(), got.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(got[i], FloatToHalf(in[i])) << "float bits 0x" << std::hex << FloatBits(in[i]);
  }
}

TEST(Bf16Test, KnownValuesAndRounding) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(Bf16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(FloatToBf16(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBf16(BitsToFloat(0x3f808000u)), 0x3f80);  // tie -> even
  EXPECT_EQ(FloatToBf16(BitsToFloat(0x3f818000u)), 0x3f82);  // tie -> even (up)
  EXPECT_EQ(FloatToBf16(BitsToFloat(0x3f808001u)), 0x3f81);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(BitsToFloat(0x7f800001u)))));  // NaN stays NaN
}

}  // namespace
}  // namespace trit
