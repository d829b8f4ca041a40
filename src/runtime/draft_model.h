// A draft model for speculative decoding (speculative.h): loading one whose
// vocabulary is the target's, token for token (else its guesses would mean
// other text), and drafting with it greedily for one or several sequences.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/model.h"
#include "runtime/session.h"
#include "runtime/speculative.h"
#include "tokenizer/vocab.h"

namespace trit::runtime {

// Loads the GGUF file at `path` as a draft for a model of vocabulary
// `target`. A vocabulary that differs is kInvalidArgument naming the first
// token that differs.
Expected<std::unique_ptr<model::Model>> LoadDraftModel(const std::string& path, const tokenizer::Vocab& target);

// Guesses greedily on its own session, one sequence of it per sequence of
// the target (a server's slots share one draft model); each sequence's cache
// follows the context it was last asked about, so only new tokens are run.
// A sequence's drafts stop at the first guess the draft model itself gives
// less than `min_probability`: such guesses are mostly rejected, and each
// costs a draft step and a row of the target's check.
class ModelDrafter final : public Drafter {
 public:
  static constexpr float kDefaultMinProbability = 0.35f;
  // `model` must outlive the drafter; options.n_seq sequences.
  // min_probability 0: always the full length.
  static Expected<std::unique_ptr<ModelDrafter>> Create(const model::Model& model, const SessionOptions& options,
                                                        float min_probability = kDefaultMinProbability);

  // Drafts on sequence 0.
  Expected<std::vector<int32_t>> Draft(std::span<const int32_t> context, int32_t max) override;
  // Runs all of `context` but its last token on sequence 0 (no logits), so
  // that the first draft computes one token.
  Status Prepare(std::span<const int32_t> context) override;

  struct Request {
    int32_t seq = 0;                    // the draft session's sequence
    std::span<const int32_t> context;   // the sequence so far
    int32_t max = 0;                    // most tokens wanted
  };
  // The drafts of several sequences (each at most once), computed in one
  // batched pass per drafted position. Row logits do not depend on the
  // batch, so each gets the tokens it would get alone.
  Expected<std::vector<std::vector<int32_t>>> DraftMany(std::span<const Request> requests);

 private:
  ModelDrafter(std::unique_ptr<Session> session, float min_probability);
  // Cuts sequence `seq`'s cache to what it shares with `context`, short of
  // its last token (always run again, for its logits); returns that length.
  Expected<size_t> KeepCommon(int32_t seq, std::span<const int32_t> context);
  std::unique_ptr<Session> session_;
  float min_probability_;
  std::vector<std::vector<int32_t>> cached_;  // per sequence: the tokens its cache holds
};

}  // namespace trit::runtime
