// convert/hf_ternary.h on hand-made tensors: the absmean rule's rounding
// and clamp, transformers' packed row order, each weight_scale rule, and
// what is refused.
#include "convert/hf_ternary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "quant/i2s_quants.h"

namespace trit::convert {
namespace {

using safetensors::Dtype;

std::span<const uint8_t> Bytes(const std::vector<float>& v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)};
}

TEST(HfTernaryTest, AbsmeanRoundsHalfToEvenAndClamps) {
  // mean |w| = 1, so s = 1 and t = clamp(round(w)): 0.5 -> 0 and -0.5 -> 0
  // (half to even, as torch.round), 1.5 -> 2 -> 1, -3 -> -1.
  const std::vector<float> w = {0.5f, -0.5f, 1.5f, -3.0f, 0.25f, 1.25f, -0.75f, 0.25f};
  Expected<TernaryWeight> t = TernarizeAbsmean(Dtype::kF32, Bytes(w), 8);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->t, (std::vector<int8_t>{0, 0, 1, -1, 0, 1, -1, 0}));
  EXPECT_EQ(t->scale, 1.0f);
  // All zeros: the mean clamps to 1e-5, every t is 0.
  Expected<TernaryWeight> z = TernarizeAbsmean(Dtype::kF32, Bytes(std::vector<float>(4, 0.0f)), 4);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->t, std::vector<int8_t>(4, 0));
  EXPECT_EQ(z->scale, 1.0f / (1.0f / 1e-5f));
  const std::vector<float> bad = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  Expected<TernaryWeight> n = TernarizeAbsmean(Dtype::kF32, Bytes(bad), 2);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("element 1"), std::string::npos) << n.status().message();
}

TEST(HfTernaryTest, UnpacksTransformersRowOrderAndAppliesTheScaleRule) {
  // 8 rows of 1 column: packed row j holds rows j (bits 0-1), j + 2 (2-3),
  // j + 4 (4-5), j + 6 (6-7), code = t + 1.
  const std::vector<int8_t> want = {1, -1, 0, 1, -1, 0, 1, 1};
  std::vector<uint8_t> packed(2, 0);
  for (int r = 0; r < 8; ++r) packed[r % 2] |= static_cast<uint8_t>((want[r] + 1) << (2 * (r / 2)));
  const float ws = 4.0f;
  std::vector<uint8_t> scale(4);
  std::memcpy(scale.data(), &ws, 4);
  Expected<TernaryWeight> d = UnpackBitnetWeight(packed, 8, 1, Dtype::kF32, scale, WeightScaleRule::kDivide);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->t, want);
  EXPECT_EQ(d->scale, 0.25f);
  Expected<TernaryWeight> m = UnpackBitnetWeight(packed, 8, 1, Dtype::kF32, scale, WeightScaleRule::kMultiply);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->scale, 4.0f);
  packed[1] |= 3 << 6;  // row 7: code 3
  Expected<TernaryWeight> three = UnpackBitnetWeight(packed, 8, 1, Dtype::kF32, scale, WeightScaleRule::kDivide);
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.status().message().find("[7, 0]"), std::string::npos) << three.status().message();
  const float zero = 0.0f;
  std::memcpy(scale.data(), &zero, 4);
  EXPECT_FALSE(UnpackBitnetWeight({packed.data(), 1}, 4, 1, Dtype::kF32, scale, WeightScaleRule::kDivide).ok());
}

TEST(HfTernaryTest, WritesEachTypeExactly) {
  TernaryWeight w;
  for (int i = 0; i < 512; ++i) w.t.push_back(static_cast<int8_t>(i % 3 - 1));
  w.scale = 0.0123f;
  std::vector<uint8_t> i2s(quant::I2SBytes(512));
  ASSERT_TRUE(WriteTernary(w, 256, quant::GgmlType::kI2_S, i2s).ok());
  EXPECT_EQ(quant::I2SScale(i2s), w.scale);
  std::vector<int8_t> back(512);
  quant::UnpackI2S(i2s.data(), back.data(), 512);
  EXPECT_EQ(back, w.t);
  for (quant::GgmlType type : {quant::GgmlType::kTQ2_0, quant::GgmlType::kTQ1_0}) {
    const quant::TypeInfo& info = quant::GetType(type);
    std::vector<uint8_t> q(static_cast<size_t>(512 / info.block_size * info.type_size));
    ASSERT_TRUE(WriteTernary(w, 256, type, q).ok());
    std::vector<float> v(512);
    info.dequantize(q.data(), v.data(), 512);
    for (int i = 0; i < 512; ++i) ASSERT_EQ(v[i], w.t[i]) << info.name << " " << i;  // d = 1: the codes themselves
  }
  std::vector<uint8_t> f32(512 * 4);
  ASSERT_TRUE(WriteTernary(w, 256, quant::GgmlType::kF32, f32).ok());
  std::vector<float> v(512);
  std::memcpy(v.data(), f32.data(), f32.size());
  for (int i = 0; i < 512; ++i) ASSERT_EQ(v[i], w.t[i] * w.scale);
}

}  // namespace
}  // namespace trit::convert
