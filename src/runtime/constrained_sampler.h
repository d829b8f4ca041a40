// Sampling under constraints: a logit bias and a grammar (grammar/).
//
// Each step the row's logits get the bias added, and, with a grammar, every
// token the grammar does not allow next is set to -infinity before the
// Sampler draws (sampler.h: such a token is never drawn). So the answer is
// drawn from the model's distribution restricted to the grammar's language,
// and it stays a function of (logits, history, seed) alone: the same tokens
// alone or batched (docs/DESIGN.md contract 2).
// Greedy requests skip the whole-vocabulary mask when the unconstrained
// choice is allowed: the argmax over allowed tokens is then that same token
// (lowest id on ties included), so the result is identical and a step costs
// one token check instead of a mask.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "grammar/matcher.h"
#include "grammar/token_index.h"
#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {

// What grammar masks index of a vocabulary: each token's bytes as its text
// appears in the output (TokenToPiece without special tokens, which thus
// never match a grammar) and the end-of-generation tokens (with EOS).
struct VocabularyBytes {
  std::vector<std::string> pieces;  // (n_vocab) each token's bytes
  std::vector<int32_t> end_tokens;
};
VocabularyBytes ReadVocabularyBytes(const tokenizer::Tokenizer& tokenizer);
std::unique_ptr<grammar::TokenIndex> IndexVocabulary(const tokenizer::Tokenizer& tokenizer);

struct Constraints {
  std::vector<std::pair<int32_t, float>> logit_bias;  // (token id, added to its logit); ids past the row: none
  std::shared_ptr<const grammar::Grammar> grammar;    // null: none
};

class ConstrainedSampler {
 public:
  // `index` must outlive the sampler and match the logits' vocabulary; it
  // may be null when there is no grammar. Precondition as Sampler's.
  ConstrainedSampler(const SamplerOptions& options, Constraints constraints, const grammar::TokenIndex* index);

  // The next token for `logits` (n_vocab), given the tokens so far. An error
  // when the grammar allows no token of the vocabulary here (a grammar that
  // needs a character no token holds).
  Expected<int32_t> Sample(std::span<const float> logits, std::span<const int32_t> history, int64_t position);
  // Advances the grammar by `token`, which Sample returned.
  void Accept(int32_t token);
  // Whether the grammar allows nothing more: the answer is complete.
  bool MustEnd() const { return matcher_ != nullptr && matcher_->MustEnd(); }
  bool constrained() const { return matcher_ != nullptr; }

 private:
  Sampler sampler_;
  Constraints constraints_;
  const grammar::TokenIndex* index_;
  std::unique_ptr<grammar::Matcher> matcher_;
  bool greedy_;
  std::vector<float> work_;     // (n_vocab) biased and masked logits
  std::vector<uint8_t> mask_;   // (n_vocab) 1: allowed
};

}  // namespace trit::runtime
