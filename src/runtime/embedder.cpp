#include "runtime/embedder.h"

#include <cmath>

namespace trit::runtime {

model::Pooling ResolvePooling(const model::Encoder& encoder, std::optional<model::Pooling> requested) {
  if (requested) return *requested;
  return encoder.file_pooling().value_or(model::Pooling::kMean);
}

void NormalizeL2(float* v, int64_t n) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
  if (sum == 0.0) return;
  const double inv = 1.0 / std::sqrt(sum);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<double>(v[i]) * inv);
}

Expected<std::vector<int32_t>> Embedder::Tokenize(std::string_view text) const {
  std::vector<int32_t> ids = tokenizer_.Encode(text, tokenizer::EncodeOptions{.add_special = true});
  if (ids.empty()) return Error(ErrorCode::kInvalidArgument, "input gives no tokens (the model adds none)");
  if (Status s = CheckIds(ids); !s.ok()) return s;  // the length limit, one message for text and ids
  return ids;
}

Status Embedder::CheckIds(std::span<const int32_t> ids) const {
  if (ids.empty()) return Error(ErrorCode::kInvalidArgument, "a token array is empty");
  if (static_cast<int64_t>(ids.size()) > max_tokens()) {
    return Error(ErrorCode::kInvalidArgument, "input is {} tokens, the model takes at most {}", ids.size(),
                 max_tokens());
  }
  const int64_t n_vocab = encoder_.hparams().n_vocab;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= n_vocab) {
      return Error(ErrorCode::kInvalidArgument, "token {} at index {} is out of range (vocabulary of {})", ids[i], i,
                   n_vocab);
    }
  }
  return Status::Ok();
}

void Embedder::Embed(std::span<const std::vector<int32_t>> sequences, model::Pooling pooling, bool normalize,
                     ThreadPool& pool, float* out) const {
  const int64_t d = dimension();
  size_t begin = 0;
  while (begin < sequences.size()) {
    // The next pass: as many whole sequences as fit in kMaxRowsPerPass (at least one).
    size_t end = begin;
    int64_t rows = 0;
    while (end < sequences.size() &&
           (end == begin || rows + static_cast<int64_t>(sequences[end].size()) <= kMaxRowsPerPass)) {
      rows += static_cast<int64_t>(sequences[end].size());
      ++end;
    }
    encoder_.Embed(sequences.subspan(begin, end - begin), pooling, pool, out + static_cast<int64_t>(begin) * d);
    begin = end;
  }
  if (normalize) {
    for (size_t i = 0; i < sequences.size(); ++i) NormalizeL2(out + static_cast<int64_t>(i) * d, d);
  }
}

}  // namespace trit::runtime
