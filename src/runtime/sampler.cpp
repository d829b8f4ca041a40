#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "base/check.h"

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
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] > values[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

Sampler::Sampler(const SamplerOptions& options) : options_(options), rng_(options.seed) {
  TRIT_CHECK(ValidateSamplerOptions(options).ok());
}

int32_t Sampler::Sample(std::span<const float> logits, std::span<const int32_t> history) {
  const int64_t n_vocab = static_cast<int64_t>(logits.size());
  work_.assign(logits.begin(), logits.end());

  // 1. Penalties over the recent history.
  const size_t n_recent = std::min(history.size(), static_cast<size_t>(options_.penalty_last_n));
  std::map<int32_t, int> counts;
  for (size_t i = history.size() - n_recent; i < history.size(); ++i) {
    if (history[i] >= 0 && history[i] < n_vocab) ++counts[history[i]];
  }
  for (const auto& [id, count] : counts) {
    float& l = work_[static_cast<size_t>(id)];
    if (options_.repeat_penalty != 1.0f) l = l > 0.0f ? l / options_.repeat_penalty : l * options_.repeat_penalty;
    l -= static_cast<float>(count) * options_.frequency_penalty + options_.presence_penalty;
  }

  // 2. Greedy.
  if (options_.temperature <= 0.0f) return Argmax(work_);

  // 3. Candidates: sort, top_k, softmax with temperature, top_p, min_p.
  std::vector<int32_t> ids(static_cast<size_t>(n_vocab));
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    const float la = work_[static_cast<size_t>(a)], lb = work_[static_cast<size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  if (options_.top_k > 0 && options_.top_k < n_vocab) ids.resize(static_cast<size_t>(options_.top_k));
  std::vector<double> probs(ids.size());
  const double max_logit = work_[static_cast<size_t>(ids[0])];
  double sum = 0.0;
  for (size_t i = 0; i < ids.size(); ++i) {
    probs[i] = std::exp((work_[static_cast<size_t>(ids[i])] - max_logit) / options_.temperature);
    sum += probs[i];
  }
  for (double& p : probs) p /= sum;
  size_t keep = ids.size();
  if (options_.top_p < 1.0f) {
    double cumulative = 0.0;
    for (size_t i = 0; i < ids.size(); ++i) {
      cumulative += probs[i];
      if (cumulative >= options_.top_p) {
        keep = i + 1;
        break;
      }
    }
  }
  if (options_.min_p > 0.0f) {
    const double threshold = options_.min_p * probs[0];
    size_t n = 1;
    while (n < keep && probs[n] >= threshold) ++n;
    keep = n;
  }

  // 4. One draw: u uniform in [0, total) from 53 bits of the generator.
  double total = 0.0;
  for (size_t i = 0; i < keep; ++i) total += probs[i];
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * total;
  double cumulative = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    cumulative += probs[i];
    if (u < cumulative) return ids[i];
  }
  return ids[keep - 1];
}

}  // namespace trit::runtime
