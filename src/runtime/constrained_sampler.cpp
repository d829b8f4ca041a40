#include "runtime/constrained_sampler.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace trit::runtime {

VocabularyBytes ReadVocabularyBytes(const tokenizer::Tokenizer& tokenizer) {
  const tokenizer::Vocab& vocab = tokenizer.vocab();
  VocabularyBytes out;
  out.pieces.resize(static_cast<size_t>(vocab.size()));
  for (int32_t id = 0; id < vocab.size(); ++id) {
    out.pieces[static_cast<size_t>(id)] = tokenizer.TokenToPiece(id, /*render_special=*/false, /*lstrip=*/false);
  }
  out.end_tokens = vocab.end_of_generation();
  const int32_t eos = vocab.special().eos;
  if (vocab.Valid(eos) && std::find(out.end_tokens.begin(), out.end_tokens.end(), eos) == out.end_tokens.end()) {
    out.end_tokens.push_back(eos);
  }
  return out;
}

std::unique_ptr<grammar::TokenIndex> IndexVocabulary(const tokenizer::Tokenizer& tokenizer) {
  VocabularyBytes v = ReadVocabularyBytes(tokenizer);
  return std::make_unique<grammar::TokenIndex>(std::move(v.pieces), std::move(v.end_tokens));
}

ConstrainedSampler::ConstrainedSampler(const SamplerOptions& options, Constraints constraints,
                                       const grammar::TokenIndex* index)
    : sampler_(options), constraints_(std::move(constraints)), index_(index), greedy_(options.temperature <= 0.0f) {
  if (constraints_.grammar != nullptr) {
    TRIT_CHECK(index_ != nullptr);
    matcher_ = std::make_unique<grammar::Matcher>(constraints_.grammar);
  }
}

Expected<int32_t> ConstrainedSampler::Sample(std::span<const float> logits, std::span<const int32_t> history,
                                             int64_t position) {
  if (constraints_.logit_bias.empty() && matcher_ == nullptr) return sampler_.Sample(logits, history, position);
  work_.assign(logits.begin(), logits.end());
  for (const auto& [id, bias] : constraints_.logit_bias) {
    if (id >= 0 && static_cast<size_t>(id) < work_.size()) work_[static_cast<size_t>(id)] += bias;
  }
  if (matcher_ == nullptr) return sampler_.Sample(work_, history, position);
  if (greedy_) {
    // Greedy draws nothing, so trying first changes nothing.
    const int32_t first = sampler_.Sample(work_, history, position);
    if (first < index_->n_vocab() && index_->Allows(*matcher_, first)) return first;
  }
  // Rows past the tokenizer's vocabulary (padded output matrices) hold no
  // token: never allowed.
  mask_.resize(static_cast<size_t>(index_->n_vocab()));
  index_->FillMask(*matcher_, mask_);
  bool any = false;
  for (size_t i = 0; i < work_.size(); ++i) {
    if (i >= mask_.size() || mask_[i] == 0) {
      work_[i] = -INFINITY;
    } else {
      any = true;
    }
  }
  if (!any) {
    return Error(ErrorCode::kInvalidArgument,
                 "the grammar allows no token of this vocabulary here: it asks for text that no token can write");
  }
  return sampler_.Sample(work_, history, position);
}

void ConstrainedSampler::Accept(int32_t token) {
  if (matcher_ != nullptr) index_->Accept(matcher_.get(), token);
}

}  // namespace trit::runtime
