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

}  // namespace
}  // namespace trit::convert
