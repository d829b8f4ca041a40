#include "runtime/generate.h"

#include <algorithm>

namespace trit::runtime {

bool GenerateOptions::Ends(int32_t token) const {
  return (eos_id.has_value() && token == *eos_id) || std::find(end_ids.begin(), end_ids.end(), token) != end_ids.end();
}

Expected<Generation> Generate(Session& session, std::span<const int32_t> prompt, Sampler& sampler,
                              const GenerateOptions& options) {
  if (prompt.empty()) return Error(ErrorCode::kInvalidArgument, "empty prompt");
  std::vector<int32_t> history(prompt.begin(), prompt.end());
  Batch batch;
  const int64_t start = session.Length(options.seq);
  for (size_t i = 0; i < prompt.size(); ++i) {
    batch.Add(prompt[i], static_cast<int32_t>(start + static_cast<int64_t>(i)), options.seq,
              i + 1 == prompt.size());
  }
  Generation out;
  while (static_cast<int64_t>(out.tokens.size()) < options.max_tokens) {
    Expected<Logits> logits = session.Decode(batch);
    if (!logits.ok()) return logits.status();
    // The new token's position: everything the sequence holds before it.
    const int32_t next = sampler.Sample(logits->Row(0), history, session.Length(options.seq));
    if (options.Ends(next)) {
      out.stop = StopReason::kEndOfSequence;
      return out;
    }
    out.tokens.push_back(next);
    history.push_back(next);
    if (options.on_token && !options.on_token(next)) {
      out.stop = StopReason::kStopped;
      return out;
    }
    batch = Batch();
    batch.Add(next, static_cast<int32_t>(session.Length(options.seq)), options.seq, true);
  }
  return out;
}

}  // namespace trit::runtime
