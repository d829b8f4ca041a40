// `trit bench MODEL [-p 512] [-n 128] [-t N] [-r 5] [--sampling] [--json]`:
// how fast this build runs a model on this machine. Prompt processing (p
// tokens in one pass) and generation (n tokens one at a time, continuing the
// prompt; with --sampling each token sampled as trit run does), as tokens/s
// mean and standard deviation over r repetitions after a warm-up; then the
// weight bytes a generated token reads, decode as GB/s of weights, the
// memory-read bandwidth probed with the same thread count right before and
// after each repetition's generation, and decode as a fraction of the
// bandwidth around it.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/units.h"
#include "cli/command.h"
#include "cli/engine_option.h"
#include "cli/sampler_flags.h"
#include "engines/model_format.h"
#include "formats/gguf/reader.h"
#include "model/model.h"
#include "perf/bench_run.h"
#include "perf/bench_stats.h"
#include "store/resolve.h"
#include "system/machine_memory.h"

namespace trit::cli {
namespace {

using perf::BenchRunOptions;
using perf::BenchRunResult;
using perf::MeanSd;
using system::BandwidthOptions;

struct BenchCommandOptions {
  std::string model;
  std::string engine;  // --engine; empty: the registry chooses
  int64_t n_prompt = 512;
  int64_t n_gen = 128;
  int threads = 0;  // 0: set to the hardware thread count before running
  int repetitions = 5;
  int64_t bandwidth_mib = 0;  // 0: DefaultBandwidthBufferBytes()
  bool sampling = false;      // --sampling
  SamplerFlags sampler;
  bool json = false;
};

struct BenchReport {
  std::string engine;
  std::string type;
  uint64_t model_bytes = 0;  // the mapped file
  uint64_t bytes_per_token = 0;
  MeanSd pp;
  MeanSd tg;
  double decode_bytes_per_second = 0.0;  // tg mean x bytes_per_token
  perf::BandwidthSummary bandwidth;      // probed before and after each repetition's generation
  std::optional<runtime::SamplerOptions> sampling;
  uint64_t peak_rss_bytes = 0;
  int64_t kv_cache_bytes = 0;
};

void PrintJson(const BenchCommandOptions& opt, const BenchReport& r) {
  nlohmann::ordered_json j;
  j["model"] = opt.model;
  j["engine"] = r.engine;
  j["type"] = r.type;
  j["threads"] = opt.threads;
  j["pp"] = {{"tokens", opt.n_prompt}, {"tps", r.pp.mean}, {"sd", r.pp.sd}};
  j["tg"] = {{"tokens", opt.n_gen}, {"tps", r.tg.mean}, {"sd", r.tg.sd}};
  j["repetitions"] = opt.repetitions;
  j["model_bytes"] = r.model_bytes;
  j["bytes_per_token"] = r.bytes_per_token;
  j["decode_gbs"] = r.decode_bytes_per_second / 1e9;
  j["bandwidth_gbs"] = r.bandwidth.median / 1e9;
  j["bandwidth_min_gbs"] = r.bandwidth.min / 1e9;
  j["bandwidth_max_gbs"] = r.bandwidth.max / 1e9;
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (double b : r.bandwidth.probes) probes.push_back(b / 1e9);
  j["bandwidth_probes_gbs"] = probes;
  j["roofline_fraction"] = r.bandwidth.roofline_fraction;
  if (r.sampling) {
    j["sampling"] = {{"temperature", r.sampling->temperature}, {"top_k", r.sampling->top_k},
                     {"top_p", r.sampling->top_p},             {"min_p", r.sampling->min_p},
                     {"seed", r.sampling->seed}};
  } else {
    j["sampling"] = nullptr;
  }
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["kv_cache_bytes"] = r.kv_cache_bytes;
  fmt::print("{}\n", j.dump());
}

void PrintText(const BenchCommandOptions& opt, const BenchReport& r) {
  fmt::print("model      {} ({}, {} mapped)\n", opt.model, r.type, FormatBytes(r.model_bytes));
  fmt::print("engine     {}\n", r.engine);
  fmt::print("threads    {}, {} repetitions after a warm-up\n", opt.threads, opt.repetitions);
  fmt::print("pp {:<7} {:10.2f} ± {:.2f} tokens/s\n", opt.n_prompt, r.pp.mean, r.pp.sd);
  fmt::print("tg {:<7} {:10.2f} ± {:.2f} tokens/s{}\n", opt.n_gen, r.tg.mean, r.tg.sd,
             r.sampling ? fmt::format(", sampled (temp {:g}, top-k {}, top-p {:g}, min-p {:g})", r.sampling->temperature,
                                      r.sampling->top_k, r.sampling->top_p, r.sampling->min_p)
                        : "");
  fmt::print("decode     {:.2f} GB/s of weights ({} per token)\n", r.decode_bytes_per_second / 1e9,
             FormatBytes(r.bytes_per_token));
  fmt::print("bandwidth  {:.2f}-{:.2f} GB/s read, median {:.2f} ({} probes, before and after each generation)\n",
             r.bandwidth.min / 1e9, r.bandwidth.max / 1e9, r.bandwidth.median / 1e9, r.bandwidth.probes.size());
  fmt::print("roofline   generation at {:.1f}% of the bandwidth around it (median of repetitions)\n",
             100.0 * r.bandwidth.roofline_fraction);
  fmt::print("memory     peak RSS {} (mapped {} + KV cache {})\n", FormatBytes(r.peak_rss_bytes),
             FormatBytes(r.model_bytes), FormatBytes(static_cast<uint64_t>(r.kv_cache_bytes)));
}

void Progress(const std::string& line) { fmt::print(stderr, "bench: {}\n", line); }

int RunBenchCommand(BenchCommandOptions& opt) {
  if (opt.threads == 0) opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Expected<std::string> path = store::ResolveModelArgument(opt.model);  // a path, a store name or a URL
  if (!path.ok()) {
    PrintError(path.status().message());
    return kExitFailure;
  }
  opt.model = *path;
  Expected<std::string> weights = engines::WeightsFile(opt.model);  // a pack's weights are its GGUF file
  if (!weights.ok()) {
    PrintError(weights.status().message());
    return kExitFailure;
  }
  Expected<gguf::File> file = gguf::File::Open(*weights);
  if (!file.ok()) {
    PrintError(file.status().message());
    return kExitFailure;
  }
  BenchReport report;
  report.type = perf::PredominantWeightType(file->tensors());
  report.model_bytes = file->file_size();

  Progress(fmt::format("loading {}", opt.model));
  int exit_code = kExitFailure;
  Expected<EngineModel> model = OpenModel(opt.model, engines::kCapabilityGenerate, opt.engine, &exit_code);
  if (!model.ok()) {
    PrintError(model.status().message());
    return exit_code;
  }
  report.engine = model->engine->info().name;
  report.bytes_per_token = perf::WeightBytesPerToken(file->tensors(), model->model->hparams().n_expert_used);
  const int64_t n_ctx_train = model->model->hparams().n_ctx_train;
  if (opt.n_prompt + opt.n_gen > n_ctx_train) {
    PrintError(fmt::format("-p {} + -n {} = {} tokens do not fit the model's context length {}", opt.n_prompt,
                           opt.n_gen, opt.n_prompt + opt.n_gen, n_ctx_train));
    return kExitUsage;
  }
  BenchRunOptions ro;
  ro.n_prompt = opt.n_prompt;
  ro.n_gen = opt.n_gen;
  ro.repetitions = opt.repetitions;
  ro.n_threads = opt.threads;
  ro.progress = Progress;
  if (opt.sampling) {
    SamplerFlags flags = opt.sampler;
    if (!flags.seed) flags.seed = 42;  // the same stream every run unless asked
    Expected<runtime::SamplerOptions> so = ResolveSamplerFlags(flags);
    if (!so.ok()) {
      PrintError(so.status().message());
      return kExitUsage;
    }
    ro.sampling = *so;
    report.sampling = *so;
  }
  BandwidthOptions bo;
  bo.n_threads = opt.threads;
  bo.n_bytes = static_cast<uint64_t>(opt.bandwidth_mib) << 20;
  ro.probe_bandwidth = [&bo] { return system::MeasureReadBandwidth(bo); };
  Expected<BenchRunResult> run = perf::RunBench(*model->engine, *model->model, ro);
  if (!run.ok()) {
    PrintError(run.status().message());
    return kExitFailure;
  }
  report.pp = perf::ComputeMeanSd(run->pp_tokens_per_second);
  report.tg = perf::ComputeMeanSd(run->tg_tokens_per_second);
  report.kv_cache_bytes = run->kv_cache_bytes;
  report.peak_rss_bytes = run->peak_rss_bytes;  // the benchmark's own, before the probes' buffers
  report.decode_bytes_per_second = report.tg.mean * static_cast<double>(report.bytes_per_token);
  report.bandwidth = perf::SummarizeBandwidth(run->tg_tokens_per_second, run->bandwidth_before, run->bandwidth_after,
                                              report.bytes_per_token);
  if (opt.json) {
    PrintJson(opt, report);
  } else {
    PrintText(opt, report);
  }
  return kExitSuccess;
}

}  // namespace

Command AddBenchCommand(CLI::App& parent) {
  auto opt = std::make_shared<BenchCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "bench", "Measure prompt-processing and generation speed of a model against this machine's memory roofline");
  app->add_option("model", opt->model, "GGUF model to run: a path, a store name (trit models list) or a URL")
      ->required();
  AddEngineOption(app, &opt->engine);
  app->add_option("-p,--prompt-tokens", opt->n_prompt, "Prompt tokens processed in one pass per repetition")
      ->default_val(512)
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app->add_option("-n,--gen-tokens", opt->n_gen, "Tokens generated one at a time after the prompt, per repetition")
      ->default_val(128)
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app->add_option("-t,--threads", opt->threads,
                  "Threads computing (and reading in the bandwidth measurement); exactly this many "
                  "(default: one per hardware thread)")
      ->check(CLI::Range(1, 1024));
  app->add_option("-r,--repetitions", opt->repetitions, "Timed repetitions after one untimed warm-up")
      ->default_val(5)
      ->check(CLI::Range(1, 1000));
  app->add_option("--bandwidth-mib", opt->bandwidth_mib,
                  "MiB the bandwidth measurement reads (default: 4x the last-level cache, 512 to 2048); a buffer "
                  "that fits in a cache measures the cache, not memory")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app->add_flag("--sampling", opt->sampling,
                "Sample each generated token as trit run does (its defaults, or the sampling flags below) and feed it "
                "back, so tg includes the sampler's cost over the whole vocabulary");
  AddSamplerFlags(app, &opt->sampler);
  app->add_flag("--json", opt->json,
                "Print one JSON object: model, engine, type, threads, pp and tg {tokens, tps, sd}, repetitions, model_bytes, "
                "bytes_per_token, decode_gbs, bandwidth_gbs (median probe), bandwidth_min_gbs, bandwidth_max_gbs, "
                "bandwidth_probes_gbs, roofline_fraction, sampling (null or its options), peak_rss_bytes, kv_cache_bytes");
  app->footer(
      "Each repetition runs the prompt (-p tokens, one pass) and then generates -n tokens one at a time after it,\n"
      "in a KV cache of p + n tokens. bytes_per_token counts the weights one generated token reads (every tensor\n"
      "once, one row of token_embd unless it is also the output matrix); decode_gbs = tg tokens/s x bytes_per_token.\n"
      "The read bandwidth is probed (the fastest of 5 reads of a buffer larger than the caches) right before and\n"
      "right after each repetition's generation, untimed: on shared and virtual machines it moves by 2x within\n"
      "minutes, so decode is compared with what memory delivered around it. roofline_fraction is the median over\n"
      "repetitions of decode_gbs / the mean of that repetition's two probes. Sampling flags act only with\n"
      "--sampling (seed 42 unless --seed). Progress goes to stderr.\n"
      "Examples:\n  trit bench model.gguf -t 2\n  trit bench model.gguf -p 64 -n 16 -r 3 --json\n"
      "  trit bench model.gguf --sampling            # tg as trit run decodes: temp 0.8, top-k 40, top-p 0.95, min-p 0.05\n"
      "  trit bench model.gguf --sampling --top-k 0 --top-p 1 --min-p 0   # as trit serve with OpenAI's defaults");
  return {app, [opt] { return RunBenchCommand(*opt); }};
}

}  // namespace trit::cli
