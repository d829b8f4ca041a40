// The model interface the runtime drives: hyper-parameters and one forward
// pass over a batch of tokens of one or more sequences.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/status.h"
#include "base/thread_pool.h"
#include "kernels/attention.h"
#include "kernels/kernel_set.h"
#include "model/hparams.h"

namespace trit::model {

// Rows of one forward pass. Row i is token tokens[i] at position positions[i]
// of sequence seqs[i]. Rows of one sequence must be consecutive positions in
// increasing order, continuing what its cache already holds.
struct ForwardBatch {
  std::span<const int32_t> tokens;      // (n_rows) ids < n_vocab
  std::span<const int32_t> positions;   // (n_rows)
  std::span<const int32_t> seqs;        // (n_rows)
  std::span<const int32_t> logit_rows;  // rows whose logits are returned, in this order
};

// Where a forward pass keeps keys and values: one view per (sequence, layer),
// holding at least position + 1 rows for every position the batch uses.
// Recurrent architectures (qwen35) also keep HParams::recurrent_floats floats
// of state per (sequence, layer): the state after the sequence's last cached
// token, which the forward pass reads and advances row by row.
class KvProvider {
 public:
  virtual ~KvProvider() = default;
  virtual kernels::KvView View(int32_t seq, int64_t layer) = 0;
  // The recurrent state of (seq, layer); empty when the provider keeps none.
  virtual std::span<float> RecurrentState(int32_t /*seq*/, int64_t /*layer*/) { return {}; }
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const HParams& hparams() const = 0;

  // Runs `batch`, writes its keys and values into `kv`, and fills
  // logits (batch.logit_rows.size(), n_vocab). A row's logits are
  // bit-identical whatever else is in the batch and whatever pool.n_threads()
  // (docs/DESIGN.md contract 2). Preconditions (checked): valid ids and rows.
  virtual void Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const = 0;
};

// How a model is loaded: which kernels its forward pass runs.
struct LoadOptions {
  kernels::KernelSet kernels = kernels::KernelSet::kOptimized;
  // The memory the load may fill with copies (model/moe.h's RepackExperts);
  // nullopt: /proc/meminfo's MemAvailable at load. Set by tests.
  std::optional<uint64_t> available_memory = std::nullopt;
};

// Opens `path`, finds its architecture (general.architecture) in the
// registry and binds its weights. Errors name the file and the architecture,
// tensor or key that is wrong.
Expected<std::unique_ptr<Model>> LoadModel(const std::string& path, const LoadOptions& options = {});

}  // namespace trit::model
