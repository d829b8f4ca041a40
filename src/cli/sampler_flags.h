// The sampling flags (--temp, --top-k, --top-p, --min-p, the penalties,
// --seed), declared once with their defaults and help, for every command
// that samples: trit run, and trit bench --sampling.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>

#include "runtime/sampler.h"

namespace trit::cli {

struct SamplerFlags {
  runtime::SamplerOptions options{.temperature = 0.8f, .top_k = 40, .top_p = 0.95f, .min_p = 0.05f};
  std::optional<uint64_t> seed;  // unset: a random seed
};

void AddSamplerFlags(CLI::App* app, SamplerFlags* flags);

// The options with the seed filled in (random when --seed was not given),
// or the error naming the flag out of range.
Expected<runtime::SamplerOptions> ResolveSamplerFlags(const SamplerFlags& flags);

}  // namespace trit::cli
