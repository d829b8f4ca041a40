// The statistics of llama.cpp's llama-perplexity, so that trit's figures and
// llama.cpp's can be read side by side: perplexity from the negative
// log-likelihoods of a text's tokens, and, against a base model's stored log
// probabilities (runtime/logits_file.h), the KL divergence, the change in the
// target token's probability (Δp) and top-1 agreement, row by row.
// Each row's figures depend only on that row, so rows may be scored in
// parallel; the sums are then taken in row order (the same bits whatever the
// thread count).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/logits_file.h"

namespace trit::runtime {

// -log softmax(logits)[target], as llama-perplexity scores a row without a
// logits file (float max, double sum of exponentials).
double NegativeLogLikelihood(std::span<const float> logits, int32_t target);

// Running sums of per-token negative log-likelihoods.
class NllStats {
 public:
  void Add(double nll) {
    sum_ += nll;
    sum2_ += nll * nll;
    ++count_;
  }
  int64_t count() const { return count_; }
  double MeanNll() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0.0; }
  // exp(mean nll): llama.cpp's running "[i]x," value and its final PPL.
  double Ppl() const;
  // llama.cpp's "+/- e": the standard error of the mean nll times PPL; 0 with
  // fewer than two tokens or no spread.
  double PplError() const;

 private:
  double sum_ = 0.0;
  double sum2_ = 0.0;
  int64_t count_ = 0;
};

// One row compared against the base's stored log probabilities.
struct KldRow {
  double kld = 0.0;       // sum over base log p > -16 of p_base (log p_base - log p)
  float p_diff = 0.0f;    // p(target) - p_base(target)
  float nll = 0.0f;       // -log p(target)
  float nll_base = 0.0f;  // the base's -log p(target), from its record
  bool same_top = false;  // argmax of the logits == argmax of the base record (first on ties)
};

// Preconditions (checked): `base` is a record of logits.size() tokens, 0 <= target < logits.size().
KldRow CompareRow(std::span<const float> logits, const LogProbRecord& base, int32_t target);

// A mean and its standard error, as llama.cpp's mean_and_uncertainty (the
// error is 0 for 10 values or fewer).
struct MeanError {
  double mean = 0.0;
  double error = 0.0;
};

// The spread of per-row values: extremes, median and llama.cpp's percentiles.
struct Spread {
  double max = 0.0, p99_9 = 0.0, p99 = 0.0, p95 = 0.0, p90 = 0.0, p75 = 0.0, median = 0.0;
  double p25 = 0.0, p10 = 0.0, p5 = 0.0, p1 = 0.0, p0_1 = 0.0, min = 0.0;
};
// Needs at least one value.
Spread SpreadOf(std::vector<float> values);

struct KldSummary {
  int64_t count = 0;
  MeanError ppl;             // PPL(Q), this model
  MeanError ppl_base;        // PPL(base)
  double ln_ppl_correlation = 0.0;
  MeanError ln_ppl_ratio;    // mean ln(PPL(Q) / PPL(base))
  MeanError ppl_ratio;       // PPL(Q) / PPL(base)
  MeanError ppl_diff;        // PPL(Q) - PPL(base)
  MeanError kld;
  Spread kld_spread;
  MeanError p_diff;          // mean Δp
  Spread p_diff_spread;
  MeanError p_diff_rms;      // root mean square Δp
  MeanError same_top;        // fraction of rows whose top token agrees
};

// Sums of KldRows, and every row's KLD and Δp for the percentiles.
class KldStats {
 public:
  void Add(const KldRow& row);
  int64_t count() const { return count_; }
  // Needs count() >= 1.
  KldSummary Summarize() const;

 private:
  int64_t count_ = 0;
  int64_t same_top_ = 0;
  double sum_nll_ = 0.0, sum_nll2_ = 0.0;
  double sum_nll_base_ = 0.0, sum_nll_base2_ = 0.0, sum_nll_nll_base_ = 0.0;
  double sum_kld_ = 0.0, sum_kld2_ = 0.0;
  double sum_p_diff_ = 0.0, sum_p_diff2_ = 0.0, sum_p_diff4_ = 0.0;
  std::vector<float> kld_values_;
  std::vector<float> p_diff_values_;
};

// The value at `fraction` of sorted `values`, interpolating between
// neighbours as llama.cpp does. Needs a non-empty, sorted span.
double Percentile(std::span<const float> sorted, double fraction);

}  // namespace trit::runtime
