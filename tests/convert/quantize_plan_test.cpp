#include "convert/quantize_plan.h"

#include <gtest/gtest.h>

namespace trit::convert {
namespace {

using quant::GgmlType;
using quant::GetType;

gguf::TensorInfo Tensor(std::string name, std::vector<int64_t> shape, GgmlType type = GgmlType::kF32) {
  gguf::TensorInfo t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.type = &GetType(type);
  t.n_elements = 1;
  for (int64_t d : t.shape) t.n_elements *= d;
  return t;
}

TEST(QuantizePlanTest, EffectiveDimsIgnoresTrailingOnes) {
  EXPECT_EQ(EffectiveDims({64}), 1);
  EXPECT_EQ(EffectiveDims({64, 1}), 1);
  EXPECT_EQ(EffectiveDims({64, 2}), 2);
  EXPECT_EQ(EffectiveDims({64, 1, 3, 1}), 3);
}

TEST(QuantizePlanTest, OnlyWeightMatricesConvert) {
  std::vector<gguf::TensorInfo> ts = {Tensor("blk.0.attn_q.weight", {256, 256}), Tensor("blk.0.attn_norm.weight", {256}),
                                      Tensor("blk.0.attn_q.bias", {256, 4}), Tensor("blk.0.ffn_gate_inp.weight", {256, 8})};
  Expected<std::vector<TensorPlan>> p = PlanQuantization(ts, GetType(GgmlType::kQ4_K), FallbackPolicy::kAllow);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)[0].action, TensorAction::kConvert);
  EXPECT_EQ((*p)[0].target->type, GgmlType::kQ4_K);
  EXPECT_FALSE((*p)[0].fallback);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ((*p)[i].action, TensorAction::kCopy) << ts[i].name;
    EXPECT_EQ((*p)[i].target->type, GgmlType::kF32) << ts[i].name;
  }
}

TEST(QuantizePlanTest, FallbacksFollowLlamaQuantize) {
  struct Case {
    GgmlType requested;
    int64_t row;
    GgmlType expected;
  };
  const Case cases[] = {
      {GgmlType::kQ4_K, 64, GgmlType::kQ5_0},  {GgmlType::kQ5_K, 64, GgmlType::kQ5_1},
      {GgmlType::kQ6_K, 64, GgmlType::kQ8_0},  {GgmlType::kTQ1_0, 64, GgmlType::kQ4_0},
      {GgmlType::kTQ2_0, 96, GgmlType::kQ4_0}, {GgmlType::kTQ2_0, 172, GgmlType::kF16},
      {GgmlType::kQ8_0, 172, GgmlType::kF16},  {GgmlType::kQ4_K, 512, GgmlType::kQ4_K},
      {GgmlType::kIQ4_XS, 96, GgmlType::kIQ4_NL}, {GgmlType::kIQ4_XS, 172, GgmlType::kF16},
      {GgmlType::kIQ4_NL, 96, GgmlType::kIQ4_NL},
      // A 32-element type has no smaller block to fall back to: f16 (llama-quantize's default case).
      {GgmlType::kMXFP4, 96, GgmlType::kMXFP4}, {GgmlType::kMXFP4, 172, GgmlType::kF16},
  };
  for (const Case& c : cases) {
    std::vector<gguf::TensorInfo> ts = {Tensor("w.weight", {c.row, 4})};
    Expected<std::vector<TensorPlan>> p = PlanQuantization(ts, GetType(c.requested), FallbackPolicy::kAllow);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ((*p)[0].target->type, c.expected) << GetType(c.requested).name << " row " << c.row;
    EXPECT_EQ((*p)[0].fallback, c.expected != c.requested);
  }
}

TEST(QuantizePlanTest, StrictRefusesNamingTensor) {
  std::vector<gguf::TensorInfo> ts = {Tensor("blk.0.ffn_down.weight", {172, 64})};
  Expected<std::vector<TensorPlan>> p = PlanQuantization(ts, GetType(GgmlType::kTQ1_0), FallbackPolicy::kRefuse);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("'blk.0.ffn_down.weight'"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("172"), std::string::npos);
  EXPECT_NE(p.status().message().find("256"), std::string::npos);
}

TEST(QuantizePlanTest, SameTypeIsCopied) {
  std::vector<gguf::TensorInfo> ts = {Tensor("w.weight", {64, 4}, GgmlType::kQ8_0)};
  Expected<std::vector<TensorPlan>> p = PlanQuantization(ts, GetType(GgmlType::kQ8_0), FallbackPolicy::kAllow);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].action, TensorAction::kCopy);
}

// gpt-oss's files: expert tensors (3-D, [n_embd, n_ff, n_expert]) in mxfp4
// convert to another type (trit reads mxfp4 now), and f32 ones to mxfp4; the
// router stays as it is.
TEST(QuantizePlanTest, MXFP4ExpertsConvertBothWays) {
  std::vector<gguf::TensorInfo> ts = {Tensor("blk.0.ffn_up_exps.weight", {64, 32, 4}, GgmlType::kMXFP4),
                                      Tensor("blk.0.ffn_down_exps.weight", {32, 64, 4}),
                                      Tensor("blk.0.ffn_gate_inp.weight", {64, 4})};
  Expected<std::vector<TensorPlan>> to_q8 = PlanQuantization(ts, GetType(GgmlType::kQ8_0), FallbackPolicy::kRefuse);
  ASSERT_TRUE(to_q8.ok()) << to_q8.status().message();
  EXPECT_EQ((*to_q8)[0].action, TensorAction::kConvert);
  EXPECT_EQ((*to_q8)[0].target->type, GgmlType::kQ8_0);
  Expected<std::vector<TensorPlan>> to_mx = PlanQuantization(ts, GetType(GgmlType::kMXFP4), FallbackPolicy::kRefuse);
  ASSERT_TRUE(to_mx.ok()) << to_mx.status().message();
  EXPECT_EQ((*to_mx)[0].action, TensorAction::kCopy);  // already mxfp4
  EXPECT_EQ((*to_mx)[1].action, TensorAction::kConvert);
  EXPECT_EQ((*to_mx)[1].target->type, GgmlType::kMXFP4);
  EXPECT_EQ((*to_mx)[2].action, TensorAction::kCopy);  // the router stays f32
  EXPECT_EQ((*to_mx)[2].target->type, GgmlType::kF32);
}

TEST(QuantizePlanTest, UndecodableSourceIsRefused) {
  std::vector<gguf::TensorInfo> ts = {Tensor("w.weight", {256, 4}, GgmlType::kIQ2_XXS)};
  Expected<std::vector<TensorPlan>> p = PlanQuantization(ts, GetType(GgmlType::kQ8_0), FallbackPolicy::kAllow);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("iq2_xxs"), std::string::npos) << p.status().message();
}

TEST(QuantizePlanTest, FileTypes) {
  EXPECT_EQ(LlamaFileType(GgmlType::kQ8_0), 7);
  EXPECT_EQ(LlamaFileType(GgmlType::kTQ1_0), 36);
  EXPECT_EQ(LlamaFileType(GgmlType::kBF16), 32);
  EXPECT_EQ(LlamaFileType(GgmlType::kIQ4_NL), 25);
  EXPECT_EQ(LlamaFileType(GgmlType::kIQ4_XS), 30);
  EXPECT_EQ(LlamaFileType(GgmlType::kMXFP4), 38);  // LLAMA_FTYPE_MOSTLY_MXFP4_MOE
  EXPECT_EQ(LlamaFileType(GgmlType::kIQ2_XXS), -1);
}

}  // namespace
}  // namespace trit::convert
