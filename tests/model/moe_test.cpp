// The routing of model/moe.h: which experts a row of router logits chooses,
// in which order, and with which weights, against values worked by hand.
#include "model/moe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace trit::model {
namespace {

std::vector<float> SoftmaxOf(const std::vector<float>& x) {
  double sum = 0.0;
  for (float v : x) sum += std::exp(static_cast<double>(v));
  std::vector<float> p;
  for (float v : x) p.push_back(static_cast<float>(std::exp(static_cast<double>(v)) / sum));
  return p;
}

TEST(MoeRouteTest, ChoosesTheLargestFirst) {
  const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 1.5f, 3.0f};
  int32_t chosen[3];
  float weights[3];
  RouteRow(logits.data(), 5, 3, {.gating = MoeGating::kSoftmax, .normalize_weights = false}, chosen, weights);
  EXPECT_EQ(chosen[0], 4);
  EXPECT_EQ(chosen[1], 1);
  EXPECT_EQ(chosen[2], 3);
  const std::vector<float> p = SoftmaxOf(logits);
  EXPECT_NEAR(weights[0], p[4], 1e-6f);
  EXPECT_NEAR(weights[1], p[1], 1e-6f);
  EXPECT_NEAR(weights[2], p[3], 1e-6f);
}

TEST(MoeRouteTest, NormalisedWeightsSumToOne) {
  const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 1.5f, 3.0f};
  int32_t chosen[2];
  float weights[2];
  RouteRow(logits.data(), 5, 2, {.gating = MoeGating::kSoftmax, .normalize_weights = true}, chosen, weights);
  const std::vector<float> p = SoftmaxOf(logits);
  EXPECT_NEAR(weights[0], p[4] / (p[4] + p[1]), 1e-6f);
  EXPECT_NEAR(weights[0] + weights[1], 1.0f, 1e-6f);
}

TEST(MoeRouteTest, TiesGoToTheLowerExpert) {
  const std::vector<float> logits = {1.0f, 2.0f, 2.0f, 1.0f, 2.0f};
  int32_t chosen[4];
  float weights[4];
  RouteRow(logits.data(), 5, 4, {.gating = MoeGating::kSoftmax, .normalize_weights = true}, chosen, weights);
  EXPECT_EQ(std::vector<int32_t>(chosen, chosen + 4), (std::vector<int32_t>{1, 2, 4, 0}));
}

TEST(MoeRouteTest, EveryExpertWhenAllAreUsed) {
  std::vector<float> logits(16);
  std::iota(logits.begin(), logits.end(), -8.0f);
  int32_t chosen[16];
  float weights[16];
  RouteRow(logits.data(), 16, 16, {.gating = MoeGating::kSoftmax, .normalize_weights = true}, chosen, weights);
  for (int32_t s = 0; s < 16; ++s) EXPECT_EQ(chosen[s], 15 - s);
}

}  // namespace
}  // namespace trit::model
