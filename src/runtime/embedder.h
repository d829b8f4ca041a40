// Texts to vectors with an embedding model (model/encoder.h): tokenizing
// as the model takes it, checking lengths, choosing the pooling, batching
// and L2 normalization. `trit embed`, trit serve's /v1/embeddings and the
// C API share it.
//
// Inputs run in passes of at most kMaxRowsPerPass tokens; every text's
// vector is the same bits alone, in any batch or pass and with any thread
// count (the encoder's contract; normalization is per vector).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "model/encoder.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {

// Tokens one forward pass holds at most (bounds its memory: MiniLM's
// activations for 8192 rows are about 75 MiB).
inline constexpr int64_t kMaxRowsPerPass = 8192;

// The pooling used: `requested` when set, else the file's, else mean.
model::Pooling ResolvePooling(const model::Encoder& encoder, std::optional<model::Pooling> requested);

// v (n) := v / |v| (the norm summed in double in index order); a zero
// vector stays zero.
void NormalizeL2(float* v, int64_t n);

class Embedder {
 public:
  // Both must outlive the embedder.
  Embedder(const model::Encoder& encoder, const tokenizer::Tokenizer& tokenizer)
      : encoder_(encoder), tokenizer_(tokenizer) {}

  int64_t dimension() const { return encoder_.hparams().n_embd; }
  int64_t max_tokens() const { return encoder_.hparams().n_ctx_train; }

  // The ids of `text` as the model takes it (with its special tokens, e.g.
  // [CLS] ... [SEP]). An input longer than the model's context is an error
  // naming both counts (kInvalidArgument); nothing is cut silently.
  Expected<std::vector<int32_t>> Tokenize(std::string_view text) const;
  // Checks ids given directly: 1..max_tokens() of them, each < n_vocab.
  Status CheckIds(std::span<const int32_t> ids) const;

  // out (sequences.size(), dimension()) = each sequence's vector, L2
  // normalized when `normalize`. Sequences must have passed CheckIds.
  void Embed(std::span<const std::vector<int32_t>> sequences, model::Pooling pooling, bool normalize,
             ThreadPool& pool, float* out) const;

 private:
  const model::Encoder& encoder_;
  const tokenizer::Tokenizer& tokenizer_;
};

}  // namespace trit::runtime
