// Quantize -> dequantize round trips, edge cases, determinism and
// hand-computed quantizer outputs that pin ggml's rounding rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "quant/types.h"
#include "quant_test_util.h"

namespace trit::quant {
namespace {

using testing::AllFinite;
using testing::Dequantize;
using testing::GaussianData;
using testing::Quantize;
using testing::RelativeRmse;
using testing::RoundTrip;

struct Bound {
  GgmlType type;
  double gaussian;  // relative RMSE bound on N(0, 1) data
};

// Measured on 64 Ki N(0, 1) samples (seed 1234), then given ~15% margin (5%
// for the ternary types, whose error on Gaussian data is nearly fixed);
// the measured values are in docs/QUANT_FORMATS.md. A swapped nibble, a wrong
// scale or an off-by-one level multiplies these errors several times over.
constexpr Bound kBounds[] = {
    {GgmlType::kF32, 0.0},       {GgmlType::kF16, 2.4e-4},   {GgmlType::kBF16, 2.0e-3},
    {GgmlType::kQ8_0, 6.2e-3},   {GgmlType::kQ5_0, 4.9e-2},  {GgmlType::kQ5_1, 4.4e-2},
    {GgmlType::kQ4_0, 9.9e-2},   {GgmlType::kQ4_1, 9.0e-2},  {GgmlType::kQ6_K, 2.05e-2},
    {GgmlType::kQ5_K, 4.2e-2},   {GgmlType::kQ4_K, 8.2e-2},  {GgmlType::kTQ2_0, 0.85},
    {GgmlType::kTQ1_0, 0.85},    {GgmlType::kIQ4_NL, 8.6e-2}, {GgmlType::kIQ4_XS, 8.7e-2},
    {GgmlType::kMXFP4, 0.131},
};

std::string Name(GgmlType type) { return std::string(GetType(type).name); }

class RoundTripTest : public ::testing::TestWithParam<Bound> {};

TEST_P(RoundTripTest, GaussianWithinBound) {
  const TypeInfo& t = GetType(GetParam().type);
  const auto x = GaussianData(65536, 1234);
  const auto y = RoundTrip(t, x);
  ASSERT_TRUE(AllFinite(y));
  const double rmse = RelativeRmse(x, y);
  RecordProperty("relative_rmse", std::to_string(rmse));
  EXPECT_LE(rmse, GetParam().gaussian) << t.name;
}

TEST_P(RoundTripTest, AllZeroBlocksGiveZeros) {
  const TypeInfo& t = GetType(GetParam().type);
  const std::vector<float> x(512, 0.0f);
  const auto y = RoundTrip(t, x);
  for (float v : y) ASSERT_EQ(v, 0.0f) << t.name;
}

TEST_P(RoundTripTest, ConstantBlocks) {
  const TypeInfo& t = GetType(GetParam().type);
  for (float c : {0.75f, -3.0f, 0.01f}) {
    const std::vector<float> x(512, c);
    const auto y = RoundTrip(t, x);
    ASSERT_TRUE(AllFinite(y));
    // Every format represents a constant to within the rounding of its
    // scale(s): fp16 (2^-11 relative) for the 32-element and ternary formats,
    // bf16 (2^-8) for bf16, and the 6-bit sub-block scales of the K-quants
    // and iq4_xs (whose fp16 d = s / -32 is subnormal for c = 0.01).
    const bool k_quant = t.type == GgmlType::kQ4_K || t.type == GgmlType::kQ5_K || t.type == GgmlType::kQ6_K ||
                         t.type == GgmlType::kIQ4_XS;
    // MXFP4's scale is a power of two and its values E2M1's 0.5 .. 6, so a
    // constant lands between two of them: up to 25% off (0.01 -> 0.01171875,
    // QuantizeTest.MXFP4ExponentRule; 0.75 and -3 are exact).
    const double tol = t.type == GgmlType::kMXFP4 ? 0.25 : k_quant ? 2e-2 : t.type == GgmlType::kBF16 ? 4e-3 : 1e-3;
    for (float v : y) ASSERT_NEAR(v, c, tol * std::fabs(c)) << t.name << " c=" << c;
  }
}

TEST_P(RoundTripTest, SingleHugeOutlier) {
  const TypeInfo& t = GetType(GetParam().type);
  auto x = GaussianData(1024, 99);
  x[37] = 1000.0f;
  x[40] = -2000.0f;
  const auto y = RoundTrip(t, x);
  ASSERT_TRUE(AllFinite(y));
  if (t.type == GgmlType::kTQ1_0 || t.type == GgmlType::kTQ2_0) {
    // d = 2000; 1000 / 2000 = 0.5 rounds away from zero to +1.
    EXPECT_EQ(y[37], 2000.0f) << t.name;
    EXPECT_EQ(y[40], -2000.0f) << t.name;
  } else if (t.type == GgmlType::kMXFP4) {
    // ggml's exponent: floor(log2 2000) - 2 + 127 = 135, scale 2^7 = 128;
    // 1000 / 128 = 7.8 -> 8, and -2000 / 128 = -15.6 clips to -12 (the
    // rule keeps the block's largest value at or past the top code).
    EXPECT_EQ(y[37], 1024.0f) << t.name;
    EXPECT_EQ(y[40], -1536.0f) << t.name;
  } else {
    // The outliers set their block's scale, so they themselves survive well:
    // within 5%, or for the iq4 codebook, whose values nearest 1000 / (2000 / 127)
    // = 63.5 are 53 and 69, within that step (the x^2-weighted fit keeps -2000
    // exact and takes 69: 8%).
    const bool iq4 = t.type == GgmlType::kIQ4_NL || t.type == GgmlType::kIQ4_XS;
    EXPECT_NEAR(y[37], 1000.0f, 1000.0f * (iq4 ? 0.09f : 0.05f)) << t.name;
    EXPECT_NEAR(y[40], -2000.0f, 2000.0f * 0.01f) << t.name;
  }
  // Blocks without an outlier (from element 256 on, for every block size)
  // keep their usual accuracy.
  const std::vector<float> x_rest(x.begin() + 256, x.end());
  const std::vector<float> y_rest(y.begin() + 256, y.end());
  EXPECT_LE(RelativeRmse(x_rest, y_rest), GetParam().gaussian * 1.2) << t.name;
}

TEST_P(RoundTripTest, NegativeOnlyData) {
  const TypeInfo& t = GetType(GetParam().type);
  auto x = GaussianData(4096, 7);
  for (float& v : x) v = -std::fabs(v) - 0.5f;
  const auto y = RoundTrip(t, x);
  ASSERT_TRUE(AllFinite(y));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_LE(y[i], 0.0f) << t.name << " at " << i;
  // Shifted data has a larger mean, so relative errors shrink for
  // min-offset formats; the Gaussian bound still holds for all.
  EXPECT_LE(RelativeRmse(x, y), GetParam().gaussian) << t.name;
}

TEST_P(RoundTripTest, DeterministicAndRowIndependent) {
  const TypeInfo& t = GetType(GetParam().type);
  constexpr int64_t kRows = 4;
  constexpr int64_t kCols = 512;
  const auto x = GaussianData(kRows * kCols, 5, 0.1f, 2.0f);
  const auto all = Quantize(t, x);
  EXPECT_EQ(Quantize(t, x), all) << t.name;
  const size_t row_bytes = RowBytes(t, kCols).value();
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<uint8_t> row(row_bytes, 0xAA);
    t.quantize(x.data() + r * kCols, row.data(), kCols);
    EXPECT_EQ(0, std::memcmp(row.data(), all.data() + r * row_bytes, row_bytes)) << t.name << " row " << r;
  }
  // Quantizing into a buffer full of garbage gives the same bytes: every byte is written.
  std::vector<uint8_t> dirty(all.size(), 0xFF);
  t.quantize(x.data(), dirty.data(), kRows * kCols);
  EXPECT_EQ(dirty, all) << t.name;
}

INSTANTIATE_TEST_SUITE_P(AllQuantizable, RoundTripTest, ::testing::ValuesIn(kBounds),
                         [](const ::testing::TestParamInfo<Bound>& info) { return Name(info.param.type); });

TEST(QuantizeTest, EveryQuantizableTypeHasABound) {
  for (const TypeInfo& t : AllTypes()) {
    if (t.quantize == nullptr) continue;
    EXPECT_TRUE(std::any_of(std::begin(kBounds), std::end(kBounds), [&](const Bound& b) { return b.type == t.type; }))
        << t.name;
    EXPECT_NE(t.dequantize, nullptr) << t.name;
  }
}

// Finer formats must be more accurate than coarser ones on the same data.
TEST(QuantizeTest, ErrorOrdering) {
  const auto x = GaussianData(8192, 42);
  const auto err = [&](GgmlType type) { return RelativeRmse(x, RoundTrip(GetType(type), x)); };
  EXPECT_LT(err(GgmlType::kQ8_0), err(GgmlType::kQ6_K));
  EXPECT_LT(err(GgmlType::kQ6_K), err(GgmlType::kQ5_K));
  EXPECT_LT(err(GgmlType::kQ5_K), err(GgmlType::kQ4_K));
  EXPECT_LT(err(GgmlType::kQ5_0), err(GgmlType::kQ4_0));
  EXPECT_LT(err(GgmlType::kQ5_1), err(GgmlType::kQ4_1));
  EXPECT_LT(err(GgmlType::kQ4_K), err(GgmlType::kQ4_0));
  EXPECT_LT(err(GgmlType::kIQ4_NL), err(GgmlType::kQ4_0));  // the codebook fits bell-shaped data better
  EXPECT_LT(err(GgmlType::kQ5_0), err(GgmlType::kIQ4_XS));
}

// --- Hand-computed quantizer outputs (ggml's exact rounding) ---

// x_j = j - 16: the signed max is -16 (j = 0), so d = -16 / -8 = 2 and
// q_j = trunc((j - 16) / 2 + 8.5) = (j + 1) / 2 (ties round up: x = -7.5 * 2
// gives q = 1, not 0), clamped to 15.
TEST(QuantizeTest, Q4_0HandComputed) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16);
  const auto b = Quantize(GetType(GgmlType::kQ4_0), x);
  ASSERT_EQ(b.size(), 18u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x40);  // fp16 2.0
  const auto q = [](int j) { return std::min(15, (j + 1) / 2); };
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b[2 + j], q(j) | (q(j + 16) << 4)) << j;
}

// amax = 127 -> d = 1, q = roundf(x): halves round away from zero.
TEST(QuantizeTest, Q8_0HandComputed) {
  std::vector<float> x(32, 0.0f);
  x[0] = -127.0f;
  x[1] = 2.5f;
  x[2] = -2.5f;
  x[3] = 3.5f;
  x[4] = 0.5f;
  x[5] = 0.49f;
  x[6] = 100.0f;
  const auto b = Quantize(GetType(GgmlType::kQ8_0), x);
  ASSERT_EQ(b.size(), 34u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x3c);  // fp16 1.0
  const int8_t expected[7] = {-127, 3, -3, 4, 1, 0, 100};
  for (int j = 0; j < 7; ++j) EXPECT_EQ(static_cast<int8_t>(b[2 + j]), expected[j]) << j;
  for (int j = 7; j < 32; ++j) EXPECT_EQ(b[2 + j], 0) << j;
}

// min = -1, max = 14 -> d = 1, q = trunc(x + 1 + 0.5).
TEST(QuantizeTest, Q4_1HandComputed) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j % 16) - 1.0f;
  x[3] = 0.5f;  // (0.5 + 1) + 0.5 = 2 -> q = 2 (half rounds up)
  const auto b = Quantize(GetType(GgmlType::kQ4_1), x);
  ASSERT_EQ(b.size(), 20u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x3c);  // d = 1.0
  EXPECT_EQ(b[2], 0x00);
  EXPECT_EQ(b[3], 0xbc);  // m = -1.0
  for (int j = 0; j < 16; ++j) {
    const int q = j == 3 ? 2 : j;
    EXPECT_EQ(b[4 + j], q | (j << 4)) << j;
  }
}

// Q5_0: x_j = j - 16 -> d = 1, q = trunc(x + 16.5) = j, clamped to 31; bit 4
// of element j goes to bit j of qh.
TEST(QuantizeTest, Q5_0HandComputed) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16) * 0.5f;
  const auto b = Quantize(GetType(GgmlType::kQ5_0), x);
  ASSERT_EQ(b.size(), 22u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x38);  // d = -8 / -16 = 0.5
  // Elements 16..31 have q = j >= 16: bits 16..31 of qh set.
  EXPECT_EQ(b[2], 0x00);
  EXPECT_EQ(b[3], 0x00);
  EXPECT_EQ(b[4], 0xff);
  EXPECT_EQ(b[5], 0xff);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b[6 + j], j | (j << 4)) << j;
}

// TQ2_0 / TQ1_0: d = max |x| = 2, t = lround(x / 2): 1.0 / 2 = 0.5 rounds
// away from zero to 1, 0.98 / 2 to 0.
TEST(QuantizeTest, TernaryHandComputed) {
  std::vector<float> x(256, 0.0f);
  x[0] = 2.0f;
  x[1] = -2.0f;
  x[2] = 1.0f;
  x[3] = -1.0f;
  x[4] = 0.98f;
  const auto y2 = RoundTrip(GetType(GgmlType::kTQ2_0), x);
  const auto y1 = RoundTrip(GetType(GgmlType::kTQ1_0), x);
  const std::vector<float> expected_head = {2.0f, -2.0f, 2.0f, -2.0f, 0.0f};
  for (int j = 0; j < 5; ++j) {
    EXPECT_EQ(y2[j], expected_head[j]) << j;
    EXPECT_EQ(y1[j], expected_head[j]) << j;
  }
  // TQ2_0 byte 0 holds elements 0, 32, 64, 96 as t + 1: 2 | 1 << 2 | 1 << 4 | 1 << 6.
  EXPECT_EQ(Quantize(GetType(GgmlType::kTQ2_0), x)[0], 0x56);
  // TQ1_0 byte 1 holds elements 1, 33, 65, 97, 129: digits 0 1 1 1 1 = 40 -> ceil(40 * 256 / 243) = 43.
  EXPECT_EQ(Quantize(GetType(GgmlType::kTQ1_0), x)[1], 43);
}

// Values already in {-d, 0, +d} (d exact in fp16) come back exactly.
TEST(QuantizeTest, TernaryValuesRoundTripExactly) {
  for (float d : {0.5f, 1.5f, 0.0390625f, 3.0517578125e-05f}) {
    std::mt19937 rng(17);
    std::vector<float> x(2048);
    for (float& v : x) v = d * static_cast<float>(static_cast<int>(rng() % 3) - 1);
    for (size_t b = 0; b < x.size(); b += 256) x[b + rng() % 256] = (rng() & 1) ? d : -d;  // amax = d
    for (GgmlType type : {GgmlType::kTQ1_0, GgmlType::kTQ2_0}) {
      EXPECT_EQ(RoundTrip(GetType(type), x), x) << Name(type) << " d=" << d;
    }
  }
}

TEST(QuantizeTest, HalfAndBf16AreExactOnRepresentableValues) {
  const std::vector<float> x = {0.0f, 1.0f, -2.0f, 0.5f, 65504.0f, -0.15625f, 1024.0f, 3.0f};
  EXPECT_EQ(RoundTrip(GetType(GgmlType::kF16), x), x);
  std::vector<float> bf = x;
  bf[4] = 65536.0f;  // 65504 needs 11 significant bits; bf16 has 8
  EXPECT_EQ(RoundTrip(GetType(GgmlType::kBF16), bf), bf);
  EXPECT_EQ(RoundTrip(GetType(GgmlType::kBF16), {65504.0f})[0], 65536.0f);
  // 1 + 2^-11 is a tie in fp16: rounds to even (1.0).
  EXPECT_EQ(RoundTrip(GetType(GgmlType::kF16), {1.0f + 1.0f / 2048})[0], 1.0f);
  const auto f32 = RoundTrip(GetType(GgmlType::kF32), {1.0f / 3.0f});
  EXPECT_EQ(f32[0], 1.0f / 3.0f);
}


// Data that is exactly d * kvalues (the element of largest magnitude on
// -127): the first candidate of the scale search has zero error, so the
// block stores d and the indices exactly, and round-trips exactly.
TEST(QuantizeTest, IQ4_NLExactValuesRoundTrip) {
  constexpr int kIQ4NL[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = 0.5f * kIQ4NL[(j * 7) % 16];
  const TypeInfo& t = GetType(GgmlType::kIQ4_NL);
  const auto b = Quantize(t, x);
  ASSERT_EQ(b.size(), 18u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x38);  // fp16 0.5
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b[2 + j], ((j * 7) % 16) | ((((j + 16) * 7) % 16) << 4)) << j;
  EXPECT_EQ(Dequantize(t, b, 32), x);
}

// Sub-block i of x is s_i * kvalues with s_i = -0.25 L_i: each sub-block's
// search finds s_i, the largest |s_i| (L = -32) sets d = s_max / -32 = -0.25,
// and the 6-bit levels come out as L_i + 32, so the block round-trips exactly.
TEST(QuantizeTest, IQ4_XSExactValuesRoundTrip) {
  constexpr int kIQ4NL[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  constexpr int kL[8] = {-32, 5, -7, 31, 1, -1, 16, -20};
  std::vector<float> x(256);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 32; ++j) x[32 * i + j] = -0.25f * kL[i] * kIQ4NL[(j * 5 + i) % 16];
  }
  const TypeInfo& t = GetType(GgmlType::kIQ4_XS);
  const auto b = Quantize(t, x);
  ASSERT_EQ(b.size(), 136u);
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0xB4);  // fp16 -0.25
  const uint16_t scales_h = static_cast<uint16_t>(b[2] | (b[3] << 8));
  for (int i = 0; i < 8; ++i) {
    const int ls = ((b[4 + i / 2] >> (4 * (i % 2))) & 15) | (((scales_h >> (2 * i)) & 3) << 4);
    EXPECT_EQ(ls, kL[i] + 32) << i;
  }
  EXPECT_EQ(Dequantize(t, b, 256), x);
}

// MXFP4, ggml's quantize_row_mxfp4_ref: e = floor(log2 amax) - 2 + 127 and
// each element the code nearest x / 2^(e - 128) (ties to the lower index).
// Data that is exactly 0.5 * kvalues (amax 6: e = 127, scale 0.5) stores
// those codes, except that -0 (code 8) is stored as code 0, and round-trips
// exactly.
TEST(QuantizeTest, MXFP4ExactValuesRoundTrip) {
  constexpr int kMxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = 0.5f * kMxfp4[(j * 7) % 16];
  const TypeInfo& t = GetType(GgmlType::kMXFP4);
  const auto b = Quantize(t, x);
  ASSERT_EQ(b.size(), 17u);
  EXPECT_EQ(b[0], 127);
  const auto code = [](int j) { return (j * 7) % 16 == 8 ? 0 : (j * 7) % 16; };
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b[1 + j], code(j) | (code(j + 16) << 4)) << j;
  EXPECT_EQ(Dequantize(t, b, 32), x);
}

// The exponent rule block by block (hand-computed from ggml's formula):
// amax 7.9 -> floor(log2) 2 -> e 127, scale 0.5, and 7.9 / 0.5 = 15.8 clips
// to code 7 (12: 6.0); amax 8 -> e 128, scale 1; amax 0.75 -> e 124;
// amax 0.01 -> e 118 (scale 2^-10), 10.24 -> 12 (0.01171875); amax 3e38
// -> e 252.
TEST(QuantizeTest, MXFP4ExponentRule) {
  const TypeInfo& t = GetType(GgmlType::kMXFP4);
  const auto block_of = [&](float amax) {
    std::vector<float> x(32, 0.0f);
    x[5] = -amax;
    return Quantize(t, x);
  };
  const std::vector<uint8_t> a = block_of(7.9f);
  EXPECT_EQ(a[0], 127);
  EXPECT_EQ(a[1 + 5], 15);  // -12: -6.0
  EXPECT_EQ(Dequantize(t, a, 32)[5], -6.0f);
  EXPECT_EQ(block_of(8.0f)[0], 128);
  EXPECT_EQ(block_of(8.0f)[1 + 5], 14);  // -8 at scale 1
  EXPECT_EQ(block_of(7.999f)[0], 127);
  EXPECT_EQ(block_of(0.75f)[0], 124);
  EXPECT_EQ(block_of(0.01f)[0], 118);
  EXPECT_EQ(Dequantize(t, block_of(0.01f), 32)[5], -0.01171875f);
  EXPECT_EQ(block_of(3e38f)[0], 252);
  EXPECT_EQ(block_of(std::ldexp(1.0f, -125))[0], 0);  // the smallest exponent amax reaches
  // All zeros: e = 0 and every code 0.
  EXPECT_EQ(Quantize(t, std::vector<float>(32, 0.0f)), std::vector<uint8_t>(17, 0));
}

// Ties between two codes go to the lower index, as ggml's scan keeps the
// first of equal errors: at scale 0.5, 5 is as far from 4 (code 6) as from
// 6 (code 7) -> code 6; -5 -> code 14 (-4); +-0.25 -> code 0 (0, not -0.5
// or +0.5); 2.5 -> code 4 (2, not 3).
TEST(QuantizeTest, MXFP4TiesGoToTheLowerIndex) {
  std::vector<float> x(32, 0.0f);
  x[0] = 6.0f;  // amax 6: e = 127, scale 0.5
  x[1] = 5.0f;
  x[2] = -5.0f;
  x[3] = 0.25f;
  x[4] = -0.25f;
  x[5] = 2.5f;
  x[16] = -1.25f;  // between -1 (code 10) and -1.5 (code 11): code 10
  const auto b = Quantize(GetType(GgmlType::kMXFP4), x);
  EXPECT_EQ(b[0], 127);
  EXPECT_EQ(b[1], 7 | (10 << 4));
  EXPECT_EQ(b[2], 6);
  EXPECT_EQ(b[3], 14);
  EXPECT_EQ(b[4], 0);
  EXPECT_EQ(b[5], 0);
  EXPECT_EQ(b[6], 4);
}

// Below amax = 2^-125 ggml's exponent is negative and its (x86) conversion
// to uint8_t keeps the low 8 bits: 2^-126 -> 255, 2^-149 (the smallest
// subnormal) -> -24 + 256 = 232; at those scales every element is code 0.
// These are the bytes ggml_quantize_chunk writes on x86 (llama-cpp-python
// 0.3.36).
TEST(QuantizeTest, MXFP4TinyBlocksAsGgmlOnX86) {
  const TypeInfo& t = GetType(GgmlType::kMXFP4);
  for (const auto& [amax, e] : {std::pair{std::ldexp(1.0f, -126), 255}, std::pair{std::ldexp(1.0f, -130), 251},
                                std::pair{std::ldexp(1.0f, -149), 232}}) {
    std::vector<float> x(32, 0.0f);
    x[0] = amax;
    x[1] = -amax / 2;
    const auto b = Quantize(t, x);
    EXPECT_EQ(b[0], e) << amax;
    for (int j = 1; j < 17; ++j) EXPECT_EQ(b[j], 0) << amax << " byte " << j;
  }
  // 2^-125: e = 0, scale 2^-128: codes 6 (8), 12 (-4) and 3 (1.5, for 2.67).
  std::vector<float> x(32, 0.0f);
  x[0] = std::ldexp(1.0f, -125);
  x[1] = -x[0] / 2;
  x[2] = x[0] / 3;
  const auto b = Quantize(t, x);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 6);
  EXPECT_EQ(b[2], 12);
  EXPECT_EQ(b[3], 3);
}

}  // namespace
}  // namespace trit::quant
