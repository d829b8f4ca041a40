// The k highest-ranked tokens of a row of logits without sorting the row:
// the sampler's top-k and the candidate prefixes of top-p and min-p.
// Rank: higher logit first, lower id on ties; NaN ranks as -infinity.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace trit::runtime {

// The ids of the min(k, n) highest-ranked values of x, best first. O(n) plus
// O(c log k) for the c values that beat the running k-th best (a few k for
// logits): one pass keeps candidates above a threshold that rises each time
// the buffer of candidates fills.
std::vector<int32_t> TopTokens(std::span<const float> x, int64_t k);

}  // namespace trit::runtime
