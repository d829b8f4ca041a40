// I2_S against its layout written out by hand (bitnet.cpp's quantize_i2_s,
// x86: byte 32 i + p, bits 6 - 2g hold value 128 i + 32 g + p, codes 0/1/2 =
// -1/0/+1, the float scale in the first 4 bytes after the packed values),
// and its rewrite as TQ2_0 blocks against TQ2_0's own dequantizer.
#include "quant/i2s_quants.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "quant/block_formats.h"
#include "quant/ternary_quants.h"

namespace trit::quant {
namespace {

std::vector<int8_t> RandomTernary(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int8_t> t(static_cast<size_t>(n));
  for (int8_t& v : t) v = static_cast<int8_t>(static_cast<int>(rng() % 3) - 1);
  return t;
}

TEST(I2STest, LayoutAsBitnetCppWritesIt) {
  // Value 128 i + 32 g + p sits in byte 32 i + p at bits 6 - 2g.
  std::vector<int8_t> t(256, 0);
  t[0] = 1;          // i 0, g 0, p 0: byte 0 bits 6-7 = 2
  t[32 + 5] = -1;    // i 0, g 1, p 5: byte 5 bits 4-5 = 0
  t[96 + 31] = 1;    // i 0, g 3, p 31: byte 31 bits 0-1 = 2
  t[128 + 64] = 1;   // i 1, g 2, p 0: byte 32 bits 2-3 = 2
  std::vector<uint8_t> packed(64);
  PackI2S(t.data(), packed.data(), 256);
  // Zero is code 1 in every field: 0b01010101.
  EXPECT_EQ(packed[0], 0b10010101);
  EXPECT_EQ(packed[5], 0b01000101);
  EXPECT_EQ(packed[31], 0b01010110);
  EXPECT_EQ(packed[32], 0b01011001);
  EXPECT_EQ(packed[1], 0b01010101);
  std::vector<int8_t> back(256);
  UnpackI2S(packed.data(), back.data(), 256);
  EXPECT_EQ(back, t);
}

TEST(I2STest, TensorBytesScaleAndDequantize) {
  EXPECT_EQ(I2SBytes(128), 32u + 32u);
  EXPECT_EQ(I2SBytes(4096), 1024u + 32u);
  const std::vector<int8_t> t = RandomTernary(512, 1);
  std::vector<float> x(512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.0417f * t[i];
  std::vector<uint8_t> tensor(I2SBytes(512), 0xee);
  ASSERT_TRUE(QuantizeI2S(x.data(), 512, 1.0f, tensor).ok());
  float scale;
  std::memcpy(&scale, tensor.data() + 128, sizeof scale);
  EXPECT_EQ(scale, 0.0417f);
  EXPECT_EQ(I2SScale(tensor), 0.0417f);
  for (size_t i = 132; i < tensor.size(); ++i) EXPECT_EQ(tensor[i], 0) << "padding byte " << i;
  std::vector<float> y(512);
  DequantizeI2S(tensor, y.data(), 512);
  EXPECT_EQ(y, x);
}

TEST(I2STest, QuantizeFoldsAMultiplierAndRefusesNonTernary) {
  const std::vector<int8_t> t = RandomTernary(256, 2);
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(t[i]);
  std::vector<uint8_t> tensor(I2SBytes(256));
  ASSERT_TRUE(QuantizeI2S(x.data(), 256, 0.25f, tensor).ok());
  EXPECT_EQ(I2SScale(tensor), 0.25f);
  // A value of another magnitude cannot share the tensor's one scale.
  x[17] = 0.5f;
  const Status s = QuantizeI2S(x.data(), 256, 1.0f, tensor);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("value 0.5 at element 17 is not +-1 or 0"), std::string::npos) << s.message();
  // |x| < 1e-6 is zero, as in bitnet.cpp, and an f16-rounded magnitude passes.
  x[17] = 5e-7f;
  x[18] = x[18] != 0.0f ? x[18] * 1.0004f : 0.0f;
  EXPECT_TRUE(QuantizeI2S(x.data(), 256, 1.0f, tensor).ok());
}

TEST(I2STest, RowsAsTQ2_0HoldTheSameTernaryValues) {
  const int64_t n_cols = 768, n_rows = 3;
  const std::vector<int8_t> t = RandomTernary(n_cols * n_rows, 3);
  std::vector<float> x(t.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = 2.5f * t[i];
  std::vector<uint8_t> tensor(I2SBytes(n_cols * n_rows));
  ASSERT_TRUE(QuantizeI2S(x.data(), n_cols * n_rows, 1.0f, tensor).ok());
  std::vector<uint8_t> row(static_cast<size_t>(n_cols / kQK_K) * sizeof(BlockTQ2_0));
  std::vector<float> got(static_cast<size_t>(n_cols));
  for (int64_t r = 0; r < n_rows; ++r) {
    I2SRowToTQ2_0(tensor, n_cols, r, row.data());
    DequantizeRowTQ2_0(row.data(), got.data(), n_cols);
    for (int64_t c = 0; c < n_cols; ++c) {
      ASSERT_EQ(got[static_cast<size_t>(c)], static_cast<float>(t[static_cast<size_t>(r * n_cols + c)]))
          << "row " << r << " col " << c;
    }
  }
}

TEST(I2STest, CodeThreeReadsAsTwoInBothLayouts) {
  // Never written, but a file may hold it: bitnet.cpp's kernels and TQ2_0 read q - 1.
  std::vector<uint8_t> tensor(I2SBytes(256), 0);
  tensor[0] = 0xff;
  const float one = 1.0f;
  std::memcpy(tensor.data() + 64, &one, sizeof one);
  std::vector<float> x(256);
  DequantizeI2S(tensor, x.data(), 256);
  EXPECT_EQ(x[0], 2.0f);
  EXPECT_EQ(x[96], 2.0f);
  EXPECT_EQ(x[1], -1.0f);
  std::vector<uint8_t> tq(sizeof(BlockTQ2_0));
  I2SRowToTQ2_0(tensor, 256, 0, tq.data());
  std::vector<float> y(256);
  DequantizeRowTQ2_0(tq.data(), y.data(), 256);
  EXPECT_EQ(y, x);
}

}  // namespace
}  // namespace trit::quant
