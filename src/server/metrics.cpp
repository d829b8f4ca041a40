#include "server/metrics.h"

#include <fmt/format.h>

#include <algorithm>

namespace trit::server {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::Render(const std::string& name, std::string* out) const {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    *out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, bounds_[i], cumulative);
  }
  *out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, count_);
  *out += fmt::format("{}_sum {}\n{}_count {}\n", name, sum_, name, count_);
}

Metrics::Metrics()
    : ttft_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}),
      token_latency_({0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}),
      model_load_seconds_({0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}) {}

void Metrics::CountRequest(const std::string& endpoint, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::DeclareKey(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  keys_.try_emplace(key);
}

void Metrics::CountKeyRequest(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++keys_[key].requests;
}

void Metrics::AddTokens(int64_t n_prompt, int64_t n_generated, const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  prompt_tokens_ += static_cast<uint64_t>(n_prompt);
  generated_tokens_ += static_cast<uint64_t>(n_generated);
  if (!key.empty()) {
    KeyCounters& k = keys_[key];
    k.prompt_tokens += static_cast<uint64_t>(n_prompt);
    k.generated_tokens += static_cast<uint64_t>(n_generated);
  }
}

void Metrics::ObserveTimeToFirstToken(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ttft_.Observe(seconds);
}

void Metrics::ObserveTokenLatency(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  token_latency_.Observe(seconds);
}

void Metrics::CountModelLoad(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  model_load_seconds_.Observe(seconds);
}

void Metrics::CountModelUnload() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++model_unloads_;
}

void Metrics::CountModelLoadFailure() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++model_load_failures_;
}

void Metrics::CountCancelled(const std::string& stage) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++cancelled_[stage];
}

void Metrics::CountSpeculation(int64_t drafted, int64_t accepted) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++spec_passes_;
  spec_drafted_ += static_cast<uint64_t>(drafted);
  spec_accepted_ += static_cast<uint64_t>(accepted);
}

std::string Metrics::Render(const Gauges& gauges) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  out += "# HELP trit_requests_total HTTP requests answered, by endpoint and status code.\n";
  out += "# TYPE trit_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out += fmt::format("trit_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, n);
  }
  out += "# HELP trit_requests_cancelled_total Requests whose client left before their end, by stage.\n";
  out += "# TYPE trit_requests_cancelled_total counter\n";
  for (const char* stage : {"queued", "prefill", "generating"}) {
    auto it = cancelled_.find(stage);
    out += fmt::format("trit_requests_cancelled_total{{stage=\"{}\"}} {}\n", stage,
                       it == cancelled_.end() ? 0 : it->second);
  }
  out += "# HELP trit_prompt_tokens_total Prompt tokens of finished generation requests.\n";
  out += "# TYPE trit_prompt_tokens_total counter\n";
  out += fmt::format("trit_prompt_tokens_total {}\n", prompt_tokens_);
  out += "# HELP trit_speculative_passes_total Slot steps that checked drafted tokens (speculative decoding).\n";
  out += "# TYPE trit_speculative_passes_total counter\n";
  out += fmt::format("trit_speculative_passes_total {}\n", spec_passes_);
  out += "# HELP trit_speculative_drafted_tokens_total Tokens drafted and checked by speculative decoding.\n";
  out += "# TYPE trit_speculative_drafted_tokens_total counter\n";
  out += fmt::format("trit_speculative_drafted_tokens_total {}\n", spec_drafted_);
  out += "# HELP trit_speculative_accepted_tokens_total Drafted tokens that were the model's own (kept).\n";
  out += "# TYPE trit_speculative_accepted_tokens_total counter\n";
  out += fmt::format("trit_speculative_accepted_tokens_total {}\n", spec_accepted_);
  out += "# HELP trit_generated_tokens_total Tokens generated.\n";
  out += "# TYPE trit_generated_tokens_total counter\n";
  out += fmt::format("trit_generated_tokens_total {}\n", generated_tokens_);
  if (!keys_.empty()) {
    // By the label of the API key (never the key itself).
    out += "# HELP trit_key_requests_total HTTP requests answered, by API key label.\n";
    out += "# TYPE trit_key_requests_total counter\n";
    for (const auto& [key, c] : keys_) out += fmt::format("trit_key_requests_total{{key=\"{}\"}} {}\n", key, c.requests);
    out += "# HELP trit_key_prompt_tokens_total Prompt tokens of finished generation requests, by API key label.\n";
    out += "# TYPE trit_key_prompt_tokens_total counter\n";
    for (const auto& [key, c] : keys_) {
      out += fmt::format("trit_key_prompt_tokens_total{{key=\"{}\"}} {}\n", key, c.prompt_tokens);
    }
    out += "# HELP trit_key_generated_tokens_total Tokens generated, by API key label.\n";
    out += "# TYPE trit_key_generated_tokens_total counter\n";
    for (const auto& [key, c] : keys_) {
      out += fmt::format("trit_key_generated_tokens_total{{key=\"{}\"}} {}\n", key, c.generated_tokens);
    }
  }
  out += "# HELP trit_time_to_first_token_seconds From a request's arrival in the queue to its first token.\n";
  out += "# TYPE trit_time_to_first_token_seconds histogram\n";
  ttft_.Render("trit_time_to_first_token_seconds", &out);
  out += "# HELP trit_token_latency_seconds Time between consecutive tokens of one request.\n";
  out += "# TYPE trit_token_latency_seconds histogram\n";
  token_latency_.Render("trit_token_latency_seconds", &out);
  out += "# HELP trit_queue_depth Requests waiting for a slot.\n# TYPE trit_queue_depth gauge\n";
  out += fmt::format("trit_queue_depth {}\n", gauges.queue_depth);
  out += "# HELP trit_active_slots Slots generating now.\n# TYPE trit_active_slots gauge\n";
  out += fmt::format("trit_active_slots {}\n", gauges.active_slots);
  out += "# HELP trit_open_connections HTTP connections open now, idle ones included.\n"
         "# TYPE trit_open_connections gauge\n";
  out += fmt::format("trit_open_connections {}\n", gauges.open_connections);
  out += "# HELP trit_slots Slots (--parallel).\n# TYPE trit_slots gauge\n";
  out += fmt::format("trit_slots {}\n", gauges.n_slots);
  out += "# HELP trit_models_loaded Models resident now.\n# TYPE trit_models_loaded gauge\n";
  out += fmt::format("trit_models_loaded {}\n", gauges.models_loaded);
  out += "# HELP trit_model_bytes Bytes of the resident models' files and KV caches.\n"
         "# TYPE trit_model_bytes gauge\n";
  out += fmt::format("trit_model_bytes {}\n", gauges.model_bytes);
  out += "# HELP trit_model_load_seconds Loads of models on demand, by the time they took.\n"
         "# TYPE trit_model_load_seconds histogram\n";
  model_load_seconds_.Render("trit_model_load_seconds", &out);
  out += "# HELP trit_model_unloads_total Models unloaded to make room for another.\n"
         "# TYPE trit_model_unloads_total counter\n";
  out += fmt::format("trit_model_unloads_total {}\n", model_unloads_);
  out += "# HELP trit_model_load_failures_total Loads of models on demand that failed.\n"
         "# TYPE trit_model_load_failures_total counter\n";
  out += fmt::format("trit_model_load_failures_total {}\n", model_load_failures_);
  return out;
}

}  // namespace trit::server
