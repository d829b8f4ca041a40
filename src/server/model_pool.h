// The models `trit serve` answers for, each with its own scheduler. Given
// one MODEL, the pool holds it from start to end. Given a catalog (the model
// store), it loads a model on the first request that names it, on its own
// thread so that no request waits behind another's load, keeps at most
// `max_models` resident within `memory_budget`, and makes room by unloading
// the model used least recently among those no request is using. A request
// holds a lease on its model while it runs, so a model is never unloaded
// under one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"
#include "server/embedding_batcher.h"
#include "server/metrics.h"
#include "server/scheduler.h"
#include "server/served_model.h"

namespace trit::server {

// A model loaded and serving: a text-generation model with its scheduler,
// or an embedding model with its batcher. Both refer to the model, so they
// are declared after it (and destroyed first).
struct ResidentModel {
  std::unique_ptr<ServedModel> model;
  std::unique_ptr<Scheduler> scheduler;          // null for an embedding model
  std::unique_ptr<EmbeddingBatcher> embeddings;  // null for a text-generation model
  // Ends the scheduler or the batcher; their requests end with an error.
  void Stop() const;
};

// `model` made resident: a scheduler for it, or a batcher for an embedding
// model (with the scheduler options' threads and queue). *kv_bytes: the KV
// caches' size (0 for an embedding model).
Expected<std::shared_ptr<ResidentModel>> MakeResident(std::unique_ptr<ServedModel> model,
                                                      const SchedulerOptions& options, Metrics* metrics,
                                                      uint64_t* kv_bytes);

// A hold on a resident model: it stays loaded while any lease exists.
using ModelLease = std::shared_ptr<const ResidentModel>;

// One model the pool can serve.
struct ModelSource {
  std::string name;  // what requests send in "model"
  std::string path;  // its GGUF file
};

struct ModelPoolOptions {
  SchedulerOptions scheduler;
  std::string engine;           // --engine for every model; empty: the registry chooses
  int32_t max_models = 1;       // resident at once
  uint64_t memory_budget = 0;   // bytes of resident models (files + KV caches); 0: no limit
  // (alias, model name): other names a model answers to (--alias).
  std::vector<std::pair<std::string, std::string>> aliases;
};

// A load that requests wait on. Ready once the model is resident (then it
// holds a lease for its waiters, so the model cannot be unloaded before they
// have taken theirs) or its load failed.
class ModelLoad {
 public:
  // `wake` is called once the load is over (at once if it is); from any thread.
  void OnReady(std::function<void()> wake);
  // nullopt while loading; then the lease or why the load failed.
  std::optional<Expected<ModelLease>> Poll() const;

 private:
  friend class ModelPool;
  void Finish(Expected<ModelLease> result);

  mutable std::mutex mutex_;
  std::optional<Expected<ModelLease>> result_;
  std::vector<std::function<void()>> wakers_;
};

// What /v1/models lists: one model, its aliases, and whether it is loaded.
struct PoolListing {
  std::string id;
  std::vector<std::string> aliases;
  bool loaded = false;
};

class ModelPool {
 public:
  // `metrics` (not null; the schedulers count into it too) must outlive the pool.
  // Serves `model` alone, resident from the start and never unloaded
  // (`trit serve MODEL`); the options' aliases all name it.
  static Expected<std::unique_ptr<ModelPool>> ForModel(std::unique_ptr<ServedModel> model, ModelPoolOptions options,
                                                       Metrics* metrics);
  // Serves what `catalog` returns, none of it loaded yet. The catalog is
  // read again when a request names a model it does not know and when the
  // models are listed, so models pulled while the server runs are served.
  // `default_name`: the model of requests that name none, until one does.
  static std::unique_ptr<ModelPool> ForCatalog(std::function<std::vector<ModelSource>()> catalog,
                                               std::string default_name, ModelPoolOptions options, Metrics* metrics);
  ~ModelPool();
  ModelPool(const ModelPool&) = delete;
  ModelPool& operator=(const ModelPool&) = delete;

  // The model `name` (an id or an alias; empty: the one used last) as a
  // lease when it is resident, else its load (started now, or the one under
  // way); neither when no model has that name.
  struct Acquired {
    ModelLease lease;
    std::shared_ptr<ModelLoad> load;
    std::string id;  // the model's id (`name` may be an alias or empty)
  };
  Acquired Acquire(std::string_view name);

  // Whether a request may name `name` (an id or an alias).
  bool Knows(std::string_view name);
  // Every model, by id, with aliases and whether it is loaded.
  std::vector<PoolListing> List();
  // The ids and aliases a request may send, for errors.
  std::vector<std::string> names();

  // The schedulers' gauges, summed over the resident models.
  Gauges gauges() const;
  bool running() const;
  // Ends loading and every scheduler; queued and running requests end with an error.
  void Stop();

 private:
  struct Entry {
    ModelSource source;
    std::vector<std::string> aliases;
    std::shared_ptr<ResidentModel> resident;  // null while not loaded
    uint64_t bytes = 0;                       // resident: file + KV caches
    int64_t leases = 0;
    uint64_t last_used = 0;                   // a tick of use_clock_
    std::shared_ptr<ModelLoad> load;          // a load queued or running
    bool pinned = false;                      // never unloaded (ForModel)
  };

  ModelPool(ModelPoolOptions options, Metrics* metrics);
  // With mutex_ held: the entry of an id or alias; nullptr when unknown.
  Entry* FindLocked(std::string_view name);
  // With mutex_ held: merges the catalog's models in (models gone from it
  // are dropped unless loaded).
  void RescanLocked();
  // With mutex_ held: a lease on a resident entry. A lease that counts as a
  // use makes the model the most recently used when taken and when ended.
  ModelLease LeaseLocked(Entry& entry, bool counts_as_use = true);
  void Release(Entry* entry, bool counts_as_use);
  void LoaderLoop();
  // With mutex_ held: unloads the idle model used least recently (other
  // than `keep`) into `unloaded`; false when every resident model is in use.
  bool EvictOneLocked(const Entry* keep, std::vector<std::shared_ptr<ResidentModel>>* unloaded);
  uint64_t ResidentBytesLocked() const;
  int32_t ResidentCountLocked() const;
  // `file_bytes`: the file's size, read before; *bytes: it plus the KV caches.
  Expected<std::shared_ptr<ResidentModel>> Load(const ModelSource& source, const std::vector<std::string>& aliases,
                                               uint64_t file_bytes, uint64_t* bytes);

  ModelPoolOptions options_;
  Metrics* metrics_;
  std::function<std::vector<ModelSource>()> catalog_;  // empty for ForModel

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a lease ended, a load was queued, or Stop
  std::map<std::string, Entry, std::less<>> entries_;  // by id; addresses stay put
  std::vector<std::string> load_queue_;                // ids, in the order asked
  std::string default_name_;
  uint64_t use_clock_ = 0;
  bool stop_ = false;
  std::thread loader_;
};

// The size in bytes of `--memory-budget`: a number with an optional K, M, G
// or T suffix (powers of 1024, an optional trailing "B" or "iB"); 0: none.
Expected<uint64_t> ParseMemorySize(std::string_view text);

}  // namespace trit::server
