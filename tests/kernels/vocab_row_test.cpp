// RowMax and ExpWeights (vocab_row.h): the reference against double math,
// and the optimized versions against the reference, bit for bit, on every
// compiled target and at every tail length.
#include "kernels/vocab_row.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/exp_fixed.h"
#include "kernels/test_inputs.h"
#include "kernels/vocab_row_optimized.h"

namespace trit::kernels {
namespace {

// Logits as a model gives them: a spread of a few units, a clear maximum,
// some exact ties and -inf (masked) entries.
std::vector<float> Logits(int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  for (size_t i = 0; i < v.size(); i += 11) v[i] = v[i / 2];
  for (size_t i = 5; i < v.size(); i += 29) v[i] = -std::numeric_limits<float>::infinity();
  return v;
}

TEST(VocabRowTest, ReferenceIsTheMaxAndTheSoftmaxNumerators) {
  std::mt19937_64 rng(FreshSeed());
  const std::vector<float> x = Logits(5000, rng);
  const float max = RowMax(x.data(), static_cast<int64_t>(x.size()));
  float expect = x[0];
  for (float v : x) expect = std::max(expect, v);
  EXPECT_EQ(max, expect);
  std::vector<float> w(x.size());
  const double sum = ExpWeights(x.data(), static_cast<int64_t>(x.size()), max, 1.0f / 0.8f, w.data());
  double exact = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::exp((static_cast<double>(x[i]) - max) / 0.8);
    // ExpFixed is within 2 ulp of e^t for the float argument t it is given.
    const double t = static_cast<double>((x[i] - max) * (1.0f / 0.8f));
    if (std::isfinite(x[i])) {
      EXPECT_NEAR(w[i], std::exp(t), 2.5e-7 * std::exp(t) + 1e-37) << i;
    }
    exact += e;
    if (x[i] == max) {
      EXPECT_EQ(w[i], 1.0f);
    }
  }
  EXPECT_NEAR(sum, exact, 1e-5 * exact);  // the arguments' float rounding, |t| up to ~30
}

TEST(VocabRowTest, EveryTargetGivesTheReferenceBits) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int64_t n : {1, 3, 7, 8, 9, 16, 31, 100, 4099, 32000}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    const std::vector<float> x = Logits(n, rng);
    const float max = RowMax(x.data(), n);
    std::vector<float> w_ref(x.size());
    const double sum_ref = ExpWeights(x.data(), n, max, 1.25f, w_ref.data());
    for (int64_t target : RunnableTargets()) {
      SCOPED_TRACE(TargetName(target));
      TargetPin pin(target);
      EXPECT_EQ(RowMaxOptimized(x.data(), n), max);
      std::vector<float> w(x.size());
      const double sum = ExpWeightsOptimized(x.data(), n, max, 1.25f, w.data());
      EXPECT_EQ(std::memcmp(&sum, &sum_ref, sizeof(double)), 0) << sum << " vs " << sum_ref;
      EXPECT_TRUE(SameBits(w, w_ref));
    }
  }
}

TEST(VocabRowTest, RowMaxSkipsNaNOnEveryTarget) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937_64 rng(FreshSeed());
  for (int64_t n : {1, 5, 8, 17, 1000}) {
    std::vector<float> x = Logits(n, rng);
    for (size_t i = 0; i < x.size(); i += 3) x[i] = nan;
    float expect = -inf;
    for (float v : x) {
      if (!std::isnan(v)) expect = std::max(expect, v);
    }
    EXPECT_EQ(RowMax(x.data(), n), expect) << n;
    for (int64_t target : RunnableTargets()) {
      TargetPin pin(target);
      EXPECT_EQ(RowMaxOptimized(x.data(), n), expect) << TargetName(target) << " n " << n;
    }
    const std::vector<float> all_nan(static_cast<size_t>(n), nan);
    EXPECT_EQ(RowMaxOptimized(all_nan.data(), n), -inf);
  }
}

}  // namespace
}  // namespace trit::kernels
