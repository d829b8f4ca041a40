// The GGUF type rule and the element conversion of `trit convert`
// (src/convert/hf_tensor_data.*), against hand-computed IEEE bit patterns and
// q8_0 blocks (gguf-py's own bytes: tests/python/hf_convert_crosscheck_test.py).
#include "convert/hf_tensor_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "base/half.h"
#include "quant/types.h"

namespace trit::convert {
namespace {

using quant::GgmlType;
using safetensors::Dtype;

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v, size_t offset = 0) {
  std::vector<uint8_t> out(offset + v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data() + offset, v.data(), v.size() * sizeof(T));
  return out;
}

template <typename T>
std::vector<T> As(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// GgufTypeFor with a shape written inline (GGUF order: the row length first).
GgmlType TypeFor(std::string_view name, std::vector<int64_t> gguf_shape, GgmlType requested) {
  return GgufTypeFor(name, gguf_shape, requested);
}

TEST(HfTensorDataTest, TypeRuleIsTheConvertersRule) {
  EXPECT_EQ(TypeFor("blk.0.attn_q.weight", {4, 4}, GgmlType::kF16), GgmlType::kF16);
  EXPECT_EQ(TypeFor("token_embd.weight", {4, 11}, GgmlType::kF16), GgmlType::kF16);
  EXPECT_EQ(TypeFor("blk.0.attn_q.bias", {4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("blk.0.attn_output_norm.weight", {4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("blk.0.fancy_norm.weight", {4, 4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("position_embd.weight", {4, 4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("token_types.weight", {4, 4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("blk.0.something.scale", {4, 4}, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(TypeFor("blk.0.attn_q.weight", {4, 4}, GgmlType::kF32), GgmlType::kF32);
}

TEST(HfTensorDataTest, Bf16AndQ8_0MatricesFollowTheSameRule) {
  for (GgmlType t : {GgmlType::kBF16, GgmlType::kQ8_0}) {
    const std::string_view name = quant::GetType(t).name;
    EXPECT_EQ(TypeFor("blk.0.attn_q.weight", {64, 64}, t), t) << name;
    EXPECT_EQ(TypeFor("token_embd.weight", {384, 30522}, t), t) << name;
    EXPECT_EQ(TypeFor("blk.0.attn_q.bias", {64}, t), GgmlType::kF32) << name;
    EXPECT_EQ(TypeFor("blk.0.attn_output_norm.weight", {64}, t), GgmlType::kF32) << name;
    EXPECT_EQ(TypeFor("blk.0.fancy_norm.weight", {64, 64}, t), GgmlType::kF32) << name;
    EXPECT_EQ(TypeFor("position_embd.weight", {384, 512}, t), GgmlType::kF32) << name;
    EXPECT_EQ(TypeFor("token_types.weight", {384, 2}, t), GgmlType::kF32) << name;
    EXPECT_EQ(TypeFor("blk.0.something.scale", {64, 64}, t), GgmlType::kF32) << name;
  }
}

TEST(HfTensorDataTest, Q8_0RowsOfPartBlocksFallBackToF16) {
  // gguf-py raises QuantError unless the row (numpy's last axis, GGUF's
  // first) is whole 32-value blocks, and the converter then writes f16.
  EXPECT_EQ(TypeFor("blk.0.ffn_down.weight", {48, 64}, GgmlType::kQ8_0), GgmlType::kF16);
  EXPECT_EQ(TypeFor("blk.0.attn_q.weight", {4, 4}, GgmlType::kQ8_0), GgmlType::kF16);
  EXPECT_EQ(TypeFor("blk.0.ffn_up.weight", {64, 48}, GgmlType::kQ8_0), GgmlType::kQ8_0);  // the other axis is free
  EXPECT_EQ(TypeFor("blk.0.ffn_down.weight", {48, 64}, GgmlType::kBF16), GgmlType::kBF16);  // bf16 blocks are 1 value
  EXPECT_EQ(TypeFor("blk.0.attn_q.bias", {48}, GgmlType::kQ8_0), GgmlType::kF32);  // the f32 rule comes first
}

TEST(HfTensorDataTest, TheTypesTritConvertWrites) {
  for (GgmlType t : {GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16, GgmlType::kQ8_0}) EXPECT_TRUE(IsHfConvertType(t));
  for (GgmlType t : {GgmlType::kQ4_0, GgmlType::kQ8_1, GgmlType::kQ6_K, GgmlType::kTQ2_0}) {
    EXPECT_FALSE(IsHfConvertType(t)) << quant::GetType(t).name;
  }
  EXPECT_EQ(HfConvertTypeNames(), "f32, f16, bf16 or q8_0");
}

TEST(HfTensorDataTest, F32ToF16RoundsToNearestEven) {
  // 1 -> 0x3C00, -2 -> 0xC000, 0.1 -> 0x2E66, 65504 (max half) -> 0x7BFF, 1e-8 -> 0 (underflow).
  const std::vector<float> in = {1.0f, -2.0f, 0.1f, 65504.0f, 1e-8f};
  std::vector<uint8_t> out(in.size() * 2);
  ASSERT_TRUE(ConvertElements(Dtype::kF32, Bytes(in), GgmlType::kF16, out).ok());
  EXPECT_EQ(As<uint16_t>(out), (std::vector<uint16_t>{0x3C00, 0xC000, 0x2E66, 0x7BFF, 0x0000}));
}

TEST(HfTensorDataTest, HalfAndBf16WidenExactly) {
  std::vector<uint8_t> out(3 * 4);
  ASSERT_TRUE(ConvertElements(Dtype::kF16, Bytes<uint16_t>({0x3C00, 0xC000, 0x3555}), GgmlType::kF32, out).ok());
  EXPECT_EQ(As<float>(out), (std::vector<float>{1.0f, -2.0f, HalfToFloat(0x3555)}));
  ASSERT_TRUE(ConvertElements(Dtype::kBF16, Bytes<uint16_t>({0x3F80, 0xC040, 0x3DCD}), GgmlType::kF32, out).ok());
  EXPECT_EQ(As<float>(out), (std::vector<float>{1.0f, -3.0f, BitsToFloat(0x3DCD0000u)}));
  std::vector<uint8_t> half(3 * 2);
  ASSERT_TRUE(ConvertElements(Dtype::kBF16, Bytes<uint16_t>({0x3F80, 0xC040, 0x3DCD}), GgmlType::kF16, half).ok());
  EXPECT_EQ(As<uint16_t>(half), (std::vector<uint16_t>{0x3C00, 0xC200, FloatToHalf(BitsToFloat(0x3DCD0000u))}));
}

TEST(HfTensorDataTest, SameTypeIsCopiedAndMisalignedSourcesAreRead) {
  // More elements than one chunk (4096), from a source one byte off float alignment.
  std::vector<float> in(5000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.25f - 100.0f;
  const std::vector<uint8_t> shifted = Bytes(in, 1);
  std::span<const uint8_t> src(shifted.data() + 1, in.size() * 4);
  std::vector<uint8_t> out(in.size() * 4);
  ASSERT_TRUE(ConvertElements(Dtype::kF32, src, GgmlType::kF32, out).ok());
  EXPECT_EQ(As<float>(out), in);
  std::vector<uint8_t> half(in.size() * 2);
  ASSERT_TRUE(ConvertElements(Dtype::kF32, src, GgmlType::kF16, half).ok());
  const std::vector<uint16_t> h = As<uint16_t>(half);
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(h[i], FloatToHalf(in[i])) << i;
}

TEST(HfTensorDataTest, F32ToBf16RoundsToNearestEvenAndQuietsNaNs) {
  const std::vector<uint32_t> in = {
      0x3F800000,  // 1.0
      0x3F808000,  // halfway, the even neighbour below: 0x3F80
      0x3F818000,  // halfway, the odd 0x3F81 below: up to 0x3F82
      0x3F808001,  // just above halfway: up
      0x3F807FFF,  // just below halfway: down
      0x7F7FFFFF,  // the largest float rounds to infinity
      0xFF800000,  // -inf stays
      0x7FC00000,  // quiet NaN
      0x7F800001,  // signalling NaN: made quiet (bit 6 of the bf16), not rounded into infinity
      0xFF812345,  // a negative signalling NaN keeps its sign and top payload bits
      0x00000001,  // the smallest subnormal rounds to +0
      0x80008000,  // a negative halfway subnormal rounds to -0
  };
  std::vector<uint8_t> out(in.size() * 2);
  ASSERT_TRUE(ConvertElements(Dtype::kF32, Bytes(in), GgmlType::kBF16, out).ok());
  EXPECT_EQ(As<uint16_t>(out), (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F82, 0x3F81, 0x3F80, 0x7F80, 0xFF80, 0x7FC0,
                                                      0x7FC0, 0xFFC1, 0x0000, 0x8000}));
}

TEST(HfTensorDataTest, Bf16AndF16SourcesToBf16) {
  // A BF16 source is widened and narrowed again, as the converter's
  // float32 round trip does: values stay, a signalling NaN becomes quiet.
  std::vector<uint8_t> out(4 * 2);
  const std::vector<uint16_t> in = {0x3F80, 0x7F81, 0xFFFF, 0x0001};
  ASSERT_TRUE(ConvertElements(Dtype::kBF16, Bytes(in), GgmlType::kBF16, out).ok());
  EXPECT_EQ(As<uint16_t>(out), (std::vector<uint16_t>{0x3F80, 0x7FC1, 0xFFFF, 0x0001}));
  // Half 0x3555 is float32 0x3EAAA000: its low half 0xA000 is above halfway.
  std::vector<uint8_t> two(2 * 2);
  ASSERT_TRUE(ConvertElements(Dtype::kF16, Bytes<uint16_t>({0x3C00, 0x3555}), GgmlType::kBF16, two).ok());
  EXPECT_EQ(As<uint16_t>(two), (std::vector<uint16_t>{0x3F80, 0x3EAB}));
}

TEST(HfTensorDataTest, Q8_0BlocksAsGgmlsReferenceComputesThem) {
  // Block 0: amax 127, so d = 1 (half 0x3C00) and each quant is its value
  // rounded half away from zero. Block 1: zeros, d = 0. Block 2: amax 254,
  // d = 2 (0x4000), quants x / 2 rounded away. Block 3: amax 1, d = 1/127,
  // whose half is 0x2008 (2^-7 x (1 + 8/1024)).
  std::vector<float> in(4 * 32, 0.0f);
  const float block0[] = {127.0f, -127.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 0.49f, 126.5f};
  std::copy(std::begin(block0), std::end(block0), in.begin());
  for (int j = 9; j < 32; ++j) in[j] = static_cast<float>(j - 20);
  const float block2[] = {254.0f, 3.0f, -1.0f, 1.0f, -3.0f, 0.9f};
  std::copy(std::begin(block2), std::end(block2), in.begin() + 64);
  in[96] = 1.0f;
  in[97] = -1.0f;
  std::vector<uint8_t> out(4 * 34);
  ASSERT_TRUE(ConvertElements(Dtype::kF32, Bytes(in), GgmlType::kQ8_0, out).ok());
  std::vector<uint8_t> want(4 * 34, 0);
  const uint8_t want0[] = {0x00, 0x3C, 0x7F, 0x81, 0x01, 0xFF, 0x02, 0x03, 0xFD, 0x00, 0x7F};
  std::copy(std::begin(want0), std::end(want0), want.begin());
  for (int j = 9; j < 32; ++j) want[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(j - 20));
  const uint8_t want2[] = {0x00, 0x40, 0x7F, 0x02, 0xFF, 0x01, 0xFE, 0x00};
  std::copy(std::begin(want2), std::end(want2), want.begin() + 68);
  const uint8_t want3[] = {0x08, 0x20, 0x7F, 0x81};
  std::copy(std::begin(want3), std::end(want3), want.begin() + 102);
  EXPECT_EQ(out, want);
}

TEST(HfTensorDataTest, Q8_0OfAHalfSourceAcrossChunksEqualsTheWholeRow) {
  // 4160 values: one chunk of 4096 and a second of two blocks, from a half
  // source one byte off alignment; the blocks must be those of one call.
  std::vector<uint16_t> in(4096 + 64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = FloatToHalf(std::sin(static_cast<float>(i) * 0.37f) * 3.0f);
  const std::vector<uint8_t> shifted = Bytes(in, 1);
  std::span<const uint8_t> src(shifted.data() + 1, in.size() * 2);
  std::vector<uint8_t> out(in.size() / 32 * 34);
  ASSERT_TRUE(ConvertElements(Dtype::kF16, src, GgmlType::kQ8_0, out).ok());
  std::vector<float> values(in.size());
  for (size_t i = 0; i < in.size(); ++i) values[i] = HalfToFloat(in[i]);
  std::vector<uint8_t> whole(out.size());
  quant::GetType(GgmlType::kQ8_0).quantize(values.data(), whole.data(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(out, whole);
}

TEST(HfTensorDataTest, Q8_0RefusesNonFiniteValuesByElement) {
  std::vector<float> in(64, 0.25f);
  in[40] = std::numeric_limits<float>::infinity();
  std::vector<uint8_t> out(2 * 34);
  Status s = ConvertElements(Dtype::kF32, Bytes(in), GgmlType::kQ8_0, out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(s.message(), "element 40 is inf: q8_0 cannot hold it; convert with --type f16, bf16 or f32");
  // A NaN in the second chunk is found too; the other types take both.
  std::vector<uint16_t> halves(4096 + 32, 0x3C00);
  halves[4100] = 0x7E00;
  std::vector<uint8_t> q(halves.size() / 32 * 34);
  s = ConvertElements(Dtype::kF16, Bytes(halves), GgmlType::kQ8_0, q);
  EXPECT_EQ(s.message(), "element 4100 is nan: q8_0 cannot hold it; convert with --type f16, bf16 or f32");
  std::vector<uint8_t> bf16(in.size() * 2);
  EXPECT_TRUE(ConvertElements(Dtype::kF32, Bytes(in), GgmlType::kBF16, bf16).ok());
  EXPECT_EQ(As<uint16_t>(bf16)[40], 0x7F80);
}

TEST(HfTensorDataTest, OtherDtypesAreRefusedByName) {
  std::vector<uint8_t> out(8);
  Status s = ConvertElements(Dtype::kI64, Bytes<int64_t>({7}), GgmlType::kF32, std::span<uint8_t>(out).first(4));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(s.message(), "dtype I64: trit converts F32, F16 and BF16 tensors");
}

}  // namespace
}  // namespace trit::convert
