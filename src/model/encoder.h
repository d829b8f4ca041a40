// The interface of embedding models (encoders such as BERT): token ids of
// one or more texts in, one pooled vector per text out. Text generation
// models are model.h's Model; an architecture provides one or the other.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "model/hparams.h"
#include "model/model.h"

namespace trit::model {

// How a text's token vectors become its one vector. The values are
// llama.cpp's LLAMA_POOLING_TYPE_*, as `{arch}.pooling_type` stores them.
enum class Pooling : uint32_t {
  kMean = 1,  // the average of every token's vector
  kCls = 2,   // the first token's ([CLS])
  kLast = 3,  // the last token's
};

std::string_view PoolingName(Pooling pooling);  // "mean", "cls", "last"
std::optional<Pooling> ParsePooling(std::string_view name);

class Encoder {
 public:
  virtual ~Encoder() = default;
  // n_embd is the vector's length; n_ctx_train the most tokens a text may have.
  virtual const HParams& hparams() const = 0;
  // The pooling the file states ({arch}.pooling_type), nullopt when it states none.
  virtual std::optional<Pooling> file_pooling() const = 0;

  // Runs every sequence in one batched forward pass and writes sequence i's
  // pooled vector (n_embd floats, not normalized) to out + i * n_embd. A
  // sequence's vector is bit-identical whatever other sequences are in the
  // batch and whatever pool.n_threads() (docs/DESIGN.md contract 2).
  // Preconditions (checked): every sequence has 1..n_ctx_train ids < n_vocab.
  virtual void Embed(std::span<const std::vector<int32_t>> sequences, Pooling pooling, ThreadPool& pool,
                     float* out) const = 0;
};

// Opens `path` and loads it as an embedding model. A file whose
// architecture generates text instead is refused by name (kUnsupported).
Expected<std::unique_ptr<Encoder>> LoadEncoder(const std::string& path, const LoadOptions& options = {});

}  // namespace trit::model
