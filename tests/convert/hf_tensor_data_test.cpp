// The GGUF type rule and the element conversion of `trit convert`
// (src/convert/hf_tensor_data.*), against hand-computed IEEE bit patterns.
#include "convert/hf_tensor_data.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/half.h"

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

TEST(HfTensorDataTest, TypeRuleIsTheConvertersRule) {
  EXPECT_EQ(GgufTypeFor("blk.0.attn_q.weight", 2, GgmlType::kF16), GgmlType::kF16);
  EXPECT_EQ(GgufTypeFor("token_embd.weight", 2, GgmlType::kF16), GgmlType::kF16);
  EXPECT_EQ(GgufTypeFor("blk.0.attn_q.bias", 1, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("blk.0.attn_output_norm.weight", 1, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("blk.0.fancy_norm.weight", 2, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("position_embd.weight", 2, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("token_types.weight", 2, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("blk.0.something.scale", 2, GgmlType::kF16), GgmlType::kF32);
  EXPECT_EQ(GgufTypeFor("blk.0.attn_q.weight", 2, GgmlType::kF32), GgmlType::kF32);
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

TEST(HfTensorDataTest, OtherDtypesAreRefusedByName) {
  std::vector<uint8_t> out(8);
  Status s = ConvertElements(Dtype::kI64, Bytes<int64_t>({7}), GgmlType::kF32, std::span<uint8_t>(out).first(4));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(s.message(), "dtype I64: trit converts F32, F16 and BF16 tensors");
}

}  // namespace
}  // namespace trit::convert
