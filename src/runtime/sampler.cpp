#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "base/check.h"
#include "kernels/vocab_row_optimized.h"
#include "runtime/top_tokens.h"

namespace trit::runtime {

Status ValidateSamplerOptions(const SamplerOptions& o) {
  if (!std::isfinite(o.temperature)) return Error(ErrorCode::kInvalidArgument, "temperature must be finite");
  if (o.top_k < 0) return Error(ErrorCode::kInvalidArgument, "top_k is {}, expected >= 0", o.top_k);
  if (!(o.top_p > 0.0f && o.top_p <= 1.0f)) {
    return Error(ErrorCode::kInvalidArgument, "top_p is {}, expected (0, 1]", o.top_p);
  }
  if (!(o.min_p >= 0.0f && o.min_p <= 1.0f)) {
    return Error(ErrorCode::kInvalidArgument, "min_p is {}, expected [0, 1]", o.min_p);
  }
  if (!(o.repeat_penalty > 0.0f) || !std::isfinite(o.repeat_penalty)) {
    return Error(ErrorCode::kInvalidArgument, "repeat_penalty is {}, expected > 0", o.repeat_penalty);
  }
  if (!std::isfinite(o.frequency_penalty) || !std::isfinite(o.presence_penalty)) {
    return Error(ErrorCode::kInvalidArgument, "frequency and presence penalties must be finite");
  }
  if (o.penalty_last_n < 0) {
    return Error(ErrorCode::kInvalidArgument, "penalty_last_n is {}, expected >= 0", o.penalty_last_n);
  }
  return Status::Ok();
}

int32_t Argmax(std::span<const float> values) {
  TRIT_CHECK(!values.empty());
  // The SIMD max of the row (NaN skipped), then of blocks until the first
  // block holding it, then that block's first element equal to it: the
  // lowest index of the maximum, in two vector passes at most. A NaN first
  // value keeps the scalar loop's answer (index 0).
  const int64_t n = static_cast<int64_t>(values.size());
  const float* x = values.data();
  const float max = kernels::RowMaxOptimized(x, n);
  constexpr int64_t kBlock = 1024;
  if (!std::isnan(x[0])) {
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t len = std::min(kBlock, n - b);
      if (kernels::RowMaxOptimized(x + b, len) != max) continue;
      for (int64_t i = b; i < b + len; ++i) {
        if (x[i] == max) return static_cast<int32_t>(i);
      }
    }
  }
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] > values[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

namespace {

uint64_t SplitMix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

double PositionDraw(uint64_t seed, int64_t position) {
  constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  const uint64_t key = SplitMix64(seed + kGolden);
  const uint64_t bits = SplitMix64(key + kGolden * (static_cast<uint64_t>(position) + 1));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

Sampler::Sampler(const SamplerOptions& options) : options_(options) {
  TRIT_CHECK(ValidateSamplerOptions(options).ok());
}

std::span<const float> Sampler::Penalised(std::span<const float> logits, std::span<const int32_t> history) {
  const size_t n_recent = std::min(history.size(), static_cast<size_t>(options_.penalty_last_n));
  const bool any = options_.repeat_penalty != 1.0f || options_.frequency_penalty != 0.0f ||
                   options_.presence_penalty != 0.0f;
  if (!any || n_recent == 0) return logits;
  const int64_t n_vocab = static_cast<int64_t>(logits.size());
  std::map<int32_t, int> counts;
  for (size_t i = history.size() - n_recent; i < history.size(); ++i) {
    if (history[i] >= 0 && history[i] < n_vocab) ++counts[history[i]];
  }
  work_.assign(logits.begin(), logits.end());
  for (const auto& [id, count] : counts) {
    float& l = work_[static_cast<size_t>(id)];
    if (options_.repeat_penalty != 1.0f) l = l > 0.0f ? l / options_.repeat_penalty : l * options_.repeat_penalty;
    l -= static_cast<float>(count) * options_.frequency_penalty + options_.presence_penalty;
  }
  return work_;
}

int32_t Sampler::Sample(std::span<const float> logits, std::span<const int32_t> history, int64_t position) {
  TRIT_CHECK(!logits.empty());
  const std::span<const float> row = Penalised(logits, history);
  if (options_.temperature <= 0.0f) return Argmax(row);
  const int64_t n_vocab = static_cast<int64_t>(row.size());
  const double uniform = PositionDraw(options_.seed, position);
  if (options_.top_k > 0 && options_.top_k < n_vocab) return SampleTopK(row, uniform);
  return SampleWholeVocab(row, uniform);
}

int32_t Sampler::SampleTopK(std::span<const float> row, double uniform) {
  const std::vector<int32_t> ids = TopTokens(row, options_.top_k);
  probs_.resize(ids.size());
  const double max_logit = row[static_cast<size_t>(ids[0])];
  double sum = 0.0;
  for (size_t i = 0; i < ids.size(); ++i) {
    probs_[i] = std::exp((row[static_cast<size_t>(ids[i])] - max_logit) / options_.temperature);
    sum += probs_[i];
  }
  for (double& p : probs_) p /= sum;
  const size_t top_p = TopPPrefix(probs_);
  size_t keep = top_p > 0 ? top_p : ids.size();
  if (options_.min_p > 0.0f) {
    const double threshold = options_.min_p * probs_[0];
    size_t n = 1;
    while (n < keep && probs_[n] >= threshold) ++n;
    keep = n;
  }
  return DrawRanked(ids, probs_, keep, uniform);
}

int32_t Sampler::SampleWholeVocab(std::span<const float> row, double uniform) {
  const int64_t n_vocab = static_cast<int64_t>(row.size());
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  const float max_logit = kernels::RowMaxOptimized(row.data(), n_vocab);
  if (!(max_logit > kMinusInf)) return Argmax(row);  // nothing finite to weigh
  weights_.resize(row.size());
  const double sum =
      kernels::ExpWeightsOptimized(row.data(), n_vocab, max_logit, 1.0f / options_.temperature, weights_.data());
  if (options_.top_p >= 1.0f && options_.min_p <= 0.0f) {
    // Every token kept: the running total in id order.
    const double u = uniform * sum;
    double cumulative = 0.0;
    int32_t last = -1;
    for (int64_t i = 0; i < n_vocab; ++i) {
      if (row[static_cast<size_t>(i)] == kMinusInf) continue;
      cumulative += static_cast<double>(weights_[static_cast<size_t>(i)]);
      last = static_cast<int32_t>(i);
      if (u < cumulative) return last;
    }
    return last;  // u within the rounding of the two sums' orders
  }
  // A ranked prefix long enough for min_p and top_p: at most the tokens
  // with w >= min_p, grown 4x from 64 until top_p's total is reached.
  int64_t bound = n_vocab;
  if (options_.min_p > 0.0f) {
    bound = 0;
    for (int64_t i = 0; i < n_vocab; ++i) bound += weights_[static_cast<size_t>(i)] >= options_.min_p ? 1 : 0;
    bound = std::max<int64_t>(bound, 1);
  }
  std::vector<int32_t> ids;
  size_t keep = 0;
  for (int64_t k = std::min<int64_t>(bound, 64);; k = std::min<int64_t>(bound, 4 * k)) {
    ids = TopTokens(row, k);
    probs_.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const size_t id = static_cast<size_t>(ids[i]);
      probs_[i] = row[id] == kMinusInf ? 0.0 : static_cast<double>(weights_[id]) / sum;
    }
    keep = TopPPrefix(probs_);
    if (keep > 0 || k == bound) break;
  }
  if (keep == 0) keep = ids.size();
  if (options_.min_p > 0.0f) {
    size_t n = 1;
    while (n < keep && weights_[static_cast<size_t>(ids[n])] >= options_.min_p) ++n;
    keep = n;
  }
  return DrawRanked(ids, probs_, keep, uniform);
}

size_t Sampler::TopPPrefix(std::span<const double> probs) const {
  if (options_.top_p >= 1.0f) return 0;
  double cumulative = 0.0;
  for (size_t i = 0; i < probs.size(); ++i) {
    cumulative += probs[i];
    if (cumulative >= options_.top_p) return i + 1;
  }
  return 0;
}

int32_t Sampler::DrawRanked(std::span<const int32_t> ids, std::span<const double> probs, size_t keep,
                            double uniform) {
  // u uniform in [0, total).
  double total = 0.0;
  for (size_t i = 0; i < keep; ++i) total += probs[i];
  const double u = uniform * total;
  double cumulative = 0.0;
  size_t last = 0;  // the last candidate with a probability (never a -inf logit)
  for (size_t i = 0; i < keep; ++i) {
    if (probs[i] > 0.0) last = i;
    cumulative += probs[i];
    if (u < cumulative) return ids[i];
  }
  return ids[last];
}

}  // namespace trit::runtime
