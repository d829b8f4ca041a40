// The gpt-oss architecture on a tiny random-weight GptOssForCausalLM
// converted by llama.cpp's own converter (tests/data/hf/gpt_oss/): attention
// sinks, YaRN rope, alternating sliding-window layers, a biased router with a
// softmax over the chosen experts and the clamped SwiGLU, every row's logits
// against transformers' float32 forward of the same checkpoint; the same bits
// for any pass width and thread count.
#include <gtest/gtest.h>

#include <cmath>

#include "model/architecture.h"
#include "model/chunked_logits.h"
#include "model/model.h"
#include "model/moe.h"
#include "model/transformers_reference.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

constexpr const char* kModel = "tests/data/hf/gpt_oss/gpt-oss-tiny-f32.gguf";
constexpr const char* kLogits = "tests/data/hf/gpt_oss/expected_logits.json";

// Measured: within 2.0e-5 of transformers' float32 logits (rounded to 6
// decimals), both kernel sets; without the sinks off by 2.19, without YaRN
// (plain rope at freq_scale 1/32) by 3.44.
constexpr float kTolerance = 1e-4f;

std::unique_ptr<model::Model> Load(kernels::KernelSet set = kernels::KernelSet::kOptimized) {
  return LoadSourceModel(kModel, set);
}

TEST(GptOssTest, ReadsTheHyperParameters) {
  std::unique_ptr<model::Model> m = Load();
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.architecture, "gpt-oss");
  ASSERT_NE(model::FindArchitecture("gpt-oss"), nullptr);
  EXPECT_EQ(h.n_expert, 8);
  EXPECT_EQ(h.n_expert_used, 3);
  EXPECT_EQ(h.n_ff_exp, 32);
  EXPECT_EQ(h.n_swa, 4);
  EXPECT_TRUE(h.is_swa(0));
  EXPECT_FALSE(h.is_swa(1));
  EXPECT_TRUE(h.is_swa(2));
  EXPECT_FALSE(h.is_swa(3));
  // YaRN, factor 32 over 4096 positions, head_dim 16: correction dims
  // floor(16 ln(4096 / 64 pi) / 2 ln 150000) = 2 and ceil(...(4096 / 2 pi)...) = 5.
  EXPECT_EQ(h.rope.yarn_ext_factor, 1.0f);
  EXPECT_EQ(h.rope.yarn_low, 2.0f);
  EXPECT_EQ(h.rope.yarn_high, 5.0f);
  EXPECT_NEAR(h.rope.mscale, 1.0 + 0.1 * std::log(32.0), 1e-6);
  EXPECT_FLOAT_EQ(h.rope.freq_scale, 1.0f / 32.0f);
}

TEST(GptOssTest, LogitsMatchTransformers) { ExpectLogitsMatchTransformers(kModel, kLogits, kTolerance); }

TEST(GptOssTest, SameBitsForEveryPassWidthAndThreadCount) {
  std::unique_ptr<model::Model> m = Load();
  ASSERT_NE(m, nullptr);
  const std::vector<int32_t> ids = SequenceIds(ReadExpectedLogits(kLogits)["sequences"][0]);
  const std::vector<float> whole = ChunkedLogits(*m, ids, ids.size(), 1);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{5}}) {
    for (int threads : {1, 2, 3}) {
      EXPECT_TRUE(SameBits(whole, ChunkedLogits(*m, ids, chunk, threads))) << chunk << " rows, " << threads << " threads";
    }
  }
}

// kSoftmaxWeight: the top logits chosen first, then a softmax over only
// those (gpt-oss), against kSoftmax's softmax over all (qwen3moe).
TEST(MoeRoutingTest, SoftmaxOverTheChosenLogits) {
  const float logits[] = {0.5f, 2.0f, -1.0f, 1.0f, 2.0f};
  int32_t chosen[3];
  float weights[3];
  model::RouteRow(logits, 5, 3, {.gating = model::MoeGating::kSoftmaxWeight}, chosen, weights);
  EXPECT_EQ(chosen[0], 1);  // the tie of 2.0 goes to the lower expert first
  EXPECT_EQ(chosen[1], 4);
  EXPECT_EQ(chosen[2], 3);
  const double z = 2 * std::exp(2.0) + std::exp(1.0);
  EXPECT_NEAR(weights[0], std::exp(2.0) / z, 1e-6);
  EXPECT_NEAR(weights[1], std::exp(2.0) / z, 1e-6);
  EXPECT_NEAR(weights[2], std::exp(1.0) / z, 1e-6);
}

}  // namespace
}  // namespace trit::testing
