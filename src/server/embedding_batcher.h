// trit serve's embeddings: every request's inputs, and those of requests
// that arrive while a pass runs, are computed in one batched forward pass
// on the batcher's thread (up to runtime::kMaxRowsPerPass tokens a pass). Each input's vector is the same bits whatever
// else is in the pass (runtime/embedder.h), so batching changes no answer.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "runtime/embedder.h"
#include "server/metrics.h"

namespace trit::server {

// One request's inputs and, once computed, their vectors.
class EmbeddingJob {
 public:
  EmbeddingJob(std::vector<std::vector<int32_t>> inputs, bool normalize)
      : inputs_(std::move(inputs)), normalize_(normalize) {}

  const std::vector<std::vector<int32_t>>& inputs() const { return inputs_; }
  // `wake` is called once the vectors are ready (at once if they are); from any thread.
  void OnReady(std::function<void()> wake);
  bool ready() const;
  // (inputs().size(), dimension) row-major; valid once ready() (empty if the batcher stopped first).
  const std::vector<float>& vectors() const { return vectors_; }
  bool stopped() const { return stopped_; }

 private:
  friend class EmbeddingBatcher;
  void Finish(std::vector<float> vectors, bool stopped);

  std::vector<std::vector<int32_t>> inputs_;
  bool normalize_;
  mutable std::mutex mutex_;
  bool ready_ = false;
  bool stopped_ = false;
  std::vector<float> vectors_;
  std::vector<std::function<void()>> wakers_;
};

struct EmbeddingBatcherOptions {
  int n_threads = 1;         // compute threads of the forward pass
  int32_t max_queue = 16;    // requests waiting for the next pass; more are refused (429)
};

class EmbeddingBatcher {
 public:
  // `embedder` must outlive the batcher; `metrics` may be null.
  EmbeddingBatcher(const runtime::Embedder& embedder, model::Pooling pooling, EmbeddingBatcherOptions options,
                   Metrics* metrics);
  ~EmbeddingBatcher();  // Stop()
  EmbeddingBatcher(const EmbeddingBatcher&) = delete;
  EmbeddingBatcher& operator=(const EmbeddingBatcher&) = delete;

  // Queues a job; nullptr when the queue is full or the batcher stopped.
  // The inputs must have passed Embedder::CheckIds.
  std::shared_ptr<EmbeddingJob> Submit(std::vector<std::vector<int32_t>> inputs, bool normalize);
  // Jobs not yet computed finish as stopped; the thread ends.
  void Stop();

  model::Pooling pooling() const { return pooling_; }
  // Inputs in the passes so far and the passes (for tests: batching happened).
  int64_t inputs_done() const;
  int64_t passes_done() const;

 private:
  void Loop();

  const runtime::Embedder& embedder_;
  model::Pooling pooling_;
  EmbeddingBatcherOptions options_;
  Metrics* metrics_;
  ThreadPool pool_;

  mutable std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::shared_ptr<EmbeddingJob>> queue_;
  bool stop_ = false;
  int64_t inputs_done_ = 0;
  int64_t passes_done_ = 0;
  std::thread thread_;
};

}  // namespace trit::server
