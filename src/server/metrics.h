// Counters and histograms for GET /metrics, rendered in the Prometheus text
// exposition format. Thread-safe: HTTP threads and the scheduler update it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace trit::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);
  // Appends `name`_bucket/_sum/_count lines.
  void Render(const std::string& name, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // (bounds_.size() + 1): the last is +Inf
  double sum_ = 0.0;
  uint64_t count_ = 0;
};

struct Gauges {
  int64_t queue_depth = 0;
  int64_t active_slots = 0;
  int64_t n_slots = 0;
  int64_t open_connections = 0;  // the HTTP transport's, idle ones included
  int64_t models_loaded = 0;     // resident models (model_pool.h)
  uint64_t model_bytes = 0;      // their files and KV caches
};

class Metrics {
 public:
  Metrics();
  void CountRequest(const std::string& endpoint, int status);
  // Lists an API key's label in /metrics before its first request.
  void DeclareKey(const std::string& key);
  // A request that came with the API key labelled `key` (never the key).
  void CountKeyRequest(const std::string& key);
  // `key`: the label of the request's API key, "" for none.
  void AddTokens(int64_t n_prompt, int64_t n_generated, const std::string& key = "");
  void ObserveTimeToFirstToken(double seconds);
  void ObserveTokenLatency(double seconds);
  // A model loaded on demand (model_pool.h) in `seconds`, one unloaded to
  // make room, one whose load failed.
  void CountModelLoad(double seconds);
  void CountModelUnload();
  void CountModelLoadFailure();
  // A request whose client left (or that was cancelled) before its end, by
  // where it was: "queued", "prefill" (its prompt being computed) or "generating".
  void CountCancelled(const std::string& stage);
  // A step in which a slot checked `drafted` (>= 1) speculated tokens, of
  // which `accepted` were the model's own.
  void CountSpeculation(int64_t drafted, int64_t accepted);

  std::string Render(const Gauges& gauges) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  uint64_t prompt_tokens_ = 0;
  uint64_t generated_tokens_ = 0;
  struct KeyCounters {
    uint64_t requests = 0;
    uint64_t prompt_tokens = 0;
    uint64_t generated_tokens = 0;
  };
  std::map<std::string, KeyCounters> keys_;
  Histogram ttft_;
  Histogram token_latency_;
  Histogram model_load_seconds_;
  uint64_t model_unloads_ = 0;
  uint64_t model_load_failures_ = 0;
  std::map<std::string, uint64_t> cancelled_;  // by stage
  uint64_t spec_passes_ = 0;
  uint64_t spec_drafted_ = 0;
  uint64_t spec_accepted_ = 0;
};

}  // namespace trit::server
