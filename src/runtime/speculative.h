// Speculative decoding that changes nothing but the speed. A drafter
// guesses the next few tokens; the target model runs the last token and the
// guesses in one pass (Session::Verify), and each row is sampled as plain
// decoding would sample it: a row's logits do not depend on the rest of the
// batch (docs/DESIGN.md contract 2) and a token's draw is keyed by its position
// (sampler.h), so the row after an accepted guess gives exactly the token
// plain decoding would have computed next. The guesses up to the first that
// differs from it are kept, with the target's own token there; the cache
// past them is truncated. So the tokens are those of Generate, bit for bit,
// whatever the drafter guesses, and the cache ends as Generate leaves it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "runtime/generate.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace trit::runtime {

class Drafter {
 public:
  virtual ~Drafter() = default;
  // Up to `max` (>= 1) tokens that may follow `context` (the sequence so
  // far); fewer or none when it has no guess.
  virtual Expected<std::vector<int32_t>> Draft(std::span<const int32_t> context, int32_t max) = 0;
  // Called before the first token with the context so far (the prompt): a
  // drafter that runs a model of its own computes it now, with the prompt's
  // work, rather than at the first draft.
  virtual Status Prepare(std::span<const int32_t> /*context*/) { return Status::Ok(); }
};

// Prompt lookup: continues the latest earlier occurrence of the context's
// last n tokens (n from max_ngram down to min_ngram) with what followed it
// there. No second model; it pays off where answers repeat their input
// (code edits, summaries, extraction). Matches of fewer than 3 tokens are
// not drafted from by default: in free text they happen by chance, and each
// wrong draft costs a row of the check (measured: docs/PERFORMANCE.md).
class PromptLookupDrafter final : public Drafter {
 public:
  PromptLookupDrafter(int32_t min_ngram = 3, int32_t max_ngram = 4) : min_ngram_(min_ngram), max_ngram_(max_ngram) {}
  Expected<std::vector<int32_t>> Draft(std::span<const int32_t> context, int32_t max) override;

 private:
  int32_t min_ngram_, max_ngram_;
};

// How many tokens to draft before the next pass. It starts at half of the
// most, grows by two after a pass whose drafts were all kept, and after a
// rejection falls to one more than the drafts kept. When even single drafts
// are rejected, it pauses drafting for 1, 2, 4, 8 passes (reset by any kept
// draft); after kGiveUpAfter passes in a row without a kept draft it stops
// for good (a policy lasts one generation). So a drafter that never guesses
// right costs a few passes early on; pausing alone would not do, since a
// draft model runs every token of the context to draft again (about 5% of
// a step each on Gemma 3 270M).
class DraftPolicy {
 public:
  static constexpr int32_t kGiveUpAfter = 6;
  explicit DraftPolicy(int32_t draft_max);
  // Tokens to draft now; 0 while pausing or after giving up.
  int32_t Next() const { return pause_ > 0 || misses_ >= kGiveUpAfter ? 0 : length_; }
  // After a pass with `drafted` tokens drafted (0 when none were), of which
  // `accepted` were kept.
  void Record(int32_t drafted, int32_t accepted);

 private:
  int32_t max_;
  int32_t length_;
  int32_t pause_ = 0;    // passes left without drafting
  int32_t backoff_ = 0;  // the last pause's length; 0 after a kept draft
  int32_t misses_ = 0;   // drafting passes in a row that kept nothing
};

struct SpeculativeOptions {
  int32_t draft_max = 8;  // most tokens drafted per pass; DraftPolicy adapts below it
};

struct SpeculativeStats {
  int64_t passes = 0;    // target passes after the prompt's
  int64_t drafted = 0;   // tokens the drafter proposed
  int64_t accepted = 0;  // of them, kept
};

// Generate's contract and tokens, with drafts verified in one pass.
// `before`: the tokens the sequence holds ahead of `prompt` (the drafter
// sees them as context).
Expected<Generation> GenerateSpeculative(Session& session, std::span<const int32_t> before,
                                         std::span<const int32_t> prompt, Sampler& sampler,
                                         const GenerateOptions& options, Drafter& drafter,
                                         const SpeculativeOptions& spec, SpeculativeStats* stats);

}  // namespace trit::runtime
