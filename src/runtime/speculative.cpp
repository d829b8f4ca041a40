#include "runtime/speculative.h"

#include <algorithm>

namespace trit::runtime {

Expected<std::vector<int32_t>> PromptLookupDrafter::Draft(std::span<const int32_t> context, int32_t max) {
  const int64_t n = static_cast<int64_t>(context.size());
  for (int64_t g = std::min<int64_t>(max_ngram_, n - 1); g >= min_ngram_; --g) {
    const std::span<const int32_t> tail = context.subspan(static_cast<size_t>(n - g));
    // The latest earlier occurrence: its continuation is the likeliest now.
    for (int64_t start = n - g - 1; start >= 0; --start) {
      if (!std::equal(tail.begin(), tail.end(), context.begin() + start)) continue;
      const int64_t from = start + g;
      const int64_t count = std::min<int64_t>(max, n - from);
      return std::vector<int32_t>(context.begin() + from, context.begin() + from + count);
    }
  }
  return std::vector<int32_t>();
}

DraftPolicy::DraftPolicy(int32_t draft_max) : max_(std::max(1, draft_max)), length_(std::max(1, max_ / 2)) {}

void DraftPolicy::Record(int32_t drafted, int32_t accepted) {
  if (drafted <= 0) {
    if (pause_ > 0) --pause_;
    return;
  }
  if (accepted > 0) {
    backoff_ = 0;
    misses_ = 0;
  } else {
    ++misses_;
  }
  if (accepted == drafted) {
    length_ = std::min(max_, length_ + 2);
  } else if (accepted > 0 || drafted > 1) {
    length_ = accepted + 1;
  } else {
    // A single draft rejected: drafting costs more than it gives for now.
    length_ = 1;
    backoff_ = std::max(1, backoff_ * 2);  // bounded by giving up
    pause_ = backoff_;
  }
}

Expected<Generation> GenerateSpeculative(Session& session, std::span<const int32_t> before,
                                         std::span<const int32_t> prompt, Sampler& sampler,
                                         const GenerateOptions& options, Drafter& drafter,
                                         const SpeculativeOptions& spec, SpeculativeStats* stats) {
  if (prompt.empty()) return Error(ErrorCode::kInvalidArgument, "empty prompt");
  Generation out;
  if (options.max_tokens <= 0) return out;  // as Generate: nothing run
  const int32_t seq = options.seq;
  // As Generate: the penalties see the prompt and what follows.
  std::vector<int32_t> history(prompt.begin(), prompt.end());
  std::vector<int32_t> context(before.begin(), before.end());  // what the drafter sees
  context.insert(context.end(), prompt.begin(), prompt.end());
  Batch batch;
  const int64_t start = session.Length(seq);
  for (size_t i = 0; i < prompt.size(); ++i) {
    batch.Add(prompt[i], static_cast<int32_t>(start + static_cast<int64_t>(i)), seq, i + 1 == prompt.size());
  }
  Expected<Logits> logits = session.Decode(batch);
  if (!logits.ok()) return logits.status();
  if (Status s = drafter.Prepare(context); !s.ok()) return s;
  int32_t token = sampler.Sample(logits->Row(0), history, session.Length(seq));
  DraftPolicy policy(spec.draft_max);
  // Invariant at the top: `token` was sampled and is not in the cache; the
  // cache holds the prompt and every token emitted before it (as Generate's).
  for (;;) {
    if (options.Ends(token)) {
      out.stop = StopReason::kEndOfSequence;
      return out;
    }
    out.tokens.push_back(token);
    history.push_back(token);
    context.push_back(token);
    if (options.on_token && !options.on_token(token)) {
      out.stop = StopReason::kStopped;
      return out;
    }
    const int64_t left = options.max_tokens - static_cast<int64_t>(out.tokens.size());
    if (left <= 0) return out;
    const int64_t base = session.Length(seq);
    // Room for the token and its drafts in the context; no more drafts than
    // tokens still wanted after the one the token's row gives.
    const int64_t room = session.n_ctx() - base - 1;
    const int32_t k = static_cast<int32_t>(std::max<int64_t>(0, std::min<int64_t>({policy.Next(), left - 1, room})));
    std::vector<int32_t> ids{token};
    if (k > 0) {
      Expected<std::vector<int32_t>> drafts = drafter.Draft(context, k);
      if (!drafts.ok()) return drafts.status();
      ids.insert(ids.end(), drafts->begin(), drafts->begin() + std::min<std::ptrdiff_t>(k, drafts->size()));
    }
    const size_t n_drafts = ids.size() - 1;
    logits = session.Verify(ids, seq);
    if (!logits.ok()) return logits.status();
    if (stats != nullptr) {
      ++stats->passes;
      stats->drafted += static_cast<int64_t>(n_drafts);
    }
    // Row r gives the token at base + r + 1; it is plain decoding's token
    // there as long as every draft before it was.
    size_t r = 0;
    for (;; ++r) {
      token = sampler.Sample(logits->Row(static_cast<int64_t>(r)), history, base + static_cast<int64_t>(r) + 1);
      if (r == n_drafts || token != ids[r + 1]) break;
      // A draft confirmed: plain decoding emits it (it is already cached).
      if (stats != nullptr) ++stats->accepted;
      const bool end = options.Ends(token);
      bool stopped = false;
      if (!end) {
        out.tokens.push_back(token);
        history.push_back(token);
        context.push_back(token);
        stopped = options.on_token && !options.on_token(token);
      }
      if (end || stopped || static_cast<int64_t>(out.tokens.size()) >= options.max_tokens) {
        // As Generate leaves it: the last token emitted (or the end token) not cached.
        if (Status s = session.Truncate(seq, base + static_cast<int64_t>(r) + 1); !s.ok()) return s;
        out.stop = end ? StopReason::kEndOfSequence : stopped ? StopReason::kStopped : StopReason::kMaxTokens;
        return out;
      }
    }
    // The drafts from r on are not plain decoding's: drop them from the cache.
    if (Status s = session.Truncate(seq, base + static_cast<int64_t>(r) + 1); !s.ok()) return s;
    policy.Record(static_cast<int32_t>(n_drafts), static_cast<int32_t>(r));
  }
}

}  // namespace trit::runtime
