// Dequantization of hand-built blocks. Each test writes the block bytes
// itself and derives the expected floats from the format's definition
// (docs/QUANT_FORMATS.md), element by element, independently of the loop
// structure of the code under test. Values are chosen so that every product
// is exact in float32, hence EXPECT_EQ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quant/k_quants.h"
#include "quant/types.h"
#include "test_paths.h"

namespace trit::quant {
namespace {

std::vector<float> DequantizeBytes(GgmlType type, const std::vector<uint8_t>& bytes) {
  const TypeInfo& t = GetType(type);
  EXPECT_EQ(bytes.size() % static_cast<size_t>(t.type_size), 0u);
  const int64_t n = static_cast<int64_t>(bytes.size()) / t.type_size * t.block_size;
  std::vector<float> out(static_cast<size_t>(n), -12345.0f);
  t.dequantize(bytes.data(), out.data(), n);
  return out;
}

// fp16 encodings used below.
constexpr uint8_t kHalfOne[2] = {0x00, 0x3c};          // 1.0
constexpr uint8_t kHalfHalf[2] = {0x00, 0x38};         // 0.5
constexpr uint8_t kHalfQuarter[2] = {0x00, 0x34};      // 0.25
constexpr uint8_t kHalfTwo[2] = {0x00, 0x40};          // 2.0
constexpr uint8_t kHalfThree[2] = {0x00, 0x42};        // 3.0
constexpr uint8_t kHalfMinusOne[2] = {0x00, 0xbc};     // -1.0

void Append(std::vector<uint8_t>& v, const uint8_t (&bytes)[2]) { v.insert(v.end(), bytes, bytes + 2); }

TEST(DequantizeTest, F32F16BF16) {
  // 1.0f, -2.5f little-endian.
  EXPECT_EQ(DequantizeBytes(GgmlType::kF32, {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0}),
            (std::vector<float>{1.0f, -2.5f}));
  // half: 1.0, -2.0, 65504, 2^-24 (smallest subnormal)
  EXPECT_EQ(DequantizeBytes(GgmlType::kF16, {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00}),
            (std::vector<float>{1.0f, -2.0f, 65504.0f, 5.9604644775390625e-8f}));
  // bf16: 1.0 (0x3f80), -2.5 (0xc020), 3.0 (0x4040)
  EXPECT_EQ(DequantizeBytes(GgmlType::kBF16, {0x80, 0x3f, 0x20, 0xc0, 0x40, 0x40}),
            (std::vector<float>{1.0f, -2.5f, 3.0f}));
}

TEST(DequantizeTest, Q8_0) {
  std::vector<uint8_t> b;
  Append(b, kHalfHalf);
  for (int j = 0; j < 32; ++j) b.push_back(static_cast<uint8_t>(static_cast<int8_t>(j * 8 - 128)));
  const auto y = DequantizeBytes(GgmlType::kQ8_0, b);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.5f * (j * 8 - 128)) << j;
  EXPECT_EQ(y[0], -64.0f);
  EXPECT_EQ(y[31], 60.0f);
}

TEST(DequantizeTest, Q8_0TwoBlocksUseTheirOwnScales) {
  std::vector<uint8_t> b;
  Append(b, kHalfOne);
  for (int j = 0; j < 32; ++j) b.push_back(static_cast<uint8_t>(j));
  Append(b, kHalfMinusOne);
  for (int j = 0; j < 32; ++j) b.push_back(static_cast<uint8_t>(j));
  const auto y = DequantizeBytes(GgmlType::kQ8_0, b);
  for (int j = 0; j < 32; ++j) {
    EXPECT_EQ(y[j], static_cast<float>(j));
    EXPECT_EQ(y[32 + j], -static_cast<float>(j));
  }
}

// Q4_0: element j in the low nibble of qs[j], element j + 16 in the high nibble; x = d * (q - 8).
TEST(DequantizeTest, Q4_0) {
  std::vector<uint8_t> b;
  Append(b, kHalfTwo);
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  const auto y = DequantizeBytes(GgmlType::kQ4_0, b);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 2.0f * (j - 8)) << j;
    EXPECT_EQ(y[16 + j], 2.0f * (7 - j)) << j;
  }
  EXPECT_EQ(y[0], -16.0f);
  EXPECT_EQ(y[16], 14.0f);
}

// Q4_1: x = d * q + m.
TEST(DequantizeTest, Q4_1) {
  std::vector<uint8_t> b;
  Append(b, kHalfHalf);
  Append(b, kHalfMinusOne);
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  const auto y = DequantizeBytes(GgmlType::kQ4_1, b);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * j - 1.0f) << j;
    EXPECT_EQ(y[16 + j], 0.5f * (15 - j) - 1.0f) << j;
  }
}

// qh = bytes {0x01, 0x80, 0x00, 0xff}: as a little-endian uint32, bits 0, 15
// and 24..31 are set, so elements 0, 15 and 24..31 have their fifth bit.
bool Q5HighBit(int element) { return element == 0 || element == 15 || element >= 24; }

TEST(DequantizeTest, Q5_0) {
  std::vector<uint8_t> b;
  Append(b, kHalfOne);
  b.insert(b.end(), {0x01, 0x80, 0x00, 0xff});
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  const auto y = DequantizeBytes(GgmlType::kQ5_0, b);
  for (int e = 0; e < 32; ++e) {
    const int low = e < 16 ? e : 15 - (e - 16);
    EXPECT_EQ(y[e], static_cast<float>(low + (Q5HighBit(e) ? 16 : 0) - 16)) << e;
  }
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], -15.0f);
  EXPECT_EQ(y[15], 15.0f);
  EXPECT_EQ(y[24], 7.0f);  // low nibble 15 - 8 = 7, plus 16, minus 16
}

TEST(DequantizeTest, Q5_1) {
  std::vector<uint8_t> b;
  Append(b, kHalfQuarter);
  Append(b, kHalfHalf);
  b.insert(b.end(), {0x01, 0x80, 0x00, 0xff});
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  const auto y = DequantizeBytes(GgmlType::kQ5_1, b);
  for (int e = 0; e < 32; ++e) {
    const int low = e < 16 ? e : 15 - (e - 16);
    EXPECT_EQ(y[e], 0.25f * static_cast<float>(low + (Q5HighBit(e) ? 16 : 0)) + 0.5f) << e;
  }
}

// The K-quant scale/min packing used by Q4_K and Q5_K, built by hand:
// scales {1, 2, 3, 4, 17, 33, 63, 48}, mins {0, 1, 2, 3, 16, 32, 63, 5}.
//   bytes 0..3: scale j (6 bits) | top 2 bits of scale j + 4 in bits 6..7
//   bytes 4..7: min j | top 2 bits of min j + 4
//   bytes 8..11: low 4 bits of scale j + 4 | low 4 bits of min j + 4 << 4
constexpr uint8_t kScaleBytes[12] = {0x41, 0x82, 0xC3, 0xC4, 0x40, 0x81, 0xC2, 0x03, 0x01, 0x01, 0xFF, 0x50};
constexpr int kSc[8] = {1, 2, 3, 4, 17, 33, 63, 48};
constexpr int kMin[8] = {0, 1, 2, 3, 16, 32, 63, 5};

TEST(DequantizeTest, ScaleMinK4Unpacking) {
  for (int j = 0; j < 8; ++j) {
    uint8_t sc = 0;
    uint8_t m = 0;
    GetScaleMinK4(j, kScaleBytes, &sc, &m);
    EXPECT_EQ(sc, kSc[j]) << j;
    EXPECT_EQ(m, kMin[j]) << j;
  }
}

uint8_t PatternByte(int i) { return static_cast<uint8_t>((i * 37 + 11) & 0xff); }

// Q4_K: 8 sub-blocks of 32; qs bytes 32c..32c+31 hold sub-block 2c in the low
// nibbles and 2c + 1 in the high nibbles; x = d * sc * q - dmin * m.
TEST(DequantizeTest, Q4_K) {
  std::vector<uint8_t> b;
  Append(b, kHalfOne);   // d
  Append(b, kHalfHalf);  // dmin
  b.insert(b.end(), kScaleBytes, kScaleBytes + 12);
  for (int i = 0; i < 128; ++i) b.push_back(PatternByte(i));
  ASSERT_EQ(b.size(), 144u);
  const auto y = DequantizeBytes(GgmlType::kQ4_K, b);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32;
    const uint8_t byte = PatternByte(32 * (s / 2) + e % 32);
    const int q = s % 2 == 0 ? (byte & 0xF) : (byte >> 4);
    EXPECT_EQ(y[e], 1.0f * kSc[s] * q - 0.5f * kMin[s]) << e;
  }
}

// Q5_K: as Q4_K, plus bit s of qh[l] = fifth bit of element l of sub-block s.
TEST(DequantizeTest, Q5_K) {
  std::vector<uint8_t> b;
  Append(b, kHalfHalf);     // d
  Append(b, kHalfQuarter);  // dmin
  b.insert(b.end(), kScaleBytes, kScaleBytes + 12);
  for (int l = 0; l < 32; ++l) b.push_back(PatternByte(1000 + l));  // qh
  for (int i = 0; i < 128; ++i) b.push_back(PatternByte(i));         // qs
  ASSERT_EQ(b.size(), 176u);
  const auto y = DequantizeBytes(GgmlType::kQ5_K, b);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32;
    const int l = e % 32;
    const uint8_t byte = PatternByte(32 * (s / 2) + l);
    const int low = s % 2 == 0 ? (byte & 0xF) : (byte >> 4);
    const int high = (PatternByte(1000 + l) >> s) & 1;
    EXPECT_EQ(y[e], 0.5f * kSc[s] * (low + 16 * high) - 0.25f * kMin[s]) << e;
  }
}

// Q6_K: element e = 128 h + 32 g + l (h half, g group 0..3, l 0..31):
// low 4 bits in ql[64 h + 32 (g % 2) + l] (low nibble for g < 2, high for
// g >= 2), 2 high bits at bit 2 g of qh[32 h + l], int8 scale
// scales[e / 16]; x = d * scale * (q - 32).
TEST(DequantizeTest, Q6_K) {
  std::vector<uint8_t> b;
  for (int i = 0; i < 128; ++i) b.push_back(PatternByte(i));                          // ql
  for (int i = 0; i < 64; ++i) b.push_back(PatternByte(500 + i));                     // qh
  for (int i = 0; i < 16; ++i) b.push_back(static_cast<uint8_t>(static_cast<int8_t>(i * 9 - 70)));  // scales
  Append(b, kHalfHalf);
  ASSERT_EQ(b.size(), 210u);
  const auto y = DequantizeBytes(GgmlType::kQ6_K, b);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128;
    const int g = (e % 128) / 32;
    const int l = e % 32;
    const uint8_t lo_byte = PatternByte(64 * h + 32 * (g % 2) + l);
    const int low = g < 2 ? (lo_byte & 0xF) : (lo_byte >> 4);
    const int high = (PatternByte(500 + 32 * h + l) >> (2 * g)) & 3;
    const int scale = (e / 16) * 9 - 70;
    EXPECT_EQ(y[e], 0.5f * scale * ((low | (high << 4)) - 32)) << e;
  }
}

// Q2_K: element e = 128 h + 32 g + l: bits 2g..2g+1 of qs[32 h + l]; scale
// byte e / 16: low nibble scales d, high nibble scales dmin; x = d*sc*q - dmin*m.
TEST(DequantizeTest, Q2_K) {
  std::vector<uint8_t> b;
  for (int i = 0; i < 16; ++i) b.push_back(static_cast<uint8_t>(i | ((15 - i) << 4)));  // scales
  for (int i = 0; i < 64; ++i) b.push_back(PatternByte(i));                            // qs
  Append(b, kHalfHalf);     // d
  Append(b, kHalfQuarter);  // dmin
  ASSERT_EQ(b.size(), 84u);
  const auto y = DequantizeBytes(GgmlType::kQ2_K, b);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128;
    const int g = (e % 128) / 32;
    const int l = e % 32;
    const int q = (PatternByte(32 * h + l) >> (2 * g)) & 3;
    const int sc = e / 16;
    EXPECT_EQ(y[e], 0.5f * sc * q - 0.25f * (15 - sc)) << e;
  }
}

// Q3_K: 16 scales s_j stored as 6-bit s_j + 32 (low 4 bits in byte j % 8, low
// nibble for j < 8, high nibble for j >= 8; top 2 bits at bit 2 (j / 4) of
// byte 8 + j % 4). Element e = 128 h + 32 g + l: 2 low bits at bit 2g of
// qs[32 h + l]; high bit = bit (4 h + g) of hmask[l]; q - 4 when that bit is clear.
TEST(DequantizeTest, Q3_K) {
  int stored[16];
  for (int j = 0; j < 16; ++j) stored[j] = (j * 4 + 1) & 63;
  uint8_t scales[12] = {};
  for (int j = 0; j < 16; ++j) {
    scales[j % 8] |= static_cast<uint8_t>((stored[j] & 0xF) << (j < 8 ? 0 : 4));
    scales[8 + j % 4] |= static_cast<uint8_t>((stored[j] >> 4) << (2 * (j / 4)));
  }
  std::vector<uint8_t> b;
  for (int i = 0; i < 32; ++i) b.push_back(PatternByte(300 + i));  // hmask
  for (int i = 0; i < 64; ++i) b.push_back(PatternByte(i));        // qs
  b.insert(b.end(), scales, scales + 12);
  Append(b, kHalfHalf);
  ASSERT_EQ(b.size(), 110u);
  const auto y = DequantizeBytes(GgmlType::kQ3_K, b);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128;
    const int g = (e % 128) / 32;
    const int l = e % 32;
    const int low = (PatternByte(32 * h + l) >> (2 * g)) & 3;
    const bool high = (PatternByte(300 + l) >> (4 * h + g)) & 1;
    const int q = low - (high ? 0 : 4);
    EXPECT_EQ(y[e], 0.5f * (stored[e / 16] - 32) * q) << e;
  }
}

TEST(DequantizeTest, Q8_K) {
  std::vector<uint8_t> b = {0x00, 0x00, 0x80, 0x3e};  // float 0.25
  for (int j = 0; j < 256; ++j) b.push_back(static_cast<uint8_t>(j));
  b.resize(292, 0);  // bsums are not read
  const auto y = DequantizeBytes(GgmlType::kQ8_K, b);
  for (int j = 0; j < 256; ++j) EXPECT_EQ(y[j], 0.25f * static_cast<int8_t>(j)) << j;
}

// TQ2_0: element 128 c + 32 k + m is bits 2k..2k+1 of qs[32 c + m], as t + 1.
TEST(DequantizeTest, TQ2_0) {
  const auto trit = [](int e) { return (e * 7 + e / 5) % 3 - 1; };
  std::vector<uint8_t> b(64, 0);
  for (int e = 0; e < 256; ++e) {
    const int c = e / 128;
    const int k = (e % 128) / 32;
    const int m = e % 32;
    b[32 * c + m] |= static_cast<uint8_t>((trit(e) + 1) << (2 * k));
  }
  Append(b, kHalfHalf);
  const auto y = DequantizeBytes(GgmlType::kTQ2_0, b);
  for (int e = 0; e < 256; ++e) EXPECT_EQ(y[e], 0.5f * trit(e)) << e;
  // Bit pattern 3 is outside the ternary alphabet; ggml reads it as +2d.
  b[0] = 0x03;
  EXPECT_EQ(DequantizeBytes(GgmlType::kTQ2_0, b)[0], 1.0f);
}

// TQ1_0 with literal bytes. 188 = ceil(v * 256 / 243) for v = 21012 in base 3
// (= 178), digits t + 1 = (2, 0, 1, 2, 1) -> trits (1, -1, 0, 1, 0).
// 128 packs 11111 (all trits 0). qh: 187 packs 2012 then a zero digit
// (59 * 3 = 177 -> ceil(177 * 256 / 243) = 187), 127 packs 1111 then 0.
TEST(DequantizeTest, TQ1_0) {
  std::vector<uint8_t> b;
  for (int m = 0; m < 48; ++m) b.push_back(m % 2 == 0 ? 188 : 128);  // qs
  for (int j = 0; j < 4; ++j) b.push_back(j % 2 == 0 ? 187 : 127);   // qh
  Append(b, kHalfThree);
  ASSERT_EQ(b.size(), 54u);
  const auto y = DequantizeBytes(GgmlType::kTQ1_0, b);
  constexpr int kTrits188[5] = {1, -1, 0, 1, 0};
  constexpr int kTrits187[4] = {1, -1, 0, 1};
  std::vector<float> expected(256);
  for (int k = 0; k < 5; ++k) {
    for (int m = 0; m < 32; ++m) expected[32 * k + m] = m % 2 == 0 ? 3.0f * kTrits188[k] : 0.0f;
    for (int m = 0; m < 16; ++m) expected[160 + 16 * k + m] = m % 2 == 0 ? 3.0f * kTrits188[k] : 0.0f;
  }
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 4; ++j) expected[240 + 4 * k + j] = j % 2 == 0 ? 3.0f * kTrits187[k] : 0.0f;
  }
  EXPECT_EQ(y, expected);
}


// GGML's kvalues_iq4nl, written out here (not taken from iq_quants.h) so a
// wrong codebook entry in the code fails these tests.
constexpr int kIQ4NL[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// IQ4_NL: x = d * kIQ4NL[q], nibbles as q4_0 (element j low, j + 16 high).
TEST(DequantizeTest, IQ4_NL) {
  std::vector<uint8_t> b;
  Append(b, kHalfHalf);
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  Append(b, kHalfMinusOne);  // a second block with its own scale
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(((j + 3) & 15) | (j << 4)));
  const auto y = DequantizeBytes(GgmlType::kIQ4_NL, b);
  ASSERT_EQ(y.size(), 64u);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * kIQ4NL[j]) << j;
    EXPECT_EQ(y[16 + j], 0.5f * kIQ4NL[15 - j]) << j;
    EXPECT_EQ(y[32 + j], -1.0f * kIQ4NL[(j + 3) & 15]) << j;
    EXPECT_EQ(y[48 + j], -1.0f * kIQ4NL[j]) << j;
  }
  EXPECT_EQ(y[0], -63.5f);
  EXPECT_EQ(y[16], 56.5f);
}

// GGML's kvalues_mxfp4 (twice the E2M1 values), written out here for the
// same reason.
constexpr int kMxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// MXFP4: x = 2^(e - 128) * kMxfp4[q] (half of the E8M0 scale 2^(e - 127),
// the table being doubled), nibbles as q4_0. e = 127: 0.5; e = 130: 4.
TEST(DequantizeTest, MXFP4) {
  std::vector<uint8_t> b;
  b.push_back(127);
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
  b.push_back(130);  // a second block with its own exponent
  for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(((j + 3) & 15) | (j << 4)));
  const auto y = DequantizeBytes(GgmlType::kMXFP4, b);
  ASSERT_EQ(y.size(), 64u);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * kMxfp4[j]) << j;
    EXPECT_EQ(y[16 + j], 0.5f * kMxfp4[15 - j]) << j;
    EXPECT_EQ(y[32 + j], 4.0f * kMxfp4[(j + 3) & 15]) << j;
    EXPECT_EQ(y[48 + j], 4.0f * kMxfp4[j]) << j;
  }
  EXPECT_EQ(y[7], 6.0f);     // code 7: E2M1 6 (12 doubled) at 2^-1
  EXPECT_EQ(y[16], -6.0f);   // code 15: -6
  EXPECT_EQ(y[8], 0.0f);     // code 8 (E2M1 -0) reads as +0, as ggml's table has it
  EXPECT_FALSE(std::signbit(y[8]));
  EXPECT_EQ(y[32 + 4], 48.0f);  // code 7 at 2^2
}

// The E8M0 edges as ggml converts them (ggml_e8m0_to_fp32_half): e = 0 and
// 1 the subnormal scales 2^-128 and 2^-127 (values stay exact: 12 * 2^-128 is
// a subnormal float too), 127 gives 0.5, 254 gives 2^126 and 255, which the
// OCP spec reserves for NaN, 2^127; products past the float range are
// infinities (ggml's too), never NaN.
TEST(DequantizeTest, MXFP4ExponentEdges) {
  for (int e : {0, 1, 2, 126, 127, 128, 253, 254, 255}) {
    std::vector<uint8_t> b;
    b.push_back(static_cast<uint8_t>(e));
    for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(j | ((15 - j) << 4)));
    const auto y = DequantizeBytes(GgmlType::kMXFP4, b);
    for (int j = 0; j < 16; ++j) {
      // std::ldexp on floats: 2^(e - 128) times the value, overflowing to inf.
      EXPECT_EQ(y[j], std::ldexp(static_cast<float>(kMxfp4[j]), e - 128)) << "e " << e << " j " << j;
      EXPECT_EQ(y[16 + j], std::ldexp(static_cast<float>(kMxfp4[15 - j]), e - 128)) << "e " << e << " j " << j;
    }
  }
  const auto at = [](int e, int code) {
    std::vector<uint8_t> b(17, 0);
    b[0] = static_cast<uint8_t>(e);
    b[1] = static_cast<uint8_t>(code);
    return DequantizeBytes(GgmlType::kMXFP4, b)[0];
  };
  EXPECT_EQ(at(0, 1), std::ldexp(1.0f, -128));
  EXPECT_EQ(at(1, 1), std::ldexp(1.0f, -127));
  EXPECT_EQ(at(0, 7), 12.0f * std::ldexp(1.0f, -128));
  EXPECT_EQ(at(127, 1), 0.5f);
  EXPECT_EQ(at(254, 1), std::ldexp(1.0f, 126));
  EXPECT_EQ(at(254, 3), 3.0f * std::ldexp(1.0f, 126));  // 1.5 * 2^127: the largest finite value
  EXPECT_EQ(at(254, 4), INFINITY);
  EXPECT_EQ(at(255, 1), std::ldexp(1.0f, 127));
  EXPECT_EQ(at(255, 9), -std::ldexp(1.0f, 127));
  EXPECT_EQ(at(255, 2), INFINITY);
  EXPECT_EQ(at(255, 0), 0.0f);
}

// Bit for bit what ggml's own dequantizer (its type traits' to_float, through
// llama-cpp-python's libggml-base; tools/record_ggml_quants.py) gives for 256
// blocks, block e with exponent byte e and nibbles (j + e) % 16 low,
// (15 - j + e) % 16 high: every exponent against every code.
TEST(DequantizeTest, MXFP4MatchesGgmlForEveryExponent) {
  std::ifstream f(trit::testing::SourcePath("tests/data/reference/ggml_quants.json"));
  const nlohmann::json ref = nlohmann::json::parse(f).at("dequantized").at("mxfp4");
  const auto bytes_of = [](const std::string& hex) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
  };
  const std::vector<uint8_t> blocks = bytes_of(ref.at("blocks").get<std::string>());
  const std::vector<uint8_t> floats = bytes_of(ref.at("floats").get<std::string>());
  ASSERT_EQ(blocks.size(), 256u * 17u);
  for (int e = 0; e < 256; ++e) {  // the recorded blocks are the ones described above
    ASSERT_EQ(blocks[e * 17], e);
    for (int j = 0; j < 16; ++j) ASSERT_EQ(blocks[e * 17 + 1 + j], ((j + e) % 16) | (((15 - j + e) % 16) << 4));
  }
  const auto y = DequantizeBytes(GgmlType::kMXFP4, blocks);
  ASSERT_EQ(floats.size(), y.size() * 4);
  for (size_t i = 0; i < y.size(); ++i) {
    uint32_t got, want;
    std::memcpy(&got, &y[i], 4);
    std::memcpy(&want, &floats[4 * i], 4);  // little-endian, as x86 and ARM store it
    ASSERT_EQ(got, want) << "block " << i / 32 << " element " << i % 32;
  }
}

// IQ4_XS: sub-block i (32 elements) has x = d * (ls_i - 32) * kIQ4NL[q]. The
// 6-bit ls_i = {0, 63, 32, 33, 31, 16, 47, 40}: low nibbles {0, 15, 0, 1, 15,
// 0, 15, 8} -> scales_l = {0xF0, 0x10, 0x0F, 0x8F}; high 2 bits {0, 3, 2, 2,
// 1, 1, 2, 2} at bits 2i -> scales_h = 0xA5AC. qs[16 i + j] holds element j
// (low nibble) and j + 16 (high nibble) of sub-block i.
TEST(DequantizeTest, IQ4_XS) {
  constexpr int kLs[8] = {0, 63, 32, 33, 31, 16, 47, 40};
  std::vector<uint8_t> b;
  Append(b, kHalfQuarter);
  b.push_back(0xAC);
  b.push_back(0xA5);
  for (uint8_t v : {0xF0, 0x10, 0x0F, 0x8F}) b.push_back(v);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 16; ++j) b.push_back(static_cast<uint8_t>(((j + i) & 15) | (((15 - j + 2 * i) & 15) << 4)));
  }
  ASSERT_EQ(b.size(), 136u);
  const auto y = DequantizeBytes(GgmlType::kIQ4_XS, b);
  ASSERT_EQ(y.size(), 256u);
  for (int i = 0; i < 8; ++i) {
    const float dl = 0.25f * static_cast<float>(kLs[i] - 32);
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(y[32 * i + j], dl * kIQ4NL[(j + i) & 15]) << i << " " << j;
      EXPECT_EQ(y[32 * i + 16 + j], dl * kIQ4NL[(15 - j + 2 * i) & 15]) << i << " " << j;
    }
  }
  EXPECT_EQ(y[0], 0.25f * -32 * -127);  // ls 0: the most negative scale
  EXPECT_EQ(y[32 + 1], 0.25f * 31 * -83);  // index (1 + 1) & 15
  EXPECT_EQ(y[64], 0.0f);  // ls 32: scale 0
}

}  // namespace
}  // namespace trit::quant
