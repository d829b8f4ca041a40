// The timed part of `trit bench`, apart from its flags and printing: prompt
// processing (p tokens in one Decode) then generation (n single-token Decodes
// continuing the same sequence), repeated, after an untimed warm-up. The
// memory-read bandwidth can be probed right before and right after each
// repetition's generation, so that decode speed is compared with what the
// memory delivered at that moment (on shared or virtual machines it swings
// by 2x within minutes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "engines/engine.h"
#include "model/model.h"
#include "runtime/sampler.h"

namespace trit::perf {

struct BenchRunOptions {
  int64_t n_prompt = 512;  // -p: rows of the prompt-processing Decode
  int64_t n_gen = 128;     // -n: single-token Decodes after it
  int repetitions = 5;     // -r: timed repetitions
  int n_threads = 1;       // -t: exactly this many threads compute
  // Set: each generated token is sampled from its logits with these options
  // (trit run's sampler) and fed back, as trit run does; unset: fixed ids
  // and no sampling (the work of llama-bench's tg).
  std::optional<runtime::SamplerOptions> sampling;
  // Called with a progress line (no newline) before each phase; may be empty.
  std::function<void(const std::string&)> progress;
  // Returns the read bandwidth in bytes/s; called before and after each
  // repetition's generation (untimed). May be empty.
  std::function<Expected<double>()> probe_bandwidth;
};

struct BenchRunResult {
  std::vector<double> pp_tokens_per_second;  // (repetitions)
  std::vector<double> tg_tokens_per_second;  // (repetitions)
  int64_t kv_cache_bytes = 0;                // f16 K and V of n_prompt + n_gen tokens, every layer
  // probe_bandwidth's readings around each repetition's generation (bytes/s).
  std::vector<double> bandwidth_before;  // (repetitions) when probed
  std::vector<double> bandwidth_after;   // (repetitions) when probed
  uint64_t peak_rss_bytes = 0;           // after the warm-up, before any probe buffer exists
};

// The token ids fed to the model: `n` ids from a fixed pseudo-random sequence
// in [0, n_vocab), the same on every run (bench/vs_llamacpp.py feeds llama.cpp
// the same ids). Weight values and ids do not change the work done.
std::vector<int32_t> BenchTokenIds(int64_t n, int64_t n_vocab);

// Runs the benchmark on one session (made by `engine`, which loaded `model`)
// whose cache holds n_prompt + n_gen tokens. Errors (named) when the session
// cannot be made or a Decode is refused.
Expected<BenchRunResult> RunBench(const engines::Engine& engine, const model::Model& model,
                                  const BenchRunOptions& options);

}  // namespace trit::perf
