#include "perf/bench_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "runtime/session.h"
#include "system/machine_memory.h"

namespace trit::perf {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Appends ids[begin, end) to sequence 0 in one Decode, asking for the last
// row's logits; with a sampler, samples the next token from them into
// ids[end] (history: ids[0, end)).
Status DecodeRange(runtime::Session& session, std::vector<int32_t>& ids, int64_t begin, int64_t end,
                   runtime::Sampler* sampler = nullptr) {
  runtime::Batch batch;
  for (int64_t i = begin; i < end; ++i) {
    batch.Add(ids[static_cast<size_t>(i)], static_cast<int32_t>(i), 0, i + 1 == end);
  }
  Expected<runtime::Logits> logits = session.Decode(batch);
  if (!logits.ok()) return logits.status();
  if (sampler != nullptr && end < static_cast<int64_t>(ids.size())) {
    const std::span<const int32_t> history(ids.data(), static_cast<size_t>(end));
    ids[static_cast<size_t>(end)] = sampler->Sample(logits->Row(0), history, end);
  }
  return Status::Ok();
}

Status Probe(const BenchRunOptions& options, std::vector<double>* readings) {
  if (!options.probe_bandwidth) return Status::Ok();
  Expected<double> b = options.probe_bandwidth();
  if (!b.ok()) return b.status();
  readings->push_back(*b);
  return Status::Ok();
}

void Report(const BenchRunOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

}  // namespace

std::vector<int32_t> BenchTokenIds(int64_t n, int64_t n_vocab) {
  // A 32-bit LCG (Numerical Recipes constants); bench/vs_llamacpp.py repeats it.
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(std::max<int64_t>(n, 0)));
  uint32_t state = 12345;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    ids.push_back(static_cast<int32_t>((state >> 8) % static_cast<uint32_t>(n_vocab)));
  }
  return ids;
}

Expected<BenchRunResult> RunBench(const engines::Engine& engine, const model::Model& model,
                                  const BenchRunOptions& options) {
  const model::HParams& h = model.hparams();
  const int64_t n_total = options.n_prompt + options.n_gen;
  runtime::SessionOptions so;
  so.n_ctx = n_total;
  so.n_threads = options.n_threads;
  so.kv_type = kernels::KvType::kF16;
  Expected<std::unique_ptr<runtime::Session>> session = engine.CreateSession(model, so);
  if (!session.ok()) return session.status();
  runtime::Session& s = **session;
  std::vector<int32_t> ids = BenchTokenIds(n_total, h.n_vocab);

  BenchRunResult result;
  result.kv_cache_bytes = 2 * h.n_layer * n_total * h.kv_dim() * 2;  // K and V, f16

  // Warm-up: one untimed repetition's prompt pass and one generated token:
  // every weight is read once (pages the mapping in, starts the threads) and
  // the buffers of a prompt pass of this size have been allocated once (the
  // first allocation of a large buffer costs page faults the later ones do
  // not: it made the first timed pass up to 2x slower).
  Report(options, "warm-up");
  if (Status st = DecodeRange(s, ids, 0, options.n_prompt); !st.ok()) return st;
  if (Status st = DecodeRange(s, ids, options.n_prompt, options.n_prompt + 1); !st.ok()) return st;
  result.peak_rss_bytes = system::PeakRssBytes();
  std::optional<runtime::Sampler> sampler;

  for (int rep = 0; rep < options.repetitions; ++rep) {
    if (Status st = s.Truncate(0, 0); !st.ok()) return st;
    Report(options, fmt::format("repetition {}/{}: prompt processing, {} tokens", rep + 1, options.repetitions,
                                options.n_prompt));
    auto start = std::chrono::steady_clock::now();
    if (Status st = DecodeRange(s, ids, 0, options.n_prompt); !st.ok()) return st;
    result.pp_tokens_per_second.push_back(static_cast<double>(options.n_prompt) / SecondsSince(start));

    if (Status st = Probe(options, &result.bandwidth_before); !st.ok()) return st;
    Report(options, fmt::format("repetition {}/{}: generation, {} tokens{}", rep + 1, options.repetitions,
                                options.n_gen, options.sampling ? ", sampled" : ""));
    // Every repetition samples the same stream: a fresh sampler, same seed.
    if (options.sampling) sampler.emplace(*options.sampling);
    runtime::Sampler* sample = sampler ? &*sampler : nullptr;
    start = std::chrono::steady_clock::now();
    for (int64_t i = options.n_prompt; i < n_total; ++i) {
      if (Status st = DecodeRange(s, ids, i, i + 1, sample); !st.ok()) return st;
    }
    result.tg_tokens_per_second.push_back(static_cast<double>(options.n_gen) / SecondsSince(start));
    if (Status st = Probe(options, &result.bandwidth_after); !st.ok()) return st;
  }
  return result;
}

}  // namespace trit::perf
