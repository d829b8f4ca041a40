// Two dumps of the same vectors or logits compared row by row: the answer to
// "do these two machines, builds or runtimes compute the same thing?" that
// `trit compare` prints. Pure arithmetic in double over rows x columns.
//
// Per row i of A and B (n columns each):
//   cosine    dot(a, b) / (|a| |b|), clamped to [-1, 1]. A row of zeros has
//             no direction: two zero rows have cosine 1 (they agree), a zero
//             row against a non-zero row has cosine 0.
//   max_abs   max_j |a_j - b_j|, and the first column j where it is reached
//   mean_abs  sum_j |a_j - b_j| / n
//   argmax    of each row as numpy.argmax takes it: the first NaN if any,
//             else the first maximum; whether the two agree (for logits:
//             the same greedy token).
// A row holding NaN or +-infinity in A or B is non-finite: its cosine,
// max_abs and mean_abs are NaN, it is left out of the totals below, and it
// fails every tolerance (CheckTolerances). Its argmax is still computed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::runtime {

// Rows x columns of values, row-major; a view, not owned.
struct RowMatrix {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  std::span<const double> values;  // n_rows * n_cols
};

struct RowComparison {
  int64_t row = 0;
  double cosine = 0.0;      // NaN when !finite
  double max_abs = 0.0;     // NaN when !finite
  int64_t max_abs_col = 0;  // where max_abs is first reached; the first non-finite column when !finite
  double mean_abs = 0.0;    // NaN when !finite
  int64_t argmax_a = 0;
  int64_t argmax_b = 0;
  bool finite = true;       // no NaN or infinity in either row
  std::string non_finite;   // when !finite, the first such value: "A column 5 is nan"
};

struct Comparison {
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  std::vector<RowComparison> rows;  // one per row, in order
  // Totals over the finite rows (NaN and row -1 when there is none).
  double min_cosine = 0.0;
  int64_t min_cosine_row = -1;
  double mean_cosine = 0.0;
  double max_abs = 0.0;
  int64_t max_abs_row = -1;
  int64_t max_abs_col = -1;
  double mean_abs = 0.0;  // over every value of the finite rows
  int64_t argmax_agree = 0;     // rows whose argmaxes agree (all rows)
  int64_t non_finite_rows = 0;
};

// Compares A and B row by row. Errors (kInvalidArgument) when the shapes
// differ (naming both) or there is nothing to compare (0 rows or columns).
// Precondition (checked): each values span holds n_rows * n_cols values.
Expected<Comparison> CompareRows(const RowMatrix& a, const RowMatrix& b);

// Limits a comparison must stay within; an absent one is not checked.
struct Tolerances {
  std::optional<double> min_cosine;  // every row's cosine >= this
  std::optional<double> max_abs;     // every row's max_abs <= this
};

struct ToleranceFailure {
  std::string tolerance;  // "min-cos" or "max-abs", as the flags are named
  double limit = 0.0;
  int64_t row = 0;
  double value = 0.0;     // the row's cosine or max_abs (NaN for a non-finite row)
};

// Every (tolerance, row) pair beyond its limit: the min-cos failures in row
// order, then the max-abs ones. Empty when the comparison is within.
std::vector<ToleranceFailure> CheckTolerances(const Comparison& c, const Tolerances& t);

// One tolerance broken: its worst row (a non-finite row first, else the
// lowest cosine or the largest max_abs; the first such row) and how many
// rows are beyond it.
struct BrokenTolerance {
  std::string tolerance;  // "min-cos" or "max-abs"
  double limit = 0.0;
  int64_t worst_row = 0;
  double worst_value = 0.0;  // NaN for a non-finite row
  int64_t n_rows = 0;        // rows beyond the limit
};

// CheckTolerances' failures grouped by tolerance, min-cos first.
std::vector<BrokenTolerance> SummarizeFailures(const std::vector<ToleranceFailure>& failures);

// The rows whose argmaxes differ, in order.
std::vector<int64_t> ArgmaxDifferRows(const Comparison& c);

// The indices of the `n` worst rows, worst first: non-finite rows, then by
// lowest cosine, then by largest max_abs, then by row.
std::vector<int64_t> WorstRows(const Comparison& c, size_t n);

}  // namespace trit::runtime
