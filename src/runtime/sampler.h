// Choosing the next token from a row of logits.
//
// Order of operations (llama.cpp's common chain):
//   1. penalties over the last penalty_last_n tokens of `history`:
//      repetition (logit > 0 ? logit / r : logit * r), then
//      logit -= count * frequency_penalty + (count > 0) * presence_penalty;
//   2. temperature <= 0: greedy (the highest logit, lowest id on ties);
//   3. the candidates, ranked by logit (ties: lower id first), with their
//      probabilities, then top_p (the smallest ranked prefix whose probability
//      reaches top_p) and min_p (the ranked prefix with p >= min_p * p_max):
//      - top_k > 0 (and < n_vocab): the top_k best, probabilities
//        exp((logit - max) / temperature) in double, normalised over them;
//      - top_k = 0: every token, probabilities from the weights
//        w = ExpFixed((logit - max) * (1 / temperature)) (kernels/vocab_row.h),
//        normalised by their sum over the whole row; min_p keeps w >= min_p;
//   4. one draw u = PositionDraw(seed, position) * total of the kept
//      probabilities, and the first kept candidate whose running total
//      passes u, in rank order; when top_k = 0 keeps every token (top_p = 1,
//      min_p = 0) the running total goes in id order instead (the same
//      distribution, and no ranking of the vocabulary at all).
// A token whose logit is -infinity is never drawn.
// No step sorts the vocabulary: the ranked prefixes come from a partial
// selection (top_tokens.h) that grows only as far as top_p needs, and the
// whole-row passes (max, weights) are SIMD. Each call costs O(n_vocab).
// The same seed and the same logits give the same tokens on every platform
// (the draw is integer arithmetic; the whole-row kernels give the same bits
// on every SIMD target).
// The draw is keyed by the token's position in its sequence, not by how many
// draws came before: a token gets the same draw whether the steps before it
// ran one at a time, were verified in one pass (speculative decoding), were
// taken from a cache (prompt reuse) or were retried. Since 2026-12-04 every
// seeded stream follows this (earlier versions drew from a std::mt19937_64
// in call order, so seeded answers of temperature > 0 changed then;
// tests/runtime/sampler_test.cpp pins the new ones).
#pragma once

#include <cstdint>
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

  // The next token for `logits` (n_vocab), given the tokens so far (for the
  // penalties), to stand at `position` in its sequence (the number of tokens
  // before it: prompt and generated; it keys the random draw).
  int32_t Sample(std::span<const float> logits, std::span<const int32_t> history, int64_t position);

 private:
  // The logits after penalties: `logits` itself when none apply.
  std::span<const float> Penalised(std::span<const float> logits, std::span<const int32_t> history);
  // `uniform`: the position's draw in [0, 1).
  int32_t SampleTopK(std::span<const float> logits, double uniform);
  int32_t SampleWholeVocab(std::span<const float> logits, double uniform);
  // The length of the smallest prefix of `probs` (ranked, normalised) whose
  // total reaches top_p; 0 when top_p is 1 or the prefix never reaches it.
  size_t TopPPrefix(std::span<const double> probs) const;
  // Step 4's draw over the first `keep` ranked candidates.
  // `probs` (normalised) and `ids` are in rank order.
  int32_t DrawRanked(std::span<const int32_t> ids, std::span<const double> probs, size_t keep, double uniform);

  SamplerOptions options_;
  std::vector<float> work_;     // (n_vocab) penalised logits, when penalties apply
  std::vector<float> weights_;  // (n_vocab) step 3's weights, top_k = 0
  std::vector<double> probs_;   // a ranked prefix's probabilities
};

// The uniform draw in [0, 1) of the token at `position` of a sequence
// sampled with `seed`: 53 bits of SplitMix64 (Steele, Lea and Flood's
// finalizer) of the mixed seed plus the position. Counter-based, so it
// depends on nothing but its two arguments.
double PositionDraw(uint64_t seed, int64_t position);

// The index of the highest value, lowest index on ties.
int32_t Argmax(std::span<const float> values);

}  // namespace trit::runtime
