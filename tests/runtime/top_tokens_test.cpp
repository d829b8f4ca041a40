// TopTokens against a full sort of the row by the same rank (higher value,
// then lower id; NaN as -infinity), on rows with ties, -inf and NaN.
#include "runtime/top_tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace trit::testing {
namespace {

std::vector<int32_t> SortedPrefix(const std::vector<float>& x, int64_t k) {
  auto key = [&](int32_t i) {
    const float v = x[static_cast<size_t>(i)];
    return std::isnan(v) ? -std::numeric_limits<float>::infinity() : v;
  };
  std::vector<int32_t> ids(x.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
  ids.resize(static_cast<size_t>(std::clamp<int64_t>(k, 0, static_cast<int64_t>(x.size()))));
  return ids;
}

TEST(TopTokensTest, EqualsTheSortedPrefix) {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 6000);
    std::vector<float> x(static_cast<size_t>(n));
    // Few distinct values in some rows (many ties), a spread in others.
    const uint64_t levels = trial % 2 == 0 ? 7 : 1u << 20;
    for (float& v : x) v = static_cast<float>(rng() % levels) * 0.25f;
    if (trial % 3 == 0) {
      for (size_t i = 0; i < x.size(); i += 13) x[i] = -std::numeric_limits<float>::infinity();
      for (size_t i = 3; i < x.size(); i += 101) x[i] = std::numeric_limits<float>::quiet_NaN();
    }
    if (trial % 5 == 0) std::sort(x.begin(), x.end());  // rising: the threshold climbs at every step
    for (int64_t k : {int64_t{1}, int64_t{2}, int64_t{40}, int64_t{1500}, n - 1, n, n + 5}) {
      SCOPED_TRACE(::testing::Message() << "trial " << trial << " n " << n << " k " << k);
      EXPECT_EQ(runtime::TopTokens(x, k), SortedPrefix(x, k));
    }
  }
}

TEST(TopTokensTest, EmptyAndZero) {
  EXPECT_TRUE(runtime::TopTokens(std::vector<float>{}, 3).empty());
  EXPECT_TRUE(runtime::TopTokens(std::vector<float>{1.0f}, 0).empty());
}

}  // namespace
}  // namespace trit::testing
