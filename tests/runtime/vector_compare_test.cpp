// Row-by-row comparison (runtime/vector_compare.h) on vectors whose answers
// are known: identical, scaled, opposite, orthogonal, zero rows, NaN and
// infinity; the totals, the tolerances and the order of the worst rows.
#include "runtime/vector_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace trit::runtime {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Comparison Compare(int64_t rows, int64_t cols, const std::vector<double>& a, const std::vector<double>& b) {
  Expected<Comparison> c = CompareRows({rows, cols, a}, {rows, cols, b});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Comparison{};
}

TEST(VectorCompare, IdenticalRows) {
  const std::vector<double> a = {1, -2, 3, 0.5, 0.25, -8};
  const Comparison c = Compare(2, 3, a, a);
  ASSERT_EQ(c.rows.size(), 2u);
  for (const RowComparison& r : c.rows) {
    EXPECT_DOUBLE_EQ(r.cosine, 1.0);
    EXPECT_EQ(r.max_abs, 0.0);
    EXPECT_EQ(r.mean_abs, 0.0);
    EXPECT_TRUE(r.finite);
  }
  EXPECT_EQ(c.rows[0].argmax_a, 2);
  EXPECT_EQ(c.rows[1].argmax_a, 0);
  EXPECT_EQ(c.argmax_agree, 2);
  EXPECT_EQ(c.max_abs, 0.0);
  EXPECT_EQ(c.non_finite_rows, 0);
}

TEST(VectorCompare, ScaledOppositeAndOrthogonal) {
  // Row 0: b = 2a (cosine 1, |a - b| = |a|). Row 1: b = -a (cosine -1).
  // Row 2: orthogonal (cosine 0).
  const std::vector<double> a = {3, 4, 1, 2, 1, 0};
  const std::vector<double> b = {6, 8, -1, -2, 0, 1};
  const Comparison c = Compare(3, 2, a, b);
  EXPECT_NEAR(c.rows[0].cosine, 1.0, 1e-15);
  EXPECT_EQ(c.rows[0].max_abs, 4.0);
  EXPECT_EQ(c.rows[0].max_abs_col, 1);
  EXPECT_EQ(c.rows[0].mean_abs, 3.5);
  EXPECT_NEAR(c.rows[1].cosine, -1.0, 1e-15);
  EXPECT_EQ(c.rows[1].argmax_a, 1);
  EXPECT_EQ(c.rows[1].argmax_b, 0);
  EXPECT_EQ(c.rows[2].cosine, 0.0);
  EXPECT_EQ(c.min_cosine_row, 1);
  EXPECT_NEAR(c.min_cosine, -1.0, 1e-15);
  EXPECT_NEAR(c.mean_cosine, 0.0, 1e-15);
  EXPECT_EQ(c.max_abs, 4.0);
  EXPECT_EQ(c.max_abs_row, 0);
  EXPECT_EQ(c.max_abs_col, 1);
  EXPECT_DOUBLE_EQ(c.mean_abs, (3 + 4 + 2 + 4 + 1 + 1) / 6.0);
  EXPECT_EQ(c.argmax_agree, 1);  // row 0 only: row 1 flips, row 2 turns from column 0 to 1
}

TEST(VectorCompare, ZeroRows) {
  // Both zero: cosine 1. One zero: cosine 0.
  const Comparison c = Compare(2, 3, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 0, 0});
  EXPECT_EQ(c.rows[0].cosine, 1.0);
  EXPECT_EQ(c.rows[1].cosine, 0.0);
  EXPECT_EQ(c.rows[1].max_abs, 1.0);
  EXPECT_EQ(c.rows[0].argmax_a, 0);
}

TEST(VectorCompare, HugeAndTinyValuesDoNotOverflow) {
  const Comparison big = Compare(1, 2, {1e300, 1e300}, {1e300, 1e300});
  EXPECT_DOUBLE_EQ(big.rows[0].cosine, 1.0);
  const Comparison tiny = Compare(1, 2, {1e-310, 0}, {0, 1e-310});
  EXPECT_EQ(tiny.rows[0].cosine, 0.0);
}

TEST(VectorCompare, NonFiniteRowsAreFlaggedAndLeftOutOfTheTotals) {
  const std::vector<double> a = {1, 2, kNaN, 4, 5, 6, 1, 1, 1};
  const std::vector<double> b = {1, 2, 3, 4, kInf, 6, 1, 1, 2};
  const Comparison c = Compare(3, 3, a, b);
  EXPECT_FALSE(c.rows[0].finite);
  EXPECT_TRUE(std::isnan(c.rows[0].cosine));
  EXPECT_TRUE(std::isnan(c.rows[0].max_abs));
  EXPECT_EQ(c.rows[0].non_finite, "A column 2 is nan");
  EXPECT_EQ(c.rows[0].max_abs_col, 2);
  EXPECT_EQ(c.rows[0].argmax_a, 2);  // numpy: the first NaN
  EXPECT_EQ(c.rows[1].non_finite, "B column 1 is inf");
  EXPECT_EQ(c.rows[1].argmax_b, 1);
  EXPECT_TRUE(c.rows[2].finite);
  EXPECT_EQ(c.non_finite_rows, 2);
  EXPECT_EQ(c.min_cosine_row, 2);
  EXPECT_EQ(c.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(c.mean_abs, 1.0 / 3.0);

  const Comparison all_nan = Compare(1, 1, {kNaN}, {kNaN});
  EXPECT_TRUE(std::isnan(all_nan.min_cosine));
  EXPECT_EQ(all_nan.min_cosine_row, -1);
  EXPECT_EQ(all_nan.max_abs_row, -1);
  EXPECT_EQ(all_nan.argmax_agree, 1);
}

TEST(VectorCompare, ShapesMustMatchAndHoldSomething) {
  const std::vector<double> six(6, 1.0);
  Expected<Comparison> c = CompareRows({2, 3, six}, {3, 2, six});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "shapes differ: A is 2 x 3, B is 3 x 2 (rows x columns)");
  Expected<Comparison> empty = CompareRows({0, 3, {}}, {0, 3, {}});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "nothing to compare: A and B are 0 x 3 (rows x columns)");
}

TEST(VectorCompare, TolerancesNameEveryRowBeyondThem) {
  // Row 0 identical, row 1 a little off, row 2 far off, row 3 NaN.
  const std::vector<double> a = {1, 0, 1, 0, 1, 0, 1, 0};
  const std::vector<double> b = {1, 0, 1, 0.01, 0, 1, kNaN, 0};
  const Comparison c = Compare(4, 2, a, b);
  EXPECT_TRUE(CheckTolerances(c, {}).empty());
  EXPECT_TRUE(CheckTolerances(Compare(1, 2, {1, 0}, {1, 0}), {1.0, 0.0}).empty());  // limits are inclusive

  const std::vector<ToleranceFailure> f = CheckTolerances(c, {0.999, 0.1});
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].tolerance, "min-cos");
  EXPECT_EQ(f[0].row, 2);
  EXPECT_EQ(f[0].value, 0.0);
  EXPECT_EQ(f[0].limit, 0.999);
  EXPECT_EQ(f[1].tolerance, "min-cos");
  EXPECT_EQ(f[1].row, 3);
  EXPECT_TRUE(std::isnan(f[1].value));
  EXPECT_EQ(f[2].tolerance, "max-abs");
  EXPECT_EQ(f[2].row, 2);
  EXPECT_EQ(f[2].value, 1.0);
  EXPECT_EQ(f[3].row, 3);

  const std::vector<ToleranceFailure> tight = CheckTolerances(c, {std::nullopt, 0.001});
  ASSERT_EQ(tight.size(), 3u);  // rows 1, 2, 3
  EXPECT_EQ(tight[0].row, 1);
  EXPECT_DOUBLE_EQ(tight[0].value, 0.01);
}

TEST(VectorCompare, BrokenTolerancesNameTheirWorstRow) {
  // Row 1 a little off (cosine 0.99995), row 2 far off, row 3 NaN; then without the NaN.
  const std::vector<double> a = {1, 0, 1, 0, 1, 0, 1, 0};
  const std::vector<double> b = {1, 0, 1, 0.01, 0, 1, kNaN, 0};
  const std::vector<BrokenTolerance> with_nan =
      SummarizeFailures(CheckTolerances(Compare(4, 2, a, b), {0.99999, 0.001}));
  ASSERT_EQ(with_nan.size(), 2u);
  EXPECT_EQ(with_nan[0].tolerance, "min-cos");
  EXPECT_EQ(with_nan[0].limit, 0.99999);
  EXPECT_EQ(with_nan[0].worst_row, 3);  // non-finite first
  EXPECT_EQ(with_nan[0].n_rows, 3);
  EXPECT_EQ(with_nan[1].tolerance, "max-abs");
  EXPECT_EQ(with_nan[1].worst_row, 3);

  std::vector<double> finite = b;
  finite[6] = 1;
  const std::vector<BrokenTolerance> s = SummarizeFailures(CheckTolerances(Compare(4, 2, a, finite), {0.99999, 0.001}));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].worst_row, 2);
  EXPECT_EQ(s[0].worst_value, 0.0);
  EXPECT_EQ(s[0].n_rows, 2);
  EXPECT_EQ(s[1].worst_row, 2);
  EXPECT_EQ(s[1].worst_value, 1.0);
  EXPECT_TRUE(SummarizeFailures(CheckTolerances(Compare(4, 2, a, finite), {std::nullopt, 2.0})).empty());
  const std::vector<BrokenTolerance> only_abs = SummarizeFailures(CheckTolerances(Compare(4, 2, a, finite), {{}, 0.5}));
  ASSERT_EQ(only_abs.size(), 1u);
  EXPECT_EQ(only_abs[0].tolerance, "max-abs");
}

TEST(VectorCompare, ArgmaxDifferRows) {
  const Comparison c = Compare(3, 2, {1, 0, 0, 1, 5, 5}, {0, 1, 0, 1, 5, 5});
  EXPECT_EQ(ArgmaxDifferRows(c), (std::vector<int64_t>{0}));  // ties: the first maximum, both column 0
}

TEST(VectorCompare, WorstRowsComeNonFiniteFirstThenByCosine) {
  const std::vector<double> a = {1, 0, 1, 0, 1, 0, 1, 0};
  const std::vector<double> b = {1, 0.5, 1, 0, kNaN, 0, 0, 1};
  const Comparison c = Compare(4, 2, a, b);
  EXPECT_EQ(WorstRows(c, 10), (std::vector<int64_t>{2, 3, 0, 1}));
  EXPECT_EQ(WorstRows(c, 2), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(WorstRows(c, 0).empty());
}

}  // namespace
}  // namespace trit::runtime
