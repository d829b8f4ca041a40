#include "server/model_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <set>

namespace trit::server {

void ModelLoad::OnReady(std::function<void()> wake) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!result_.has_value()) {
      wakers_.push_back(std::move(wake));
      return;
    }
  }
  wake();
}

std::optional<Expected<ModelLease>> ModelLoad::Poll() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

void ModelLoad::Finish(Expected<ModelLease> result) {
  std::vector<std::function<void()>> wakers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(result);
    wakers.swap(wakers_);
  }
  for (auto& wake : wakers) wake();
}

void ResidentModel::Stop() const {
  if (scheduler != nullptr) scheduler->Stop();
  if (embeddings != nullptr) embeddings->Stop();
}

Expected<std::shared_ptr<ResidentModel>> MakeResident(std::unique_ptr<ServedModel> model,
                                                      const SchedulerOptions& options, Metrics* metrics,
                                                      uint64_t* kv_bytes) {
  auto resident = std::make_shared<ResidentModel>();
  *kv_bytes = 0;
  if (model->embeds()) {
    const model::Pooling pooling = runtime::ResolvePooling(*model->encoder, std::nullopt);
    resident->embeddings = std::make_unique<EmbeddingBatcher>(
        *model->embedder, pooling, EmbeddingBatcherOptions{.n_threads = options.n_threads, .max_queue = options.max_queue},
        metrics);
    resident->model = std::move(model);
    return resident;
  }
  Expected<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(*model, options, metrics);
  if (!scheduler.ok()) return scheduler.status();
  *kv_bytes = (*scheduler)->kv_bytes();
  resident->model = std::move(model);
  resident->scheduler = std::move(scheduler).value();
  return resident;
}

ModelPool::ModelPool(ModelPoolOptions options, Metrics* metrics) : options_(std::move(options)), metrics_(metrics) {}

Expected<std::unique_ptr<ModelPool>> ModelPool::ForModel(std::unique_ptr<ServedModel> model, ModelPoolOptions options,
                                                         Metrics* metrics) {
  for (const auto& [alias, target] : options.aliases) {
    if (!model->Answers(alias)) model->aliases.push_back(alias);
  }
  Entry entry;
  entry.source = {model->id, model->path};
  entry.aliases = model->aliases;
  entry.pinned = true;
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(model->path, ec);
  uint64_t kv_bytes = 0;
  Expected<std::shared_ptr<ResidentModel>> resident = MakeResident(std::move(model), options.scheduler, metrics, &kv_bytes);
  if (!resident.ok()) return resident.status();
  std::unique_ptr<ModelPool> pool(new ModelPool(std::move(options), metrics));
  entry.bytes = file_bytes + kv_bytes;
  entry.resident = std::move(resident).value();
  pool->default_name_ = entry.source.name;
  std::string name = entry.source.name;
  pool->entries_.emplace(std::move(name), std::move(entry));
  return pool;
}

std::unique_ptr<ModelPool> ModelPool::ForCatalog(std::function<std::vector<ModelSource>()> catalog,
                                                 std::string default_name, ModelPoolOptions options,
                                                 Metrics* metrics) {
  std::unique_ptr<ModelPool> pool(new ModelPool(std::move(options), metrics));
  pool->catalog_ = std::move(catalog);
  pool->default_name_ = std::move(default_name);
  {
    std::lock_guard<std::mutex> lock(pool->mutex_);
    pool->RescanLocked();
  }
  pool->loader_ = std::thread([p = pool.get()] { p->LoaderLoop(); });
  return pool;
}

ModelPool::~ModelPool() { Stop(); }

void ModelPool::RescanLocked() {
  if (!catalog_) return;
  std::set<std::string, std::less<>> seen;
  for (ModelSource& source : catalog_()) {
    seen.insert(source.name);
    auto it = entries_.find(source.name);
    if (it != entries_.end()) {
      if (it->second.resident == nullptr && it->second.load == nullptr) it->second.source = std::move(source);
      continue;
    }
    Entry entry;
    for (const auto& [alias, target] : options_.aliases) {
      if (target == source.name) entry.aliases.push_back(alias);
    }
    std::string name = source.name;
    entry.source = std::move(source);
    entries_.emplace(std::move(name), std::move(entry));
  }
  // A model gone from the store stays served while it is loaded or loading.
  std::erase_if(entries_, [&](const auto& kv) {
    const Entry& e = kv.second;
    return !seen.contains(kv.first) && e.resident == nullptr && e.load == nullptr && !e.pinned;
  });
}

ModelPool::Entry* ModelPool::FindLocked(std::string_view name) {
  if (auto it = entries_.find(name); it != entries_.end()) return &it->second;
  for (auto& [id, entry] : entries_) {
    if (std::find(entry.aliases.begin(), entry.aliases.end(), name) != entry.aliases.end()) return &entry;
  }
  return nullptr;
}

ModelLease ModelPool::LeaseLocked(Entry& entry, bool counts_as_use) {
  ++entry.leases;
  if (counts_as_use) entry.last_used = ++use_clock_;
  std::shared_ptr<ResidentModel> keep = entry.resident;
  Entry* e = &entry;
  return ModelLease(keep.get(), [this, e, keep, counts_as_use](const ResidentModel*) { Release(e, counts_as_use); });
}

void ModelPool::Release(Entry* entry, bool counts_as_use) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --entry->leases;
    // A request that ran long was using its model until now.
    if (counts_as_use) entry->last_used = ++use_clock_;
  }
  changed_.notify_all();
}

ModelPool::Acquired ModelPool::Acquire(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string_view wanted = name.empty() ? std::string_view(default_name_) : name;
  Entry* entry = FindLocked(wanted);
  if (entry == nullptr && catalog_) {
    RescanLocked();
    entry = FindLocked(wanted);
  }
  if (entry == nullptr) return {};
  default_name_ = entry->source.name;
  if (entry->resident != nullptr) return {LeaseLocked(*entry), nullptr, entry->source.name};
  if (entry->load == nullptr && !stop_) {
    entry->load = std::make_shared<ModelLoad>();
    load_queue_.push_back(entry->source.name);
    changed_.notify_all();
  }
  if (entry->load == nullptr) {  // stopping
    auto refused = std::make_shared<ModelLoad>();
    refused->Finish(Error(ErrorCode::kUnsupported, "the server is stopping"));
    return {nullptr, refused, entry->source.name};
  }
  return {nullptr, entry->load, entry->source.name};
}

bool ModelPool::Knows(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (FindLocked(name) != nullptr) return true;
  RescanLocked();
  return FindLocked(name) != nullptr;
}

std::vector<PoolListing> ModelPool::List() {
  std::lock_guard<std::mutex> lock(mutex_);
  RescanLocked();
  std::vector<PoolListing> out;
  for (const auto& [id, entry] : entries_) out.push_back({id, entry.aliases, entry.resident != nullptr});
  return out;
}

std::vector<std::string> ModelPool::names() {
  std::vector<std::string> out;
  for (const PoolListing& m : List()) {
    out.push_back(m.id);
    out.insert(out.end(), m.aliases.begin(), m.aliases.end());
  }
  return out;
}

Gauges ModelPool::gauges() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Gauges sum;
  for (const auto& [id, entry] : entries_) {
    if (entry.resident == nullptr) continue;
    sum.models_loaded += 1;
    sum.model_bytes += entry.bytes;
    if (entry.resident->scheduler == nullptr) continue;
    const Gauges g = entry.resident->scheduler->gauges();
    sum.queue_depth += g.queue_depth;
    sum.active_slots += g.active_slots;
    sum.n_slots += g.n_slots;
  }
  return sum;
}

bool ModelPool::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stop_) return false;
  for (const auto& [id, entry] : entries_) {
    if (entry.resident != nullptr && entry.resident->scheduler != nullptr && !entry.resident->scheduler->running()) {
      return false;
    }
  }
  return true;
}

void ModelPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (loader_.joinable()) loader_.join();
  std::vector<std::shared_ptr<ResidentModel>> resident;
  std::vector<std::shared_ptr<ModelLoad>> abandoned;  // loads queued behind the stop
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, entry] : entries_) {
      if (entry.resident != nullptr) resident.push_back(entry.resident);
      if (entry.load != nullptr) abandoned.push_back(std::move(entry.load));
      entry.load = nullptr;
    }
    load_queue_.clear();
  }
  for (const auto& load : abandoned) load->Finish(Error(ErrorCode::kUnsupported, "the server is stopping"));
  for (const auto& r : resident) r->Stop();
}

uint64_t ModelPool::ResidentBytesLocked() const {
  uint64_t sum = 0;
  for (const auto& [id, entry] : entries_) {
    if (entry.resident != nullptr) sum += entry.bytes;
  }
  return sum;
}

int32_t ModelPool::ResidentCountLocked() const {
  int32_t n = 0;
  for (const auto& [id, entry] : entries_) n += entry.resident != nullptr ? 1 : 0;
  return n;
}

bool ModelPool::EvictOneLocked(const Entry* keep, std::vector<std::shared_ptr<ResidentModel>>* unloaded) {
  Entry* oldest = nullptr;
  for (auto& [id, entry] : entries_) {
    if (&entry == keep || entry.resident == nullptr || entry.pinned || entry.leases > 0) continue;
    if (oldest == nullptr || entry.last_used < oldest->last_used) oldest = &entry;
  }
  if (oldest == nullptr) return false;
  unloaded->push_back(std::move(oldest->resident));
  oldest->resident = nullptr;
  oldest->bytes = 0;
  metrics_->CountModelUnload();
  return true;
}

Expected<std::shared_ptr<ResidentModel>> ModelPool::Load(const ModelSource& source,
                                                         const std::vector<std::string>& aliases, uint64_t file_bytes,
                                                         uint64_t* bytes) {
  Expected<std::unique_ptr<ServedModel>> model = LoadServedModel(source.path, options_.engine);
  if (!model.ok()) return model.status();
  (*model)->id = source.name;
  (*model)->aliases = aliases;
  uint64_t kv_bytes = 0;
  Expected<std::shared_ptr<ResidentModel>> resident =
      MakeResident(std::move(model).value(), options_.scheduler, metrics_, &kv_bytes);
  if (!resident.ok()) return resident.status().WithContext(source.name);
  *bytes = file_bytes + kv_bytes;
  return resident;
}

void ModelPool::LoaderLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !load_queue_.empty(); });
    if (stop_) break;
    Entry* entry = FindLocked(load_queue_.front());
    load_queue_.erase(load_queue_.begin());
    if (entry == nullptr || entry->load == nullptr) continue;
    const ModelSource source = entry->source;
    const std::vector<std::string> aliases = entry->aliases;
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(source.path, ec);
    std::shared_ptr<ModelLoad> load = entry->load;
    std::optional<Status> refused;
    if (options_.memory_budget != 0 && file_bytes > options_.memory_budget) {
      refused = Error(ErrorCode::kInvalidArgument,
                      "model '{}' needs {} bytes for its file alone, more than --memory-budget {}", source.name,
                      file_bytes, options_.memory_budget);
    }
    // Make room: unload idle models, least recently used first; while every
    // resident model is in use, wait for a request to end.
    std::vector<std::shared_ptr<ResidentModel>> unloaded;
    while (!refused && !stop_) {
      const bool fits = ResidentCountLocked() < options_.max_models &&
                        (options_.memory_budget == 0 || ResidentBytesLocked() + file_bytes <= options_.memory_budget);
      if (fits) break;
      if (EvictOneLocked(entry, &unloaded)) continue;
      if (!unloaded.empty()) {
        lock.unlock();
        unloaded.clear();
        lock.lock();
      }
      changed_.wait_for(lock, std::chrono::seconds(1));
    }
    if (stop_) {
      entry->load = nullptr;
      lock.unlock();
      unloaded.clear();
      load->Finish(Error(ErrorCode::kUnsupported, "the server is stopping"));
      lock.lock();
      break;
    }
    lock.unlock();
    for (const auto& r : unloaded) r->Stop();
    unloaded.clear();  // their memory goes before the next model's comes
    uint64_t bytes = 0;
    const auto started = std::chrono::steady_clock::now();
    Expected<std::shared_ptr<ResidentModel>> loaded =
        refused ? Expected<std::shared_ptr<ResidentModel>>(*refused) : Load(source, aliases, file_bytes, &bytes);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    lock.lock();
    entry = FindLocked(source.name);
    entry->load = nullptr;
    if (!loaded.ok()) {
      if (!refused) metrics_->CountModelLoadFailure();
      lock.unlock();
      load->Finish(loaded.status());
      lock.lock();
      continue;
    }
    metrics_->CountModelLoad(seconds);
    entry->resident = std::move(loaded).value();
    entry->bytes = bytes;
    // Held for the waiters until they take their own; not a use itself (it
    // may end after later requests' uses, which would reorder the LRU).
    ModelLease lease = LeaseLocked(*entry, /*counts_as_use=*/false);
    entry->last_used = ++use_clock_;
    // The KV caches are known only now: unload more if the budget says so.
    while (options_.memory_budget != 0 && ResidentBytesLocked() > options_.memory_budget &&
           EvictOneLocked(entry, &unloaded)) {
    }
    lock.unlock();
    for (const auto& r : unloaded) r->Stop();
    unloaded.clear();
    load->Finish(std::move(lease));
    load.reset();
    lock.lock();
  }
}

Expected<uint64_t> ParseMemorySize(std::string_view text) {
  const std::string given(text);
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) {
    return Error(ErrorCode::kInvalidArgument, "'{}' is not a size: give bytes, or a number with K, M, G or T", given);
  }
  std::string unit(ptr, end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) {
    unit.resize(unit.size() - 2);
  } else if (unit.ends_with("B")) {
    unit.resize(unit.size() - 1);
  }
  int shift = 0;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "K") {
    shift = 10;
  } else if (unit == "M") {
    shift = 20;
  } else if (unit == "G") {
    shift = 30;
  } else if (unit == "T") {
    shift = 40;
  } else {
    return Error(ErrorCode::kInvalidArgument, "'{}': unknown unit '{}' (K, M, G or T)", given, std::string(ptr, end));
  }
  if (shift != 0 && value > (UINT64_MAX >> shift)) {
    return Error(ErrorCode::kInvalidArgument, "'{}' is too large", given);
  }
  return value << shift;
}

}  // namespace trit::server
