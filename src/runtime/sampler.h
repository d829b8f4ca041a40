// Choosing the next token from a row of logits.
//
// Order of operations (llama.cpp's common chain):
//   1. penalties over the last penalty_last_n tokens of `history`:
//      repetition (logit > 0 ? logit / r : logit * r), then
//      logit -= count * frequency_penalty + (count > 0) * presence_penalty;
//   2. temperature <= 0: greedy (the highest logit, lowest id on ties);
//   3. candidates sorted by logit (ties: lower id first), top_k kept
//      (0: all), softmax of logit / temperature, top_p (smallest prefix whose
//      probability reaches top_p), min_p (p >= min_p * p_max);
//   4. one draw from the kept candidates with the seeded RNG.
// The same seed and the same logits give the same tokens on every platform
// (std::mt19937_64 is fully specified; the uniform draw is built from its bits).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "base/status.h"

namespace trit::runtime {

struct SamplerOptions {
  float temperature = 0.0f;  // <= 0: greedy
  int32_t top_k = 0;         // 0: no limit
  float top_p = 1.0f;        // 1: no limit
  float min_p = 0.0f;        // 0: no limit
  float repeat_penalty = 1.0f;
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
  int32_t penalty_last_n = 64;  // tokens of history the penalties look at; 0: none
  uint64_t seed = 0;
};

// Errors name the option and its valid range.
Status ValidateSamplerOptions(const SamplerOptions& options);

class Sampler {
 public:
  // Precondition: ValidateSamplerOptions(options).ok().
  explicit Sampler(const SamplerOptions& options);

  // The next token for `logits` (n_vocab), given the tokens so far.
  int32_t Sample(std::span<const float> logits, std::span<const int32_t> history);

 private:
  SamplerOptions options_;
  std::mt19937_64 rng_;
  std::vector<float> work_;  // (n_vocab) penalised logits
};

// The index of the highest value, lowest index on ties.
int32_t Argmax(std::span<const float> values);

}  // namespace trit::runtime
