#include "runtime/perplexity_stats.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace trit::runtime {

double NegativeLogLikelihood(std::span<const float> logits, int32_t target) {
  TRIT_CHECK(target >= 0 && static_cast<size_t>(target) < logits.size());
  float max_logit = logits[0];
  for (float l : logits) max_logit = std::max(max_logit, l);
  double sum_exp = 0.0;
  for (float l : logits) sum_exp += std::exp(l - max_logit);
  return -(logits[static_cast<size_t>(target)] - max_logit - std::log(sum_exp));
}

double NllStats::Ppl() const { return std::exp(MeanNll()); }

double NllStats::PplError() const {
  if (count_ < 2) return 0.0;
  const double mean = MeanNll();
  const double variance = sum2_ / static_cast<double>(count_) - mean * mean;
  return variance > 0.0 ? std::sqrt(variance / static_cast<double>(count_ - 1)) * Ppl() : 0.0;
}

KldRow CompareRow(std::span<const float> logits, const LogProbRecord& base, int32_t target) {
  TRIT_CHECK(base.size() == RecordWords(static_cast<int64_t>(logits.size())) - 4);  // n_vocab, padded to even
  TRIT_CHECK(target >= 0 && static_cast<size_t>(target) < logits.size());
  const int64_t n_vocab = static_cast<int64_t>(logits.size());
  float max_logit = logits[0];
  int64_t imax = 0;
  for (int64_t i = 1; i < n_vocab; ++i) {
    if (logits[static_cast<size_t>(i)] > max_logit) {
      max_logit = logits[static_cast<size_t>(i)];
      imax = i;
    }
  }
  double sum_exp = 0.0;
  for (float l : logits) sum_exp += std::exp(l - max_logit);
  const float log_sum_exp = static_cast<float>(std::log(sum_exp));

  KldRow row;
  row.nll = max_logit + log_sum_exp - logits[static_cast<size_t>(target)];
  row.nll_base = -base.LogProb(target);
  const float log_norm = max_logit + log_sum_exp;  // log p_i = logits_i - log_norm
  double kld = 0.0;
  int64_t imax_base = 0;
  float base_max = base.LogProb(0);
  for (int64_t i = 0; i < n_vocab; ++i) {
    const float log_p_base = base.LogProb(i);
    if (log_p_base > base_max) {
      base_max = log_p_base;
      imax_base = i;
    }
    // The record cannot tell apart probabilities below e^-16 of its top (see logits_file.h).
    if (log_p_base > -16.0f) kld += std::exp(log_p_base) * (log_p_base - logits[static_cast<size_t>(i)] + log_norm);
  }
  row.kld = kld;
  row.same_top = imax == imax_base;
  row.p_diff = std::exp(-row.nll) - std::exp(-row.nll_base);
  return row;
}

void KldStats::Add(const KldRow& row) {
  ++count_;
  same_top_ += row.same_top ? 1 : 0;
  const double nll = row.nll;
  const double nll_base = row.nll_base;
  sum_nll_ += nll;
  sum_nll2_ += nll * nll;
  sum_nll_base_ += nll_base;
  sum_nll_base2_ += nll_base * nll_base;
  sum_nll_nll_base_ += nll * nll_base;
  sum_kld_ += row.kld;
  sum_kld2_ += row.kld * row.kld;
  const double p_diff = row.p_diff;
  sum_p_diff_ += p_diff;
  sum_p_diff2_ += p_diff * p_diff;
  sum_p_diff4_ += p_diff * p_diff * p_diff * p_diff;
  kld_values_.push_back(static_cast<float>(row.kld));
  p_diff_values_.push_back(row.p_diff);
}

namespace {

MeanError MeanAndError(double sum, double sum2, int64_t count) {
  if (count < 1) return {};
  const double n = static_cast<double>(count);
  const double mean = sum / n;
  const double variance = sum2 / n - mean * mean;
  return {mean, variance > 0.0 && count > 10 ? std::sqrt(variance / (n - 1)) : 0.0};
}

// The covariance of two means (llama.cpp's; 0 for fewer than 10 values).
double CovarianceOfMeans(double sum_a, double sum_b, double sum_ab, int64_t count) {
  if (count < 10) return 0.0;
  const double n = static_cast<double>(count);
  return (sum_ab / n - (sum_a / n) * (sum_b / n)) / (n - 1);
}

double Median(const std::vector<float>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 0 ? 0.5f * (sorted[n / 2] + sorted[n / 2 - 1]) : sorted[n / 2];
}

}  // namespace

double Percentile(std::span<const float> sorted, double fraction) {
  TRIT_CHECK(!sorted.empty());
  if (fraction <= 0) return sorted.front();
  if (fraction >= 1) return sorted.back();
  // In float, as llama.cpp interpolates.
  float p = static_cast<float>(fraction) * static_cast<float>(sorted.size() - 1);
  const size_t ip = static_cast<size_t>(p);
  p -= static_cast<float>(ip);
  return (1 - p) * sorted[ip] + p * sorted[std::min(ip + 1, sorted.size() - 1)];
}

Spread SpreadOf(std::vector<float> values) {
  TRIT_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  Spread s;
  s.max = values.back();
  s.p99_9 = Percentile(values, 0.999);
  s.p99 = Percentile(values, 0.99);
  s.p95 = Percentile(values, 0.95);
  s.p90 = Percentile(values, 0.90);
  s.p75 = Percentile(values, 0.75);
  s.median = Median(values);
  s.p25 = Percentile(values, 0.25);
  s.p10 = Percentile(values, 0.10);
  s.p5 = Percentile(values, 0.05);
  s.p1 = Percentile(values, 0.01);
  s.p0_1 = Percentile(values, 0.001);
  s.min = values.front();
  return s;
}

KldSummary KldStats::Summarize() const {
  TRIT_CHECK(count_ >= 1);
  KldSummary s;
  s.count = count_;
  const MeanError ln_ppl = MeanAndError(sum_nll_, sum_nll2_, count_);
  const MeanError ln_ppl_base = MeanAndError(sum_nll_base_, sum_nll_base2_, count_);
  s.ppl = {std::exp(ln_ppl.mean), std::exp(ln_ppl.mean) * ln_ppl.error};
  s.ppl_base = {std::exp(ln_ppl_base.mean), std::exp(ln_ppl_base.mean) * ln_ppl_base.error};
  const double cov = CovarianceOfMeans(sum_nll_, sum_nll_base_, sum_nll_nll_base_, count_);
  const double error_product = ln_ppl.error * ln_ppl_base.error;
  s.ln_ppl_correlation = error_product > 0.0 ? cov / error_product : 0.0;
  const double ratio_variance = ln_ppl.error * ln_ppl.error + ln_ppl_base.error * ln_ppl_base.error - 2.0 * cov;
  s.ln_ppl_ratio = {ln_ppl.mean - ln_ppl_base.mean, std::sqrt(std::max(0.0, ratio_variance))};
  s.ppl_ratio = {std::exp(s.ln_ppl_ratio.mean), std::exp(s.ln_ppl_ratio.mean) * s.ln_ppl_ratio.error};
  const double diff_variance = s.ppl.error * s.ppl.error + s.ppl_base.error * s.ppl_base.error -
                               2.0 * s.ppl.mean * s.ppl_base.mean * cov;
  s.ppl_diff = {s.ppl.mean - s.ppl_base.mean, std::sqrt(std::max(0.0, diff_variance))};

  s.kld = MeanAndError(sum_kld_, sum_kld2_, count_);
  s.kld_spread = SpreadOf(kld_values_);
  s.p_diff = MeanAndError(sum_p_diff_, sum_p_diff2_, count_);
  s.p_diff_spread = SpreadOf(p_diff_values_);
  const MeanError mse = MeanAndError(sum_p_diff2_, sum_p_diff4_, count_);
  const double rms = std::sqrt(mse.mean);
  s.p_diff_rms = {rms, rms > 0.0 ? 0.5 / rms * mse.error : 0.0};

  const double same = static_cast<double>(same_top_) / static_cast<double>(count_);
  s.same_top = {same, count_ > 1 ? std::sqrt(same * (1.0 - same) / static_cast<double>(count_ - 1)) : 0.0};
  return s;
}

}  // namespace trit::runtime
