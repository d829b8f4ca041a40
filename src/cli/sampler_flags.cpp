#include "cli/sampler_flags.h"

#include <random>

namespace trit::cli {

void AddSamplerFlags(CLI::App* app, SamplerFlags* f) {
  runtime::SamplerOptions& o = f->options;
  app->add_option("--temp", o.temperature, "Sampling temperature; 0 picks the most likely token (greedy)")
      ->default_val(o.temperature);
  app->add_option("--top-k", o.top_k, "Keep the K most likely tokens (0: all)")->default_val(o.top_k);
  app->add_option("--top-p", o.top_p, "Keep the smallest set of tokens whose probability reaches P")
      ->default_val(o.top_p);
  app->add_option("--min-p", o.min_p, "Drop tokens less likely than P times the most likely one")
      ->default_val(o.min_p);
  app->add_option("--repeat-penalty", o.repeat_penalty, "Penalty for tokens seen in the last 64 (1: none)")
      ->default_val(o.repeat_penalty);
  app->add_option("--frequency-penalty", o.frequency_penalty, "Subtract count x this from a seen token's logit")
      ->default_val(o.frequency_penalty);
  app->add_option("--presence-penalty", o.presence_penalty, "Subtract this from a seen token's logit")
      ->default_val(o.presence_penalty);
  app->add_option("--seed", f->seed, "Random seed: the same seed and options give the same tokens (default: random)");
}

Expected<runtime::SamplerOptions> ResolveSamplerFlags(const SamplerFlags& flags) {
  runtime::SamplerOptions o = flags.options;
  o.seed = flags.seed.has_value() ? *flags.seed : std::random_device{}();
  if (Status s = runtime::ValidateSamplerOptions(o); !s.ok()) return s;
  return o;
}

}  // namespace trit::cli
