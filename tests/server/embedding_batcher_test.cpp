// The embedding batcher over a small random BERT with a real WordPiece
// vocabulary (tests/model/random_bert.h): requests from many threads at
// once get the bits of their inputs computed alone, several requests share
// passes, a full queue refuses, and Stop ends what is queued. A served
// embedding model loads through LoadServedModel and MakeResident.
#include "server/embedding_batcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <random>
#include <thread>

#include "model/random_bert.h"
#include "server/model_pool.h"
#include "server/served_model.h"

namespace trit::server {
namespace {

class EmbeddingBatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "batcher_bert_" + std::to_string(getpid()) + ".gguf";
    testing::RandomBertSpec spec;
    spec.vocab_gguf = std::string(TRIT_SOURCE_DIR) + "/tests/data/vocab/ggml-vocab-bert-bge.gguf";
    ASSERT_TRUE(testing::WriteRandomBert(spec, path_).ok());
    Expected<std::unique_ptr<ServedModel>> m = LoadServedModel(path_);
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(*m);
    ASSERT_TRUE(model_->embeds());
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // Waits for the job and returns its vectors.
  static std::vector<float> Wait(const std::shared_ptr<EmbeddingJob>& job) {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    job->OnReady([&] {
      std::lock_guard lock(m);
      done = true;
      cv.notify_all();
    });
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
    return job->vectors();
  }

  std::string path_;
  std::unique_ptr<ServedModel> model_;
};

TEST_F(EmbeddingBatcherTest, ConcurrentRequestsGetTheBitsOfTheirInputsAlone) {
  const runtime::Embedder& e = *model_->embedder;
  std::vector<std::vector<int32_t>> texts;
  for (const char* t : {"hello world", "a", "", "the quick brown fox jumps over the lazy dog again and again",
                        "embeddings for search"}) {
    Expected<std::vector<int32_t>> ids = e.Tokenize(t);
    ASSERT_TRUE(ids.ok());
    texts.push_back(*ids);
  }
  const int64_t d = e.dimension();
  std::vector<std::vector<float>> alone;
  {
    ThreadPool pool(1);
    for (const auto& t : texts) {
      std::vector<float> v(static_cast<size_t>(d));
      e.Embed(std::vector<std::vector<int32_t>>{t}, model::Pooling::kMean, true, pool, v.data());
      alone.push_back(v);
    }
  }
  EmbeddingBatcher batcher(e, model::Pooling::kMean, {.n_threads = 2, .max_queue = 64}, nullptr);
  constexpr int kClients = 8, kRequests = 6;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937 rng(static_cast<uint32_t>(c));
      for (int r = 0; r < kRequests; ++r) {
        std::vector<size_t> pick(1 + rng() % 4);
        std::vector<std::vector<int32_t>> inputs;
        for (size_t& p : pick) {
          p = rng() % texts.size();
          inputs.push_back(texts[p]);
        }
        std::shared_ptr<EmbeddingJob> job = batcher.Submit(inputs, true);
        if (job == nullptr) {
          ++mismatches;
          continue;
        }
        const std::vector<float> got = Wait(job);
        for (size_t i = 0; i < pick.size(); ++i) {
          if (std::memcmp(&got[i * static_cast<size_t>(d)], alone[pick[i]].data(), static_cast<size_t>(d) * 4) != 0) {
            ++mismatches;
          }
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GT(batcher.inputs_done(), 0);
  EXPECT_LE(batcher.passes_done(), kClients * kRequests);
}

TEST_F(EmbeddingBatcherTest, UnnormalizedJobsKeepThePooledVectors) {
  const runtime::Embedder& e = *model_->embedder;
  EmbeddingBatcher batcher(e, model::Pooling::kCls, {.n_threads = 1, .max_queue = 4}, nullptr);
  const std::vector<int32_t> ids = *e.Tokenize("hello");
  const std::vector<float> raw = Wait(batcher.Submit({ids}, false));
  const std::vector<float> unit = Wait(batcher.Submit({ids}, true));
  double norm = 0, norm_raw = 0;
  for (float v : unit) norm += double{v} * v;
  for (float v : raw) norm_raw += double{v} * v;
  EXPECT_NEAR(norm, 1.0, 1e-5);
  EXPECT_GT(std::fabs(norm_raw - 1.0), 1e-3);  // LayerNorm'd CLS rows are far from unit length
}

TEST_F(EmbeddingBatcherTest, StopEndsQueuedJobsAndRefusesNewOnes) {
  const runtime::Embedder& e = *model_->embedder;
  EmbeddingBatcher batcher(e, model::Pooling::kMean, {.n_threads = 1, .max_queue = 1000}, nullptr);
  std::vector<std::shared_ptr<EmbeddingJob>> jobs;
  // Jobs of ~1400 tokens, at most 5 a pass: Stop comes long before 200 are done.
  const std::vector<int32_t> ids = *e.Tokenize("a longer text to keep the batcher busy for a while");
  for (int i = 0; i < 200; ++i) jobs.push_back(batcher.Submit(std::vector<std::vector<int32_t>>(100, ids), true));
  batcher.Stop();
  int stopped = 0;
  for (const auto& job : jobs) {
    ASSERT_TRUE(job->ready());
    stopped += job->stopped();
    EXPECT_EQ(job->stopped(), job->vectors().empty());
  }
  EXPECT_GT(stopped, 0);
  EXPECT_EQ(batcher.Submit({ids}, true), nullptr);
}

TEST_F(EmbeddingBatcherTest, AFullQueueRefuses) {
  const runtime::Embedder& e = *model_->embedder;
  EmbeddingBatcher batcher(e, model::Pooling::kMean, {.n_threads = 1, .max_queue = 2}, nullptr);
  const std::vector<int32_t> ids = *e.Tokenize("text");
  int refused = 0;
  for (int i = 0; i < 50; ++i) refused += batcher.Submit(std::vector<std::vector<int32_t>>(8, ids), true) == nullptr;
  EXPECT_GT(refused, 0);
}

TEST_F(EmbeddingBatcherTest, AServedEmbeddingModelIsResidentWithABatcher) {
  uint64_t kv_bytes = 1;
  Expected<std::shared_ptr<ResidentModel>> r = MakeResident(std::move(model_), SchedulerOptions{}, nullptr, &kv_bytes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->scheduler, nullptr);
  ASSERT_NE((*r)->embeddings, nullptr);
  EXPECT_EQ(kv_bytes, 0u);
  EXPECT_EQ((*r)->embeddings->pooling(), model::Pooling::kMean);
  (*r)->Stop();
}

}  // namespace
}  // namespace trit::server
