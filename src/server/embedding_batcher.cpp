#include "server/embedding_batcher.h"

#include <utility>

namespace trit::server {

void EmbeddingJob::OnReady(std::function<void()> wake) {
  {
    std::lock_guard lock(mutex_);
    if (!ready_) {
      wakers_.push_back(std::move(wake));
      return;
    }
  }
  wake();
}

bool EmbeddingJob::ready() const {
  std::lock_guard lock(mutex_);
  return ready_;
}

void EmbeddingJob::Finish(std::vector<float> vectors, bool stopped) {
  std::vector<std::function<void()>> wakers;
  {
    std::lock_guard lock(mutex_);
    vectors_ = std::move(vectors);
    stopped_ = stopped;
    ready_ = true;
    wakers.swap(wakers_);
  }
  for (const auto& wake : wakers) wake();
}

EmbeddingBatcher::EmbeddingBatcher(const runtime::Embedder& embedder, model::Pooling pooling,
                                   EmbeddingBatcherOptions options, Metrics* metrics)
    : embedder_(embedder), pooling_(pooling), options_(options), metrics_(metrics), pool_(options.n_threads) {
  thread_ = std::thread([this] { Loop(); });
}

EmbeddingBatcher::~EmbeddingBatcher() { Stop(); }

std::shared_ptr<EmbeddingJob> EmbeddingBatcher::Submit(std::vector<std::vector<int32_t>> inputs, bool normalize) {
  auto job = std::make_shared<EmbeddingJob>(std::move(inputs), normalize);
  {
    std::lock_guard lock(mutex_);
    if (stop_ || static_cast<int32_t>(queue_.size()) >= options_.max_queue) return nullptr;
    queue_.push_back(job);
  }
  queued_.notify_one();
  return job;
}

void EmbeddingBatcher::Stop() {
  std::deque<std::shared_ptr<EmbeddingJob>> left;
  {
    std::lock_guard lock(mutex_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
    left.swap(queue_);
  }
  queued_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (const auto& job : left) job->Finish({}, true);
}

int64_t EmbeddingBatcher::inputs_done() const {
  std::lock_guard lock(mutex_);
  return inputs_done_;
}

int64_t EmbeddingBatcher::passes_done() const {
  std::lock_guard lock(mutex_);
  return passes_done_;
}

void EmbeddingBatcher::Loop() {
  const int64_t d = embedder_.dimension();
  for (;;) {
    std::vector<std::shared_ptr<EmbeddingJob>> jobs;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      // The jobs waiting now, in arrival order, as one pass of at most
      // runtime::kMaxRowsPerPass tokens (a larger job alone): a pass's
      // memory stays bounded and a request waits for at most that much
      // work ahead of it.
      int64_t rows = 0;
      while (!queue_.empty()) {
        int64_t job_rows = 0;
        for (const std::vector<int32_t>& ids : queue_.front()->inputs()) job_rows += static_cast<int64_t>(ids.size());
        if (!jobs.empty() && rows + job_rows > runtime::kMaxRowsPerPass) break;
        rows += job_rows;
        jobs.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    std::vector<std::vector<int32_t>> all;
    int64_t n_tokens = 0;
    for (const auto& job : jobs) {
      for (const std::vector<int32_t>& ids : job->inputs()) {
        all.push_back(ids);
        n_tokens += static_cast<int64_t>(ids.size());
      }
    }
    std::vector<float> out(all.size() * static_cast<size_t>(d));
    embedder_.Embed(all, pooling_, /*normalize=*/false, pool_, out.data());
    pool_.Release();
    size_t row = 0;
    for (const auto& job : jobs) {
      const size_t n = job->inputs().size();
      std::vector<float> vectors(out.begin() + static_cast<int64_t>(row) * d,
                                 out.begin() + static_cast<int64_t>(row + n) * d);
      if (job->normalize_) {
        for (size_t i = 0; i < n; ++i) runtime::NormalizeL2(vectors.data() + static_cast<int64_t>(i) * d, d);
      }
      row += n;
      job->Finish(std::move(vectors), false);
    }
    if (metrics_ != nullptr) metrics_->AddTokens(n_tokens, 0);
    std::lock_guard lock(mutex_);
    inputs_done_ += static_cast<int64_t>(all.size());
    ++passes_done_;
  }
}

}  // namespace trit::server
