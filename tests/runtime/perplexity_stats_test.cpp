// perplexity_stats: each figure against its definition computed here in
// double precision, and llama.cpp's conventions (percentile interpolation,
// median of an even count, errors only above 10 values).
#include "runtime/perplexity_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace trit::runtime {
namespace {

std::vector<double> Softmax(const std::vector<float>& logits) {
  double max = logits[0];
  for (float l : logits) max = std::max(max, static_cast<double>(l));
  double sum = 0.0;
  for (float l : logits) sum += std::exp(l - max);
  std::vector<double> p;
  for (float l : logits) p.push_back(std::exp(l - max) / sum);
  return p;
}

std::vector<float> RandomLogits(size_t n, uint32_t seed, float spread) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, spread);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<uint16_t> Record(const std::vector<float>& logits, int32_t target) {
  std::vector<uint16_t> r(static_cast<size_t>(RecordWords(static_cast<int64_t>(logits.size()))));
  EncodeLogProbs(logits, target, r);
  return r;
}

TEST(PerplexityStatsTest, NegativeLogLikelihoodIsMinusLogSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.5f, -3.0f};
  const std::vector<double> p = Softmax(logits);
  for (int32_t t = 0; t < 4; ++t) EXPECT_NEAR(NegativeLogLikelihood(logits, t), -std::log(p[static_cast<size_t>(t)]), 1e-6);
  // Large logits do not overflow (the max is subtracted first).
  EXPECT_NEAR(NegativeLogLikelihood(std::vector<float>{1000.0f, 1000.0f}, 1), std::log(2.0), 1e-6);
}

TEST(PerplexityStatsTest, PplAndErrorFromTheirDefinitions) {
  NllStats s;
  EXPECT_EQ(s.PplError(), 0.0);
  const std::vector<double> nll = {1.0, 2.0, 4.0, 0.5, 3.0};
  for (double v : nll) s.Add(v);
  const double mean = (1.0 + 2.0 + 4.0 + 0.5 + 3.0) / 5;
  double var = 0.0;
  for (double v : nll) var += (v - mean) * (v - mean);
  var /= 5;  // population variance, then the standard error divides by n - 1
  EXPECT_EQ(s.count(), 5);
  EXPECT_NEAR(s.Ppl(), std::exp(mean), 1e-12);
  EXPECT_NEAR(s.PplError(), std::sqrt(var / 4) * std::exp(mean), 1e-12);
}

TEST(PerplexityStatsTest, CompareRowMatchesTheKlDivergenceOfTheDistributions) {
  // A narrow spread: every base log probability is above the -16 cut, so the
  // sum is the whole KL divergence (up to the record's 16-bit steps).
  const std::vector<float> base_logits = RandomLogits(300, 7, 1.0f);
  std::vector<float> logits = base_logits;
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  for (float& l : logits) l += noise(rng);
  const int32_t target = 17;
  const std::vector<uint16_t> record = Record(base_logits, target);
  const KldRow row = CompareRow(logits, LogProbRecord(record), target);

  const std::vector<double> p = Softmax(base_logits);
  const std::vector<double> q = Softmax(logits);
  double kld = 0.0;
  for (size_t i = 0; i < p.size(); ++i) kld += p[i] * std::log(p[i] / q[i]);
  EXPECT_GT(kld, 0.01);
  EXPECT_NEAR(row.kld, kld, 1e-3 * kld + 1e-5);
  EXPECT_NEAR(row.nll, -std::log(q[target]), 1e-5);
  EXPECT_NEAR(row.nll_base, -std::log(p[target]), 1e-3);
  EXPECT_NEAR(row.p_diff, q[target] - p[target], 1e-4);
  const auto argmax = [](const std::vector<double>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
  EXPECT_EQ(row.same_top, argmax(p) == argmax(q));
}

TEST(PerplexityStatsTest, ARowAgainstItsOwnRecordIsZeroUpToRounding) {
  const std::vector<float> logits = RandomLogits(1000, 11, 4.0f);
  const KldRow row = CompareRow(logits, LogProbRecord(Record(logits, 5)), 5);
  EXPECT_TRUE(row.same_top);
  EXPECT_LT(std::fabs(row.kld), 1e-5);
  EXPECT_LT(std::fabs(row.p_diff), 1e-4);
}

TEST(PerplexityStatsTest, DifferentTopTokenIsCounted) {
  const std::vector<float> base = {5.0f, 1.0f, 0.0f};
  const std::vector<float> other = {1.0f, 5.0f, 0.0f};
  EXPECT_FALSE(CompareRow(other, LogProbRecord(Record(base, 0)), 0).same_top);
  EXPECT_TRUE(CompareRow(base, LogProbRecord(Record(base, 0)), 0).same_top);
}

TEST(PerplexityStatsTest, PercentileInterpolatesAsLlamaCpp) {
  const std::vector<float> v = {0.0f, 1.0f, 2.0f, 3.0f, 10.0f};
  EXPECT_FLOAT_EQ(Percentile(v, 0.0), 0.0f);
  EXPECT_FLOAT_EQ(Percentile(v, 1.0), 10.0f);
  EXPECT_FLOAT_EQ(Percentile(v, 0.5), 2.0f);
  EXPECT_NEAR(Percentile(v, 0.9), 3.0 + 0.6 * 7.0, 1e-5);  // position 3.6 of 0..4
  EXPECT_NEAR(Percentile(v, 0.1), 0.4, 1e-6);
}

TEST(PerplexityStatsTest, SummaryOfKnownRows) {
  KldStats stats;
  std::vector<double> klds;
  for (int i = 0; i < 20; ++i) {
    KldRow row;
    row.kld = 0.01 * i;
    row.nll = 1.0f + 0.1f * static_cast<float>(i % 5);
    row.nll_base = 1.0f + 0.1f * static_cast<float>(i % 4);
    row.p_diff = i % 2 == 0 ? 0.1f : -0.1f;
    row.same_top = i % 4 != 0;
    stats.Add(row);
    klds.push_back(row.kld);
  }
  const KldSummary s = stats.Summarize();
  EXPECT_EQ(s.count, 20);
  EXPECT_NEAR(s.kld.mean, 0.095, 1e-9);
  EXPECT_NEAR(s.kld_spread.max, 0.19, 1e-6);
  EXPECT_NEAR(s.kld_spread.min, 0.0, 1e-9);
  EXPECT_NEAR(s.kld_spread.median, (0.09 + 0.10) / 2, 1e-6);  // an even count: the mean of the middle two
  EXPECT_NEAR(s.same_top.mean, 0.75, 1e-12);
  EXPECT_NEAR(s.same_top.error, std::sqrt(0.75 * 0.25 / 19), 1e-12);
  EXPECT_NEAR(s.p_diff.mean, 0.0, 1e-7);
  EXPECT_NEAR(s.p_diff_rms.mean, 0.1, 1e-6);
  // PPL(Q) and PPL(base) are exp of the mean nll of each.
  double nll = 0.0, nll_base = 0.0;
  for (int i = 0; i < 20; ++i) {
    nll += 1.0f + 0.1f * static_cast<float>(i % 5);
    nll_base += 1.0f + 0.1f * static_cast<float>(i % 4);
  }
  EXPECT_NEAR(s.ppl.mean, std::exp(nll / 20), 1e-6);
  EXPECT_NEAR(s.ppl_base.mean, std::exp(nll_base / 20), 1e-6);
  EXPECT_NEAR(s.ln_ppl_ratio.mean, (nll - nll_base) / 20, 1e-6);
  EXPECT_NEAR(s.ppl_ratio.mean, std::exp((nll - nll_base) / 20), 1e-6);
  EXPECT_GT(s.kld.error, 0.0);
}

TEST(PerplexityStatsTest, FewRowsHaveNoErrorEstimate) {
  KldStats stats;
  for (int i = 0; i < 5; ++i) {
    KldRow row;
    row.kld = i;
    row.nll = static_cast<float>(i);
    stats.Add(row);
  }
  const KldSummary s = stats.Summarize();
  EXPECT_EQ(s.kld.error, 0.0);  // llama.cpp gives no uncertainty for 10 values or fewer
  EXPECT_EQ(s.ppl.error, 0.0);
  EXPECT_NEAR(s.kld.mean, 2.0, 1e-12);
}

}  // namespace
}  // namespace trit::runtime
