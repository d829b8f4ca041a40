// `trit bench MODEL [-p 512] [-n 128] [-t N] [-r 5] [--json]`: how fast this
// build runs a model on this machine. Prompt processing (p tokens in one
// pass) and generation (n tokens one at a time, continuing the prompt), as
// tokens/s mean and standard deviation over r repetitions after a warm-up;
// then the weight bytes a generated token reads, the machine's measured
// memory-read bandwidth with the same thread count, and generation as a
// fraction of that roofline (bandwidth / bytes per token).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/bench_run.h"
#include "cli/bench_stats.h"
#include "cli/command.h"
#include "cli/engine_option.h"
#include "cli/format_util.h"
#include "cli/machine_memory.h"
#include "formats/gguf/reader.h"
#include "model/model.h"
#include "store/resolve.h"

namespace trit::cli {
namespace {

struct BenchCommandOptions {
  std::string model;
  std::string engine;  // --engine; empty: the registry chooses
  int64_t n_prompt = 512;
  int64_t n_gen = 128;
  int threads = 0;  // 0: set to the hardware thread count before running
  int repetitions = 5;
  int64_t bandwidth_mib = 0;  // 0: DefaultBandwidthBufferBytes()
  bool json = false;
};

struct BenchReport {
  std::string engine;
  std::string type;
  uint64_t model_bytes = 0;  // the mapped file
  uint64_t bytes_per_token = 0;
  MeanSd pp;
  MeanSd tg;
  double bandwidth = 0.0;  // bytes/s
  double roofline_fraction = 0.0;
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
  j["bandwidth_gbs"] = r.bandwidth / 1e9;
  j["roofline_fraction"] = r.roofline_fraction;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["kv_cache_bytes"] = r.kv_cache_bytes;
  fmt::print("{}\n", j.dump());
}

void PrintText(const BenchCommandOptions& opt, const BenchReport& r) {
  fmt::print("model      {} ({}, {} mapped)\n", opt.model, r.type, HumanBytes(r.model_bytes));
  fmt::print("engine     {}\n", r.engine);
  fmt::print("threads    {}, {} repetitions after a warm-up\n", opt.threads, opt.repetitions);
  fmt::print("pp {:<7} {:10.2f} ± {:.2f} tokens/s\n", opt.n_prompt, r.pp.mean, r.pp.sd);
  fmt::print("tg {:<7} {:10.2f} ± {:.2f} tokens/s\n", opt.n_gen, r.tg.mean, r.tg.sd);
  const double roofline_tps = r.bytes_per_token > 0 ? r.bandwidth / static_cast<double>(r.bytes_per_token) : 0.0;
  fmt::print("roofline   {:.2f} GB/s read bandwidth / {} per token = {:.2f} tokens/s; generation at {:.1f}%\n",
             r.bandwidth / 1e9, HumanBytes(r.bytes_per_token), roofline_tps, 100.0 * r.roofline_fraction);
  fmt::print("memory     peak RSS {} (mapped {} + KV cache {})\n", HumanBytes(r.peak_rss_bytes),
             HumanBytes(r.model_bytes), HumanBytes(static_cast<uint64_t>(r.kv_cache_bytes)));
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
  Expected<gguf::File> file = gguf::File::Open(opt.model);
  if (!file.ok()) {
    PrintError(file.status().message());
    return kExitFailure;
  }
  BenchReport report;
  report.type = PredominantWeightType(file->tensors());
  report.model_bytes = file->file_size();
  report.bytes_per_token = WeightBytesPerToken(file->tensors());

  Progress(fmt::format("loading {}", opt.model));
  int exit_code = kExitFailure;
  Expected<EngineModel> model = OpenModel(opt.model, engines::kCapabilityGenerate, opt.engine, &exit_code);
  if (!model.ok()) {
    PrintError(model.status().message());
    return exit_code;
  }
  report.engine = model->engine->info().name;
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
  Expected<BenchRunResult> run = RunBench(*model->engine, *model->model, ro);
  if (!run.ok()) {
    PrintError(run.status().message());
    return kExitFailure;
  }
  report.pp = ComputeMeanSd(run->pp_tokens_per_second);
  report.tg = ComputeMeanSd(run->tg_tokens_per_second);
  report.kv_cache_bytes = run->kv_cache_bytes;
  // Before the bandwidth buffer exists: the peak of the benchmark itself.
  report.peak_rss_bytes = PeakRssBytes();

  Progress(fmt::format("measuring memory read bandwidth with {} threads", opt.threads));
  BandwidthOptions bo;
  bo.n_threads = opt.threads;
  bo.n_bytes = static_cast<uint64_t>(opt.bandwidth_mib) << 20;
  Expected<double> bandwidth = MeasureReadBandwidth(bo);
  if (!bandwidth.ok()) {
    PrintError(bandwidth.status().message());
    return kExitFailure;
  }
  report.bandwidth = *bandwidth;
  report.roofline_fraction = RooflineFraction(report.tg.mean, report.bytes_per_token, report.bandwidth);
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
  app->add_flag("--json", opt->json,
                "Print one JSON object: model, engine, type, threads, pp and tg {tokens, tps, sd}, repetitions, model_bytes, "
                "bytes_per_token, bandwidth_gbs, roofline_fraction, peak_rss_bytes, kv_cache_bytes");
  app->footer(
      "Each repetition runs the prompt (-p tokens, one pass) and then generates -n tokens one at a time after it,\n"
      "in a KV cache of p + n tokens. bytes_per_token counts the weights one generated token reads (every tensor\n"
      "once, one row of token_embd unless it is also the output matrix); roofline_fraction = tg tokens/s x\n"
      "bytes_per_token / bandwidth. Progress goes to stderr.\n"
      "Examples:\n  trit bench model.gguf -t 2\n  trit bench model.gguf -p 64 -n 16 -r 3 --json");
  return {app, [opt] { return RunBenchCommand(*opt); }};
}

}  // namespace trit::cli
