#include "runtime/vector_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "base/check.h"

namespace trit::runtime {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy.argmax: the first NaN if there is one, else the first maximum.
int64_t ArgMax(std::span<const double> row) {
  int64_t best = 0;
  for (size_t j = 0; j < row.size(); ++j) {
    if (std::isnan(row[j])) return static_cast<int64_t>(j);
    if (row[j] > row[static_cast<size_t>(best)]) best = static_cast<int64_t>(j);
  }
  return best;
}

// The cosine of two finite rows. Each row is divided by its largest
// magnitude first, so that squares of large values (float64 files hold up
// to 1e308) cannot overflow.
double Cosine(std::span<const double> a, std::span<const double> b) {
  double scale_a = 0.0;
  double scale_b = 0.0;
  for (size_t j = 0; j < a.size(); ++j) {
    scale_a = std::max(scale_a, std::fabs(a[j]));
    scale_b = std::max(scale_b, std::fabs(b[j]));
  }
  if (scale_a == 0.0 || scale_b == 0.0) return scale_a == scale_b ? 1.0 : 0.0;  // see the header: zero rows
  double dot = 0.0;
  double norm_a = 0.0;
  double norm_b = 0.0;
  for (size_t j = 0; j < a.size(); ++j) {
    const double x = a[j] / scale_a;
    const double y = b[j] / scale_b;
    dot += x * y;
    norm_a += x * x;
    norm_b += y * y;
  }
  return std::clamp(dot / std::sqrt(norm_a * norm_b), -1.0, 1.0);
}

RowComparison CompareRow(int64_t row, std::span<const double> a, std::span<const double> b) {
  RowComparison r;
  r.row = row;
  r.argmax_a = ArgMax(a);
  r.argmax_b = ArgMax(b);
  for (size_t j = 0; j < a.size() && r.finite; ++j) {
    for (const auto& [side, v] : {std::pair{'A', a[j]}, std::pair{'B', b[j]}}) {
      if (!std::isfinite(v)) {
        r.finite = false;
        r.max_abs_col = static_cast<int64_t>(j);
        r.non_finite = fmt::format("{} column {} is {}", side, j, v);
        break;
      }
    }
  }
  if (!r.finite) {
    r.cosine = r.max_abs = r.mean_abs = kNaN;
    return r;
  }
  double sum_abs = 0.0;
  for (size_t j = 0; j < a.size(); ++j) {
    const double d = std::fabs(a[j] - b[j]);
    sum_abs += d;
    if (d > r.max_abs) {
      r.max_abs = d;
      r.max_abs_col = static_cast<int64_t>(j);
    }
  }
  r.mean_abs = sum_abs / static_cast<double>(a.size());
  r.cosine = Cosine(a, b);
  return r;
}

}  // namespace

Expected<Comparison> CompareRows(const RowMatrix& a, const RowMatrix& b) {
  if (a.n_rows != b.n_rows || a.n_cols != b.n_cols) {
    return Error(ErrorCode::kInvalidArgument, "shapes differ: A is {} x {}, B is {} x {} (rows x columns)", a.n_rows,
                 a.n_cols, b.n_rows, b.n_cols);
  }
  if (a.n_rows == 0 || a.n_cols == 0) {
    return Error(ErrorCode::kInvalidArgument, "nothing to compare: A and B are {} x {} (rows x columns)", a.n_rows,
                 a.n_cols);
  }
  const size_t n_cols = static_cast<size_t>(a.n_cols);
  TRIT_CHECK(a.values.size() == static_cast<size_t>(a.n_rows) * n_cols);
  TRIT_CHECK(b.values.size() == a.values.size());

  Comparison c;
  c.n_rows = a.n_rows;
  c.n_cols = a.n_cols;
  c.rows.reserve(static_cast<size_t>(a.n_rows));
  double sum_cosine = 0.0;
  double sum_abs = 0.0;
  int64_t finite_rows = 0;
  for (int64_t i = 0; i < a.n_rows; ++i) {
    const size_t at = static_cast<size_t>(i) * n_cols;
    RowComparison r = CompareRow(i, a.values.subspan(at, n_cols), b.values.subspan(at, n_cols));
    if (r.argmax_a == r.argmax_b) ++c.argmax_agree;
    if (!r.finite) {
      ++c.non_finite_rows;
    } else {
      ++finite_rows;
      sum_cosine += r.cosine;
      sum_abs += r.mean_abs * static_cast<double>(n_cols);
      if (c.min_cosine_row < 0 || r.cosine < c.min_cosine) {
        c.min_cosine = r.cosine;
        c.min_cosine_row = i;
      }
      if (c.max_abs_row < 0 || r.max_abs > c.max_abs) {
        c.max_abs = r.max_abs;
        c.max_abs_row = i;
        c.max_abs_col = r.max_abs_col;
      }
    }
    c.rows.push_back(std::move(r));
  }
  if (finite_rows == 0) {
    c.min_cosine = c.mean_cosine = c.max_abs = c.mean_abs = kNaN;
  } else {
    c.mean_cosine = sum_cosine / static_cast<double>(finite_rows);
    c.mean_abs = sum_abs / (static_cast<double>(finite_rows) * static_cast<double>(n_cols));
  }
  return c;
}

std::vector<ToleranceFailure> CheckTolerances(const Comparison& c, const Tolerances& t) {
  std::vector<ToleranceFailure> out;
  // Written as !(within) so that NaN, which compares false, fails.
  if (t.min_cosine) {
    for (const RowComparison& r : c.rows) {
      if (!(r.cosine >= *t.min_cosine)) out.push_back({"min-cos", *t.min_cosine, r.row, r.cosine});
    }
  }
  if (t.max_abs) {
    for (const RowComparison& r : c.rows) {
      if (!(r.max_abs <= *t.max_abs)) out.push_back({"max-abs", *t.max_abs, r.row, r.max_abs});
    }
  }
  return out;
}

std::vector<BrokenTolerance> SummarizeFailures(const std::vector<ToleranceFailure>& failures) {
  std::vector<BrokenTolerance> out;
  for (const char* name : {"min-cos", "max-abs"}) {
    const bool lower_is_worse = std::string_view(name) == "min-cos";
    BrokenTolerance b;
    for (const ToleranceFailure& f : failures) {
      if (f.tolerance != name) continue;
      const bool worse = b.n_rows == 0 || (std::isnan(f.value) && !std::isnan(b.worst_value)) ||
                         (!std::isnan(b.worst_value) &&
                          (lower_is_worse ? f.value < b.worst_value : f.value > b.worst_value));
      if (worse) {
        b.worst_row = f.row;
        b.worst_value = f.value;
      }
      b.tolerance = f.tolerance;
      b.limit = f.limit;
      ++b.n_rows;
    }
    if (b.n_rows > 0) out.push_back(b);
  }
  return out;
}

std::vector<int64_t> ArgmaxDifferRows(const Comparison& c) {
  std::vector<int64_t> out;
  for (const RowComparison& r : c.rows) {
    if (r.argmax_a != r.argmax_b) out.push_back(r.row);
  }
  return out;
}

std::vector<int64_t> WorstRows(const Comparison& c, size_t n) {
  std::vector<int64_t> order(c.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  auto worse = [&](int64_t x, int64_t y) {
    const RowComparison& a = c.rows[static_cast<size_t>(x)];
    const RowComparison& b = c.rows[static_cast<size_t>(y)];
    if (a.finite != b.finite) return !a.finite;
    if (a.finite && a.cosine != b.cosine) return a.cosine < b.cosine;
    if (a.finite && a.max_abs != b.max_abs) return a.max_abs > b.max_abs;
    return x < y;
  };
  const size_t k = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), worse);
  order.resize(k);
  return order;
}

}  // namespace trit::runtime
