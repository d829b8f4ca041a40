// `trit verify [MODEL] --ids "1 2 3" [--chunk K] [--threads N] [--top K] [--json]`:
// proves batch invariance on this build and machine. Runs the ids (exactly
// as given, no BOS added) in passes of K rows, prints the argmax of every
// row, runs them again one token at a time, and reports how many rows' logits
// are bit-identical between the two. Exit 1 when any row differs.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "cli/command.h"
#include "cli/default_model.h"
#include "cli/engine_option.h"
#include "model/model.h"
#include "runtime/verify_run.h"
#include "store/resolve.h"

namespace trit::cli {
namespace {

using runtime::VerifyOptions;
using runtime::VerifyResult;

struct VerifyCommandOptions {
  std::string model;
  std::string ids;
  int64_t chunk = 0;
  int threads = 1;
  int64_t top = 0;
  std::string kv = "f16";
  std::string engine;  // --engine; empty: the registry chooses
  bool json = false;
};

// The `k` highest logits of a row as [id, logit], highest first (ties: lower id).
std::vector<std::pair<int32_t, float>> TopK(const float* row, int64_t n_vocab, int64_t k) {
  std::vector<int32_t> ids(static_cast<size_t>(n_vocab));
  std::iota(ids.begin(), ids.end(), 0);
  const size_t kk = static_cast<size_t>(std::min(k, n_vocab));
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(kk), ids.end(),
                    [&](int32_t a, int32_t b) { return row[a] != row[b] ? row[a] > row[b] : a < b; });
  std::vector<std::pair<int32_t, float>> out;
  for (size_t i = 0; i < kk; ++i) out.emplace_back(ids[i], row[ids[i]]);
  return out;
}

double PerSecond(size_t n, double seconds) { return seconds > 0.0 ? static_cast<double>(n) / seconds : 0.0; }

void PrintJson(const VerifyCommandOptions& opt, const std::string& engine, const std::vector<int32_t>& ids,
               const VerifyResult& r) {
  nlohmann::ordered_json j;
  j["engine"] = engine;
  j["argmax"] = r.argmax;
  j["identical"] = r.identical;
  j["differing"] = r.differing;
  j["logits_sha256"] = r.logits_sha256;
  j["rows"] = ids.size();
  j["chunk"] = opt.chunk == 0 ? static_cast<int64_t>(ids.size()) : opt.chunk;
  j["threads"] = opt.threads;
  j["kv_type"] = opt.kv;
  j["chunked_tokens_per_second"] = PerSecond(ids.size(), r.chunked_seconds);
  j["decode_tokens_per_second"] = PerSecond(ids.size(), r.single_seconds);
  if (opt.top > 0) {
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (size_t i = 0; i < ids.size(); ++i) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (const auto& [id, logit] : TopK(r.logits.data() + i * r.n_vocab, r.n_vocab, opt.top)) {
        row.push_back({id, logit});
      }
      top.push_back(row);
    }
    j["top"] = top;
  }
  fmt::print("{}\n", j.dump());
}

void PrintText(const VerifyCommandOptions& opt, const std::string& engine, const std::vector<int32_t>& ids,
               const VerifyResult& r) {
  fmt::print("model {} on engine {}: {} ids, passes of {} rows, {} threads, kv {}\n", opt.model, engine, ids.size(),
             opt.chunk == 0 ? static_cast<int64_t>(ids.size()) : opt.chunk, opt.threads, opt.kv);
  std::string argmax;
  for (int32_t a : r.argmax) argmax += fmt::format("{}{}", argmax.empty() ? "" : " ", a);
  fmt::print("argmax {}\n", argmax);
  if (opt.top > 0) {
    for (size_t i = 0; i < ids.size(); ++i) {
      std::string line;
      for (const auto& [id, logit] : TopK(r.logits.data() + i * r.n_vocab, r.n_vocab, opt.top)) {
        line += fmt::format(" {}:{:.6f}", id, logit);
      }
      fmt::print("row {} id {} top{}\n", i, ids[i], line);
    }
  }
  fmt::print("rows M={} identical={} differing={}\n", ids.size(), r.identical, r.differing);
  fmt::print("logits_sha256 {}\n", r.logits_sha256);
  fmt::print("speed: passes of {} rows {:.1f} tokens/s, one token at a time {:.1f} tokens/s\n",
             opt.chunk == 0 ? static_cast<int64_t>(ids.size()) : opt.chunk, PerSecond(ids.size(), r.chunked_seconds),
             PerSecond(ids.size(), r.single_seconds));
}

int RunVerifyCommand(VerifyCommandOptions& opt) {
  if (opt.model.empty()) {
    Expected<std::string> path = DefaultModelPath();
    if (!path.ok()) {
      PrintError(path.status().message());
      return kExitFailure;
    }
    opt.model = *path;
  } else {
    Expected<std::string> path = store::ResolveModelArgument(opt.model);  // a path, a store name or a URL
    if (!path.ok()) {
      PrintError(path.status().message());
      return kExitFailure;
    }
    opt.model = *path;
  }
  Expected<std::vector<int32_t>> ids = runtime::ParseIds(opt.ids);
  if (!ids.ok()) {
    PrintError(ids.status().message());
    return kExitUsage;
  }
  int exit_code = kExitFailure;
  Expected<EngineModel> model = OpenModel(opt.model, engines::kCapabilityGenerate, opt.engine, &exit_code);
  if (!model.ok()) {
    PrintError(model.status().message());
    return exit_code;
  }
  const std::string& engine = model->engine->info().name;
  VerifyOptions vo;
  vo.chunk = opt.chunk;
  vo.n_threads = opt.threads;
  vo.kv_type = opt.kv == "f32" ? kernels::KvType::kF32 : kernels::KvType::kF16;
  Expected<VerifyResult> result = runtime::RunVerify(*model->model, *ids, vo);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitFailure;
  }
  if (opt.json) {
    PrintJson(opt, engine, *ids, *result);
  } else {
    PrintText(opt, engine, *ids, *result);
  }
  if (result->differing != 0) {
    PrintError(fmt::format("{} of {} rows differ between passes of {} rows and one token at a time",
                           result->differing, ids->size(), opt.chunk == 0 ? ids->size() : static_cast<size_t>(opt.chunk)));
    return kExitFailure;
  }
  return kExitSuccess;
}

}  // namespace

Command AddVerifyCommand(CLI::App& parent) {
  auto opt = std::make_shared<VerifyCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "verify", "Check batch invariance: logits of ids run in passes of K rows vs one token at a time, bit for bit");
  app->add_option("model", opt->model,
                  "GGUF model (default: the bundled stories260K.gguf, looked for at <exe dir>/../models/, "
                  "<exe dir>/models/, then the source tree's models/)");
  app->add_option("--ids", opt->ids, "Token ids, space- or comma-separated, used exactly as given (no BOS added)")
      ->required();
  app->add_option("--chunk", opt->chunk, "Rows per pass (default: all ids in one pass)")->check(CLI::PositiveNumber);
  app->add_option("--threads", opt->threads, "Threads computing each pass")->default_val(1)->check(CLI::Range(1, 1024));
  app->add_option("--top", opt->top, "Also print the K highest logits of every row")->check(CLI::PositiveNumber);
  app->add_option("--kv", opt->kv, "KV cache element type")->default_val("f16")->check(CLI::IsMember({"f16", "f32"}));
  AddEngineOption(app, &opt->engine);
  app->add_flag("--json", opt->json,
                "Print one JSON object: engine, argmax, identical, differing, logits_sha256 (all rows' float32 logits), "
                "rows, chunk, threads, kv_type, tokens per second, top (with --top)");
  app->footer("Examples:\n  trit verify --ids \"1 403 407 261\" --chunk 3 --threads 2\n"
              "  trit verify models/stories260K.gguf --ids 1,403,407 --json");
  return {app, [opt] { return RunVerifyCommand(*opt); }};
}

}  // namespace trit::cli
