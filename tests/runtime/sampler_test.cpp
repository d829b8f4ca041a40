// Sampler: greedy, filters, penalties, seeded reproducibility, and that
// draws follow the distribution they claim.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/sampler.h"

namespace trit::testing {
namespace {

using runtime::Sampler;
using runtime::SamplerOptions;

const std::vector<float> kLogits = {1.0f, 3.0f, 2.5f, -1.0f, 3.0f, 0.0f};

TEST(SamplerTest, GreedyTakesHighestLowestIdOnTies) {
  Sampler s({});
  EXPECT_EQ(s.Sample(kLogits, {}), 1);
  EXPECT_EQ(runtime::Argmax(kLogits), 1);
}

TEST(SamplerTest, SameSeedSameTokensOtherSeedOtherTokens) {
  SamplerOptions o;
  o.temperature = 1.0f;
  o.seed = 42;
  auto draw = [&](uint64_t seed) {
    o.seed = seed;
    Sampler s(o);
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) out.push_back(s.Sample(kLogits, {}));
    return out;
  };
  EXPECT_EQ(draw(42), draw(42));
  EXPECT_NE(draw(42), draw(43));
}

TEST(SamplerTest, DrawsFollowTheSoftmax) {
  SamplerOptions o;
  o.temperature = 0.7f;
  o.seed = 7;
  Sampler s(o);
  std::vector<int> counts(kLogits.size(), 0);
  const int n = 40000;
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(s.Sample(kLogits, {}))];
  double sum = 0.0;
  for (float l : kLogits) sum += std::exp(l / 0.7);
  for (size_t i = 0; i < kLogits.size(); ++i) {
    const double p = std::exp(kLogits[i] / 0.7) / sum;
    EXPECT_NEAR(static_cast<double>(counts[i]) / n, p, 0.01) << "id " << i;
  }
}

TEST(SamplerTest, TopKTopPMinPRestrictCandidates) {
  for (int seed = 0; seed < 50; ++seed) {
    SamplerOptions o;
    o.temperature = 5.0f;
    o.seed = static_cast<uint64_t>(seed);
    o.top_k = 2;  // ids 1 and 4 (tied at 3.0)
    Sampler k(o);
    const int32_t t = k.Sample(kLogits, {});
    EXPECT_TRUE(t == 1 || t == 4) << t;
    o.top_k = 0;
    o.top_p = 0.01f;  // the first candidate alone: id 1
    Sampler p(o);
    EXPECT_EQ(p.Sample(kLogits, {}), 1);
    o.top_p = 1.0f;
    o.min_p = 0.9f;  // at temperature 5, p(2.5)/p(3.0) = e^-0.1 = 0.905 passes, 1.0 does not
    Sampler m(o);
    const int32_t u = m.Sample(kLogits, {});
    EXPECT_TRUE(u == 1 || u == 4 || u == 2) << u;
  }
}

TEST(SamplerTest, PenaltiesFollowTheirFormulas) {
  SamplerOptions o;
  o.repeat_penalty = 2.0f;  // 3.0 -> 1.5 for ids seen
  const std::vector<int32_t> history = {1, 4};
  Sampler r(o);
  EXPECT_EQ(r.Sample(kLogits, history), 2);
  SamplerOptions f;
  f.frequency_penalty = 0.3f;  // id 1 seen twice: 3.0 - 0.6 = 2.4 < 2.5
  const std::vector<int32_t> twice = {1, 1, 4, 4};
  Sampler fs(f);
  EXPECT_EQ(fs.Sample(kLogits, twice), 2);
  SamplerOptions p;
  p.presence_penalty = 0.4f;  // ids 1, 4 -> 2.6 > 2.5: lowest id among them
  Sampler ps(p);
  EXPECT_EQ(ps.Sample(kLogits, history), 1);
  p.penalty_last_n = 1;  // only id 4 penalised: id 1 keeps 3.0
  Sampler last(p);
  EXPECT_EQ(last.Sample(kLogits, std::vector<int32_t>{4, 1, 4}), 1);
  // Negative logits are multiplied by the repetition penalty.
  SamplerOptions n;
  n.repeat_penalty = 2.0f;
  Sampler ns(n);
  const std::vector<float> neg = {-1.0f, -1.5f};
  EXPECT_EQ(ns.Sample(neg, std::vector<int32_t>{0}), 1);
}

TEST(SamplerTest, InvalidOptionsNamed) {
  SamplerOptions o;
  o.top_p = 0.0f;
  EXPECT_EQ(runtime::ValidateSamplerOptions(o).message(), "top_p is 0, expected (0, 1]");
  o = {};
  o.top_k = -1;
  EXPECT_EQ(runtime::ValidateSamplerOptions(o).message(), "top_k is -1, expected >= 0");
  EXPECT_TRUE(runtime::ValidateSamplerOptions({}).ok());
}

}  // namespace
}  // namespace trit::testing
