// Token generation on a session: prefill the prompt in one pass, then one
// token per step, sampled, until max_tokens or the end-of-sequence token.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace trit::runtime {

struct GenerateOptions {
  int64_t max_tokens = 128;
  std::optional<int32_t> eos_id;  // stop when sampled (not included in the output)
  std::vector<int32_t> end_ids;   // further ids that end generation the same way (end of turn)
  // Called with each generated token as soon as it is sampled, before the
  // next forward pass; returning false stops generation (kStopped).
  std::function<bool(int32_t token)> on_token;
  int32_t seq = 0;

  // Whether `token` ends generation (eos_id or one of end_ids).
  bool Ends(int32_t token) const;
};

enum class StopReason { kMaxTokens, kEndOfSequence, kStopped };

struct Generation {
  std::vector<int32_t> tokens;  // generated ids, the prompt not included
  StopReason stop = StopReason::kMaxTokens;
};

// Appends `prompt` (non-empty) to sequence options.seq and generates.
// Errors when the prompt or the generated tokens do not fit the context.
Expected<Generation> Generate(Session& session, std::span<const int32_t> prompt, Sampler& sampler,
                              const GenerateOptions& options);

}  // namespace trit::runtime
