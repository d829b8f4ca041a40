// The value changes of `trit convert` (src/convert/hf_tensor_transform.*):
// Gemma's 1 + w in the dtype llama.cpp's modify_tensors sees (BF16 widened
// to F32 first) and Llama's rope row permutation, on hand-computed values.
#include "convert/hf_tensor_transform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/half.h"

namespace trit::convert {
namespace {

using safetensors::Dtype;

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// 3/256 is exact in bf16; 1 + 3/256 needs 8 fraction bits, one more than
// bf16 has: a bf16 add would round it to 1 + 4/256, llama.cpp's f32 add keeps it.
TEST(HfTensorTransformTest, AddOneToBf16IsDoneInF32) {
  const std::vector<uint16_t> w = {FloatToBf16(3.0f / 256), FloatToBf16(-0.5f), FloatToBf16(0.0f)};
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kAddOne, 0, Dtype::kBF16, {3}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, Dtype::kF32);
  EXPECT_EQ(As<float>(t->bytes), (std::vector<float>{1.0f + 3.0f / 256, 0.5f, 1.0f}));
}

TEST(HfTensorTransformTest, AddOneToF16StaysF16AndRoundsOnce) {
  // 1 + 3/2048 needs 11 fraction bits; half has 10: nearest even is 1 + 4/2048.
  const std::vector<uint16_t> w = {FloatToHalf(3.0f / 2048), FloatToHalf(2.0f)};
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kAddOne, 0, Dtype::kF16, {2}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, Dtype::kF16);
  const std::vector<uint16_t> got = As<uint16_t>(t->bytes);
  EXPECT_EQ(HalfToFloat(got[0]), 1.0f + 4.0f / 2048);
  EXPECT_EQ(HalfToFloat(got[1]), 3.0f);
}

TEST(HfTensorTransformTest, AddOneToF32) {
  const std::vector<float> w = {0.25f, 1e-9f};
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kAddOne, 0, Dtype::kF32, {2}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, Dtype::kF32);
  EXPECT_EQ(As<float>(t->bytes), (std::vector<float>{1.25f, 1.0f}));
}

// One head of 4 rows: halves [0 1 | 2 3] become pairs 0 2 1 3.
TEST(HfTensorTransformTest, PermuteRopeInterleavesTheHalvesOfEachHead) {
  const std::vector<float> w = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};  // (8, 2): two heads
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kPermuteRope, 2, Dtype::kF32, {8, 2}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(As<float>(t->bytes), (std::vector<float>{0, 0, 2, 2, 1, 1, 3, 3, 4, 4, 6, 6, 5, 5, 7, 7}));
}

TEST(HfTensorTransformTest, PermuteRopeOfBf16GivesWidenedRows) {
  const std::vector<uint16_t> w = {FloatToBf16(0), FloatToBf16(1), FloatToBf16(2), FloatToBf16(3)};  // (4, 1)
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kPermuteRope, 1, Dtype::kBF16, {4, 1}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, Dtype::kF32);
  EXPECT_EQ(As<float>(t->bytes), (std::vector<float>{0, 2, 1, 3}));
}

TEST(HfTensorTransformTest, RefusesRowsThatDoNotSplitIntoHeadsAndOtherDtypes) {
  const std::vector<float> w(6, 0.0f);
  Expected<TransformedTensor> rows = TransformTensor(HfTransform::kPermuteRope, 2, Dtype::kF32, {6, 1}, Bytes(w));
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("6 rows"), std::string::npos) << rows.status().message();
  Expected<TransformedTensor> dtype = TransformTensor(HfTransform::kAddOne, 0, Dtype::kI8, {6}, Bytes(w));
  ASSERT_FALSE(dtype.ok());
  EXPECT_NE(dtype.status().message().find("I8"), std::string::npos) << dtype.status().message();
}

TEST(HfTensorTransformTest, NegExpIsMinusExpInF32) {
  const std::vector<uint16_t> w = {FloatToBf16(0.0f), FloatToBf16(1.0f), FloatToBf16(-2.0f)};
  Expected<TransformedTensor> t = TransformTensor(HfTransform::kNegExp, 0, Dtype::kBF16, {3}, Bytes(w));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, Dtype::kF32);
  EXPECT_EQ(As<float>(t->bytes), (std::vector<float>{-1.0f, -std::exp(1.0f), -std::exp(-2.0f)}));
}

// 2 key heads x 2 value heads each, head_dim 1, after 1 skipped row:
// rows [s | k0v0 k0v1 k1v0 k1v1] become [s | k0v0 k1v0 k0v1 k1v1].
TEST(HfTensorTransformTest, ValueHeadsMoveFromGroupedToTiledRows) {
  const std::vector<float> w = {9, 9, 0, 0, 1, 1, 2, 2, 3, 3};  // (5, 2)
  Expected<std::vector<uint8_t>> r = ReorderValueHeads({2, 2, 1, 1, false}, {5, 2}, 4, Bytes(w));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(As<float>(*r), (std::vector<float>{9, 9, 0, 0, 2, 2, 1, 1, 3, 3}));
}

// The same move of columns (out_proj's input), heads of 2 columns.
TEST(HfTensorTransformTest, ValueHeadsMoveAlongColumns) {
  std::vector<float> w;
  for (int row = 0; row < 2; ++row) {
    for (int c = 0; c < 8; ++c) w.push_back(static_cast<float>(10 * row + c));
  }
  Expected<std::vector<uint8_t>> r = ReorderValueHeads({2, 2, 2, 0, true}, {2, 8}, 4, Bytes(w));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(As<float>(*r), (std::vector<float>{0, 1, 4, 5, 2, 3, 6, 7, 10, 11, 14, 15, 12, 13, 16, 17}));
}

TEST(HfTensorTransformTest, ValueHeadReorderRefusesAnAxisThatDoesNotSplit) {
  const std::vector<float> w(6, 0.0f);
  Expected<std::vector<uint8_t>> r = ReorderValueHeads({2, 2, 1, 0, false}, {6}, 4, Bytes(w));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("an axis of 6"), std::string::npos) << r.status().message();
}

// gpt-oss's experts (llama.cpp's GptOssModel.modify_tensors): gate_up_proj
// [E, in, 2 x out] transposed, then rows ::2 gate and 1::2 up; a 2-D bias
// split along its last axis; down_proj only transposed.
TEST(HfTensorTransformTest, PicksGateAndUpFromTheInterleavedExperts) {
  // 2 experts, 3 inputs, 4 outputs (2 gate, 2 up): value = 100 e + 10 i + o.
  std::vector<uint16_t> w;
  for (int e = 0; e < 2; ++e) {
    for (int i = 0; i < 3; ++i) {
      for (int o = 0; o < 4; ++o) w.push_back(static_cast<uint16_t>(100 * e + 10 * i + o));
    }
  }
  Expected<std::vector<uint8_t>> gate = PickExperts({.transpose = true, .stride = 2}, {2, 3, 4}, 2, Bytes(w));
  ASSERT_TRUE(gate.ok()) << gate.status().message();
  EXPECT_EQ(As<uint16_t>(*gate), (std::vector<uint16_t>{0, 10, 20, 2, 12, 22, 100, 110, 120, 102, 112, 122}));
  Expected<std::vector<uint8_t>> up =
      PickExperts({.transpose = true, .stride = 2, .offset = 1}, {2, 3, 4}, 2, Bytes(w));
  ASSERT_TRUE(up.ok()) << up.status().message();
  EXPECT_EQ(As<uint16_t>(*up), (std::vector<uint16_t>{1, 11, 21, 3, 13, 23, 101, 111, 121, 103, 113, 123}));
  Expected<std::vector<uint8_t>> down = PickExperts({.transpose = true}, {2, 3, 4}, 2, Bytes(w));
  ASSERT_TRUE(down.ok()) << down.status().message();
  EXPECT_EQ(As<uint16_t>(*down).size(), 24u);
  EXPECT_EQ(As<uint16_t>(*down)[3], 1);  // t[0][1][0] = w[0][0][1]
  EXPECT_EQ(As<uint16_t>(*down)[4], 11);

  const std::vector<uint16_t> bias = {0, 1, 2, 3, 10, 11, 12, 13};  // [2, 4]
  Expected<std::vector<uint8_t>> up_bias = PickExperts({.stride = 2, .offset = 1}, {2, 4}, 2, Bytes(bias));
  ASSERT_TRUE(up_bias.ok()) << up_bias.status().message();
  EXPECT_EQ(As<uint16_t>(*up_bias), (std::vector<uint16_t>{1, 3, 11, 13}));
}

TEST(HfTensorTransformTest, RefusesAPickThatDoesNotFit) {
  const std::vector<uint8_t> six(6);
  EXPECT_EQ(PickExperts({.stride = 2}, {1, 3, 2}, 1, six).status().message(), "experts: 3 rows do not split 2 ways");
  EXPECT_EQ(PickExperts({.transpose = true}, {2, 3}, 1, six).status().message(),
            "experts: cannot take [:, 0::1] of the transpose of a tensor of rank 2");
  EXPECT_EQ(PickExperts({}, {1, 2, 2}, 1, six).status().message(),
            "experts: 6 bytes for 1 x 2 x 2 elements of 1 bytes");
}

// The published MXFP4 block holds element 2j in the low nibble of byte j
// and 2j + 1 in the high one; GGUF's holds j low and j + 16 high in qs[j].
TEST(HfTensorTransformTest, RepacksMxfp4NibblesAndKeepsTheScale) {
  std::vector<uint8_t> codes(32);  // element k's 4-bit code
  for (size_t k = 0; k < 32; ++k) codes[k] = static_cast<uint8_t>((k * 7 + 3) % 16);
  std::vector<uint8_t> blocks(16);
  for (size_t j = 0; j < 16; ++j) blocks[j] = static_cast<uint8_t>(codes[2 * j] | codes[2 * j + 1] << 4);
  const std::vector<uint8_t> scales = {119};
  std::vector<uint8_t> out(17);
  RepackMxfp4(blocks, scales, out);
  EXPECT_EQ(out[0], 119);
  for (size_t j = 0; j < 16; ++j) {
    EXPECT_EQ(out[1 + j] & 0x0F, codes[j]) << j;
    EXPECT_EQ(out[1 + j] >> 4, codes[j + 16]) << j;
  }
}

}  // namespace
}  // namespace trit::convert
