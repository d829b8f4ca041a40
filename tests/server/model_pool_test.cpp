#include "server/model_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

namespace trit::server {
namespace {

namespace fs = std::filesystem;

const std::string kModel = std::string(TRIT_SOURCE_DIR) + "/models/stories260K.gguf";

ModelPoolOptions SmallOptions(int32_t max_models, uint64_t budget = 0) {
  ModelPoolOptions o;
  o.scheduler.n_slots = 1;
  o.scheduler.n_ctx = 64;
  o.scheduler.n_threads = 1;
  o.max_models = max_models;
  o.memory_budget = budget;
  return o;
}

// Three names for the bundled model's file: each loads as a model of its own.
std::vector<ModelSource> ThreeModels() { return {{"a", kModel}, {"b", kModel}, {"c", kModel}}; }

// The schedulers count into it (they need one).
Metrics* TestMetrics() {
  static Metrics metrics;
  return &metrics;
}

std::unique_ptr<ModelPool> Catalog(std::vector<ModelSource> sources, ModelPoolOptions options,
                                   std::string default_name = "a") {
  return ModelPool::ForCatalog([sources] { return sources; }, std::move(default_name), std::move(options),
                               TestMetrics());
}

// Waits (up to a minute) for a load to be over.
Expected<ModelLease> Wait(const std::shared_ptr<ModelLoad>& load) {
  std::mutex m;
  std::condition_variable cv;
  bool woken = false;
  load->OnReady([&] {
    std::lock_guard<std::mutex> lock(m);
    woken = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(m);
  cv.wait_for(lock, std::chrono::seconds(60), [&] { return woken; });
  std::optional<Expected<ModelLease>> result = load->Poll();
  if (!result.has_value()) return Error(ErrorCode::kIo, "the load did not end within a minute");
  return *result;
}

// The lease of `name`, loading it if it must.
ModelLease Use(ModelPool& pool, std::string_view name) {
  ModelPool::Acquired a = pool.Acquire(name);
  if (a.lease != nullptr) return a.lease;
  EXPECT_NE(a.load, nullptr) << name;
  if (a.load == nullptr) return nullptr;
  Expected<ModelLease> lease = Wait(a.load);
  EXPECT_TRUE(lease.ok()) << lease.status().message();
  return lease.ok() ? *lease : nullptr;
}

std::vector<std::string> Loaded(ModelPool& pool) {
  std::vector<std::string> out;
  for (const PoolListing& m : pool.List()) {
    if (m.loaded) out.push_back(m.id);
  }
  return out;
}

TEST(ModelPoolTest, LoadsOnFirstRequestAndServesFromMemoryAfter) {
  auto pool = Catalog(ThreeModels(), SmallOptions(2));
  EXPECT_TRUE(Loaded(*pool).empty());
  ModelPool::Acquired first = pool->Acquire("b");
  ASSERT_EQ(first.lease, nullptr);
  ASSERT_NE(first.load, nullptr);
  Expected<ModelLease> lease = Wait(first.load);
  ASSERT_TRUE(lease.ok()) << lease.status().message();
  EXPECT_EQ((*lease)->model->id, "b");
  EXPECT_TRUE((*lease)->scheduler->running());
  EXPECT_EQ(Loaded(*pool), std::vector<std::string>{"b"});
  ModelPool::Acquired again = pool->Acquire("b");
  EXPECT_NE(again.lease, nullptr);
  EXPECT_EQ(again.load, nullptr);
  EXPECT_EQ(again.lease.get(), lease->get());
  const Gauges g = pool->gauges();
  EXPECT_EQ(g.models_loaded, 1);
  EXPECT_EQ(g.n_slots, 1);
  EXPECT_GT(g.model_bytes, fs::file_size(kModel));  // the file and the KV cache
}

TEST(ModelPoolTest, UnknownNamesGetNeitherLeaseNorLoad) {
  auto pool = Catalog(ThreeModels(), SmallOptions(2));
  ModelPool::Acquired a = pool->Acquire("nope");
  EXPECT_EQ(a.lease, nullptr);
  EXPECT_EQ(a.load, nullptr);
  EXPECT_FALSE(pool->Knows("nope"));
  EXPECT_TRUE(pool->Knows("c"));
  EXPECT_EQ(pool->names(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ModelPoolTest, UnloadsTheLeastRecentlyUsedIdleModel) {
  auto pool = Catalog(ThreeModels(), SmallOptions(2));
  Use(*pool, "a");
  Use(*pool, "b");
  Use(*pool, "a");  // now b is the one used least recently
  Use(*pool, "c");
  EXPECT_EQ(Loaded(*pool), (std::vector<std::string>{"a", "c"}));
  Use(*pool, "b");
  EXPECT_EQ(Loaded(*pool), (std::vector<std::string>{"b", "c"}));
}

TEST(ModelPoolTest, NeverUnloadsAModelARequestHolds) {
  auto pool = Catalog(ThreeModels(), SmallOptions(2));
  ModelLease a = Use(*pool, "a");  // held throughout: the oldest, but in use
  Use(*pool, "b");
  Use(*pool, "c");
  EXPECT_EQ(Loaded(*pool), (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(a->scheduler->running());
}

TEST(ModelPoolTest, ALoadWaitsWhileEveryResidentModelIsInUse) {
  auto pool = Catalog(ThreeModels(), SmallOptions(1));
  ModelLease a = Use(*pool, "a");
  ModelPool::Acquired b = pool->Acquire("b");
  ASSERT_NE(b.load, nullptr);
  // The loader looks again at least once a second; give it two looks.
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  EXPECT_FALSE(b.load->Poll().has_value());
  EXPECT_EQ(Loaded(*pool), std::vector<std::string>{"a"});
  a.reset();  // the request on a ends: b may take its place
  Expected<ModelLease> lease = Wait(b.load);
  ASSERT_TRUE(lease.ok()) << lease.status().message();
  EXPECT_EQ(Loaded(*pool), std::vector<std::string>{"b"});
}

TEST(ModelPoolTest, KeepsTheResidentModelsWithinTheMemoryBudget) {
  // Room for one model's file and KV cache, not two, whatever --max-models says.
  const uint64_t budget = fs::file_size(kModel) * 3 / 2;
  auto pool = Catalog(ThreeModels(), SmallOptions(3, budget));
  Use(*pool, "a");
  Use(*pool, "b");
  EXPECT_EQ(Loaded(*pool), std::vector<std::string>{"b"});
  EXPECT_LE(pool->gauges().model_bytes, budget);
}

TEST(ModelPoolTest, AModelLargerThanTheBudgetIsRefusedByName) {
  auto pool = Catalog(ThreeModels(), SmallOptions(3, 1024));
  ModelPool::Acquired a = pool->Acquire("a");
  ASSERT_NE(a.load, nullptr);
  Expected<ModelLease> lease = Wait(a.load);
  ASSERT_FALSE(lease.ok());
  EXPECT_NE(lease.status().message().find("--memory-budget"), std::string::npos) << lease.status().message();
  EXPECT_NE(lease.status().message().find("'a'"), std::string::npos) << lease.status().message();
  EXPECT_TRUE(Loaded(*pool).empty());
}

TEST(ModelPoolTest, AFileThatDoesNotLoadFailsItsRequestsNotThePool) {
  const fs::path bad = fs::temp_directory_path() / ("trit-pool-bad-" + std::to_string(::getpid()) + ".gguf");
  std::ofstream(bad) << "not a gguf file";
  auto pool = Catalog({{"bad", bad.string()}, {"good", kModel}}, SmallOptions(2), "good");
  ModelPool::Acquired a = pool->Acquire("bad");
  ASSERT_NE(a.load, nullptr);
  Expected<ModelLease> lease = Wait(a.load);
  ASSERT_FALSE(lease.ok());
  EXPECT_NE(lease.status().message().find(bad.string()), std::string::npos) << lease.status().message();
  EXPECT_NE(Use(*pool, "good"), nullptr);
  // A later request tries again (the file may have been mended).
  ModelPool::Acquired again = pool->Acquire("bad");
  EXPECT_NE(again.load, nullptr);
  EXPECT_NE(again.load, a.load);
  EXPECT_FALSE(Wait(again.load).ok());
  fs::remove(bad);
}

TEST(ModelPoolTest, AliasesNameTheirModel) {
  ModelPoolOptions o = SmallOptions(2);
  o.aliases = {{"gpt-4o-mini", "b"}};
  auto pool = Catalog(ThreeModels(), o);
  EXPECT_TRUE(pool->Knows("gpt-4o-mini"));
  ModelLease lease = Use(*pool, "gpt-4o-mini");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->model->id, "b");
  EXPECT_TRUE(lease->model->Answers("gpt-4o-mini"));
  EXPECT_EQ(pool->names(), (std::vector<std::string>{"a", "b", "gpt-4o-mini", "c"}));
}

TEST(ModelPoolTest, ARequestWithoutAModelGoesToTheOneUsedLast) {
  auto pool = Catalog(ThreeModels(), SmallOptions(2), "c");
  EXPECT_EQ(Use(*pool, "")->model->id, "c");
  Use(*pool, "a");
  EXPECT_EQ(Use(*pool, "")->model->id, "a");
}

TEST(ModelPoolTest, ModelsAddedToTheCatalogAreServedWithoutARestart) {
  auto sources = std::make_shared<std::vector<ModelSource>>(std::vector<ModelSource>{{"a", kModel}});
  auto pool = ModelPool::ForCatalog([sources] { return *sources; }, "a", SmallOptions(2), TestMetrics());
  EXPECT_FALSE(pool->Knows("new"));
  sources->push_back({"new", kModel});  // as if `trit pull` added it
  EXPECT_NE(Use(*pool, "new"), nullptr);
  sources->pop_back();
  EXPECT_TRUE(pool->Knows("new"));  // gone from the store, still served while loaded
}

TEST(ModelPoolTest, StoppingEndsLoadsThatWait) {
  auto pool = Catalog(ThreeModels(), SmallOptions(1));
  ModelLease a = Use(*pool, "a");
  ModelPool::Acquired b = pool->Acquire("b");
  ASSERT_NE(b.load, nullptr);
  std::thread stopper([&] { pool->Stop(); });
  Expected<ModelLease> lease = Wait(b.load);
  stopper.join();
  EXPECT_FALSE(lease.ok());
  EXPECT_FALSE(pool->running());
  a.reset();
}

TEST(ModelPoolTest, OneModelIsServedAloneAndNeverUnloaded) {
  Expected<std::unique_ptr<ServedModel>> model = LoadServedModel(kModel);
  ASSERT_TRUE(model.ok()) << model.status().message();
  ModelPoolOptions o = SmallOptions(1);
  o.aliases = {{"gpt-4o-mini", ""}};
  Expected<std::unique_ptr<ModelPool>> pool = ModelPool::ForModel(std::move(model).value(), o, TestMetrics());
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  EXPECT_EQ(Loaded(**pool), std::vector<std::string>{"stories260K"});
  EXPECT_NE((*pool)->Acquire("").lease, nullptr);
  EXPECT_NE((*pool)->Acquire("gpt-4o-mini").lease, nullptr);
  EXPECT_EQ((*pool)->Acquire("other").load, nullptr);
}

TEST(ParseMemorySizeTest, ReadsBytesAndBinaryUnits) {
  EXPECT_EQ(*ParseMemorySize("0"), 0u);
  EXPECT_EQ(*ParseMemorySize("1500"), 1500u);
  EXPECT_EQ(*ParseMemorySize("8G"), uint64_t{8} << 30);
  EXPECT_EQ(*ParseMemorySize("512MiB"), uint64_t{512} << 20);
  EXPECT_EQ(*ParseMemorySize("2tb"), uint64_t{2} << 40);
  EXPECT_EQ(*ParseMemorySize("64k"), uint64_t{64} << 10);
  for (const char* bad : {"", "G", "-1", "1.5G", "8X", "99999999999999999999", "20000000000T"}) {
    EXPECT_FALSE(ParseMemorySize(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace trit::server
