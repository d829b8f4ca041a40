// `trit pack run DIR --ids "1 2 3" [--host] [--check] [--threads N]
// [--json]`: ids in, every row's logits out, in passes as wide as the
// plan's prefill_m, through the forward pass `trit serve` and `trit verify`
// use. --host runs every op on the CPU kernels, needs none of the kernel
// files and takes no device lock; without it the run goes through a device
// engine plugin for the pack's family, holding the device's lock.
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/pack_subcommands.h"
#include "engines/default_registry.h"
#include "engines/device_engine.h"
#include "engines/open_model.h"
#include "pack/check_pack.h"
#include "pack/pack_run.h"
#include "runtime/verify_run.h"
#include "store/models_home.h"
#include "system/device_lock.h"

namespace trit::cli {
namespace {

struct PackRunOptions {
  std::string dir;
  std::string ids;
  bool host = false;
  bool check = false;
  int threads = 0;
  std::string kv = "f16";
  std::string generation;
  bool json = false;
};

// What ran the pack, for the report.
struct Runner {
  std::string engine;
  std::string where;  // one line: host or device, lock
  std::unique_ptr<engines::Registry> registry;
  std::unique_ptr<model::Model> model;
  std::optional<system::DeviceLock> lock;
};

// This process's command line, for the lock's record.
std::vector<std::string> OwnCommandLine() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  for (size_t i = 0; i < all.size();) {
    const size_t end = all.find('\0', i);
    out.push_back(all.substr(i, end == std::string::npos ? std::string::npos : end - i));
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return out;
}

// The host path: the pack's weights on the CPU engine, as `trit serve` runs a GGUF file.
Expected<Runner> OpenOnHost(const pack::PackCheck& c, int* exit_code) {
  Runner r;
  Expected<engines::OpenedModel> m = engines::OpenForCapability(c.weights_path, engines::kCapabilityGenerate, "cpu");
  if (!m.ok()) {
    *exit_code = kExitFailure;
    return m.status();
  }
  r.engine = m->engine->info().name;
  r.where = fmt::format("host run: every op on this CPU's kernels (engine {}); no device lock taken", r.engine);
  r.registry = std::move(m->registry);
  r.model = std::move(m->model);
  return r;
}

// The device path: a device engine for the pack's family, holding its lock.
Expected<Runner> OpenOnDevice(const std::string& dir, const pack::PackCheck& c, int64_t width, int* exit_code) {
  Runner r;
  const engines::Discovery discovery = engines::DiscoveryFromEnvironment();
  r.registry = engines::BuildRegistry(discovery);
  Expected<const engines::Engine*> engine = engines::FindDeviceEngine(*r.registry, c.plan.device, discovery.Directories());
  if (!engine.ok()) {
    *exit_code = kExitUsage;  // the fix is on the command line: --host, or an engine on the path
    return engine.status();
  }
  *exit_code = kExitFailure;
  if (!c.ok()) {
    // The device would be handed kernels that are missing or built for something else.
    const pack::PackProblem& p = c.problems.front();
    return Error(ErrorCode::kCorrupt, "{} cannot run on the device: {}{}{}{}; trit pack check {} lists {}, or add --host",
                 dir, p.op, p.op.empty() ? "" : ": ", p.file.empty() ? "" : p.file + ": ", p.message, dir,
                 c.problems.size() == 1 ? "it" : fmt::format("all {} problems", c.problems.size()));
  }
  Expected<std::string> locks = store::LocksDir();
  if (!locks.ok()) return locks.status();
  Expected<system::LockAttempt> attempt =
      system::TryLockDevice(*locks, c.plan.device, system::CurrentProcessHolder(OwnCommandLine()));
  if (!attempt.ok()) return attempt.status();
  if (!attempt->lock) {
    return Error(ErrorCode::kIo, "device {} is locked by {}; wait, or see trit lock status {}", c.plan.device,
                 attempt->holder ? system::DescribeHolder(*attempt->holder) : "a process that has not written its record yet",
                 c.plan.device);
  }
  r.lock = std::move(attempt->lock);
  r.engine = (*engine)->info().name;
  Expected<std::unique_ptr<model::Model>> m = (*engine)->LoadModel(dir);
  if (!m.ok()) return m.status();
  r.model = std::move(m).value();
  Expected<engines::PackInfo> info = (*engine)->DescribePack(*r.model);
  if (!info.ok()) return info.status();
  if (info->width != width) {
    return Error(ErrorCode::kCorrupt, "engine {} runs passes of {} rows, plan.json's prefill_m is {}: remake the pack or its kernels",
                 r.engine, info->width, width);
  }
  r.where = fmt::format("device run: engine {} ({} kernel set, {} kernels), holding the lock of device {}", r.engine,
                        info->generation, info->n_kernels, c.plan.device);
  return r;
}

std::string Passes(const std::vector<pack::PassSpan>& passes) {
  std::string out;
  for (const pack::PassSpan& p : passes) {
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       p.rows == 1 ? fmt::format("{}", p.first_position)
                                   : fmt::format("{}-{}", p.first_position, p.first_position + p.rows - 1));
  }
  return out;
}

void PrintText(const PackRunOptions& o, const pack::PackCheck& c, const Runner& r, const std::vector<std::string>& missing,
               const pack::RunWidth& width, const pack::PackRunResult& res) {
  fmt::print("pack {}: device {}, weights {}, the {} set, because {}\n", o.dir, c.plan.device, c.plan.model,
             pack::GenerationName(c.choice.generation), c.choice.reason);
  fmt::print("{}\n", r.where);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& f : missing) list += (list.empty() ? "" : ", ") + f;
    fmt::print("kernel files missing ({} of {}), not needed on the host: {}\n", missing.size(), c.kernels.size(), list);
  }
  fmt::print("width {} ({}): {} ids in {} pass{}, positions {}\n", width.m, width.source, res.argmax.size(),
             res.passes.size(), res.passes.size() == 1 ? "" : "es", Passes(res.passes));
  std::string argmax;
  for (int32_t a : res.argmax) argmax += fmt::format("{}{}", argmax.empty() ? "" : " ", a);
  fmt::print("argmax {}\n", argmax);
  if (o.check) {
    fmt::print("check: each pass's rows against single steps continuing the same cache from the pass's position\n");
    fmt::print("rows M={} identical={} differing={}\n", res.argmax.size(), res.identical, res.differing);
  }
  fmt::print("logits_sha256 {}\n", res.logits_sha256);
}

void PrintJson(const PackRunOptions& o, const pack::PackCheck& c, const Runner& r,
               const std::vector<std::string>& missing, const pack::RunWidth& width, const pack::PackRunResult& res) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["dir"] = o.dir;
  j["device"] = c.plan.device;
  j["host"] = o.host;
  j["engine"] = r.engine;
  j["generation"] = pack::GenerationName(c.choice.generation);
  j["generation_reason"] = c.choice.reason;
  j["missing_kernels"] = missing;
  j["width"] = width.m;
  j["width_source"] = width.source;
  Json passes = Json::array();
  for (const pack::PassSpan& p : res.passes) passes.push_back({{"first_position", p.first_position}, {"rows", p.rows}});
  j["passes"] = std::move(passes);
  j["rows"] = res.argmax.size();
  j["argmax"] = res.argmax;
  j["logits_sha256"] = res.logits_sha256;
  j["check"] = o.check ? Json{{"identical", res.identical}, {"differing", res.differing}, {"differing_rows", res.differing_rows}}
                       : Json(nullptr);
  j["seconds"] = res.seconds;
  fmt::print("{}\n", j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

int RunPackRun(PackRunOptions& o) {
  Expected<std::vector<int32_t>> ids = runtime::ParseIds(o.ids);
  if (!ids.ok()) {
    PrintError(ids.status().message());
    return kExitUsage;
  }
  Expected<pack::PackCheck> c = pack::CheckPack(o.dir, GenerationPin(o.generation));
  if (!c.ok()) {
    PrintError(c.status().message());
    return kExitFailure;
  }
  const pack::RunWidth width = pack::WidthFromPlan(c->plan);
  int exit_code = kExitFailure;
  Expected<Runner> runner = o.host ? OpenOnHost(*c, &exit_code) : OpenOnDevice(o.dir, *c, width.m, &exit_code);
  if (!runner.ok()) {
    PrintError(runner.status().message());
    return exit_code;
  }
  const std::vector<std::string> missing = c->MissingKernelFiles();
  pack::PackRunOptions ro;
  ro.width = width.m;
  ro.check = o.check;
  ro.n_threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ro.kv_type = o.kv == "f32" ? kernels::KvType::kF32 : kernels::KvType::kF16;
  Expected<pack::PackRunResult> res = pack::RunPackPasses(*runner->model, *ids, ro);
  if (!res.ok()) {
    PrintError(res.status().message());
    return res.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (o.json) {
    PrintJson(o, *c, *runner, missing, width, *res);
  } else {
    PrintText(o, *c, *runner, missing, width, *res);
  }
  if (res->differing != 0) {
    std::string rows;
    for (int64_t i : res->differing_rows) rows += fmt::format("{}{}", rows.empty() ? "" : " ", i);
    PrintError(fmt::format("{} of {} rows differ from single steps continuing the same cache (rows {})", res->differing,
                           ids->size(), rows));
    return kExitFailure;
  }
  return kExitSuccess;
}

}  // namespace

Command AddPackRunCommand(CLI::App& pack) {
  auto o = std::make_shared<PackRunOptions>();
  CLI::App* app = pack.add_subcommand("run", "Run token ids through a pack in passes of the plan's width; every row's logits");
  app->add_option("dir", o->dir, "The pack directory (holding plan.json)")->required();
  app->add_option("--ids", o->ids, "Token ids, space- or comma-separated, used exactly as given (no BOS added)")->required();
  app->add_flag("--host", o->host,
                "Run every op on this CPU's kernels: needs no kernel file (missing ones are listed) and takes no "
                "device lock");
  app->add_flag("--check", o->check,
                "Compare each pass's rows, bit for bit, with single steps that continue the same cache from the "
                "pass's position; exit 1 on any difference");
  app->add_option("--threads", o->threads, "Threads computing each pass (default: all cores)")->check(CLI::Range(1, 1024));
  app->add_option("--kv", o->kv, "KV cache element type")->default_val("f16")->check(CLI::IsMember({"f16", "f32"}));
  app->add_option("--generation", o->generation, "Run this kernel set, whatever the files and the plan say")
      ->check(CLI::IsMember({"sealed", "per-role"}));
  app->add_flag("--json", o->json,
                "Print {dir, device, host, engine, generation, generation_reason, missing_kernels, width, "
                "width_source, passes: [{first_position, rows}], rows, argmax, logits_sha256, check: {identical, "
                "differing, differing_rows} or null, seconds}");
  app->footer(
      "The width is plan.json's prefill_m; a plan that states none runs one row per pass (a guessed width could "
      "overrun a device kernel's buffers). Without --host the run needs an engine plugin for the pack's device "
      "family (in <exe dir>/engines/ or TRIT_ENGINE_PATH) and holds the device's lock (trit lock status); none is "
      "found: exit 2.\nExample:\n  trit pack run /tmp/p --ids \"1 403 407 261 378 425 1209\" --host --check");
  return {app, [o] { return RunPackRun(*o); }};
}

}  // namespace trit::cli
