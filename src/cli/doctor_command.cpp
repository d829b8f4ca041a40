// `trit doctor [--json]`: what this machine and this binary can do, and what
// looks wrong, each problem with a suggested fix: CPU model and SIMD
// features, CPUs and the threads trit uses, memory, engines and their
// states, where plugins are looked for.
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "cli/command.h"
#include "cli/engines_report.h"
#include "engines/default_registry.h"
#include "engines/model_format.h"
#include "kernels/cpu_targets.h"
#include "store/models_home.h"
#include "system/system_info.h"
#include "trit/engine.h"

namespace trit::cli {
namespace {

struct DoctorOptions {
  bool json = false;
};

struct Problem {
  std::string problem;
  std::string fix;
};

// Below this much available memory even small models may fail to map and run.
constexpr uint64_t kLowMemoryBytes = uint64_t{256} << 20;

std::vector<Problem> FindProblems(const system::CpuInfo& cpu, int threads_default, const system::MemoryInfo& mem,
                                  const engines::Registry& registry, const engines::Discovery& discovery) {
  std::vector<Problem> out;
  if (threads_default > cpu.usable_cpus && cpu.usable_cpus > 0) {
    out.push_back({fmt::format("trit run starts {} threads by default but this process may use only {} CPUs "
                               "(affinity or container limit); the extra threads wait on each other",
                               threads_default, cpu.usable_cpus),
                   fmt::format("pass --threads {}", cpu.usable_cpus)});
  }
  if (mem.available_bytes && *mem.available_bytes < kLowMemoryBytes) {
    out.push_back({fmt::format("only {} MiB of memory is available", *mem.available_bytes >> 20),
                   "close other programs or use a smaller (more quantized) model"});
  }
  for (const engines::Registry::Entry& e : registry.entries()) {
    if (e.availability.available) continue;
    const engines::EngineInfo& info = e.engine->info();
    const bool plugin = info.origin != engines::kOriginBuiltin;
    std::string fix = "see the reason; this engine is part of trit itself";
    if (plugin && !info.device_family.empty()) {
      // It loaded (so it is built right); what it lacks is its device or the device's runtime.
      fix = fmt::format("run it on a machine with a {} device and its driver (see the reason), or remove {}",
                        info.device_family, info.origin);
    } else if (plugin) {
      fix = fmt::format("rebuild the plugin against include/trit/engine.h (ABI version {}) or remove {}",
                        TRIT_ENGINE_ABI_VERSION, info.origin);
    }
    out.push_back({fmt::format("engine '{}' ({}) is unavailable: {}", info.name, info.origin, e.availability.reason),
                   std::move(fix)});
  }
  if (registry.Candidates(engines::kCapabilityGenerate, engines::kFormatGguf).empty()) {
    out.push_back({"no available engine can generate from GGUF models", "reinstall trit"});
  }
  for (const engines::PluginDirectory& d : discovery.Directories()) {
    std::error_code ec;
    if (d.source != engines::kSourceExeDir && !std::filesystem::is_directory(d.path, ec)) {
      out.push_back({fmt::format("TRIT_ENGINE_PATH names {}, which is not a directory", d.path),
                     "correct TRIT_ENGINE_PATH (':'-separated directories holding engine plugins)"});
    }
  }
  return out;
}

std::string Bytes(const std::optional<uint64_t>& b) {
  return b ? fmt::format("{:.1f} GiB", static_cast<double>(*b) / (1024.0 * 1024.0 * 1024.0)) : "unknown";
}

int RunDoctor(const DoctorOptions& opt) {
  const system::CpuInfo cpu = system::ReadCpuInfo();
  const system::MemoryInfo mem = system::ReadMemoryInfo();
  // The default of `trit run --threads 0`: one thread per hardware thread.
  const int threads_default = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const engines::Discovery discovery = engines::DiscoveryFromEnvironment();
  const std::unique_ptr<engines::Registry> registry = engines::BuildRegistry(discovery);
  std::vector<Problem> problems = FindProblems(cpu, threads_default, mem, *registry, discovery);
  std::vector<std::string> runnable_targets;
  for (int64_t t : kernels::RunnableTargets()) runnable_targets.push_back(kernels::TargetName(t));
  if (Status cpu_ok = kernels::CheckCpuSupport(); !cpu_ok.ok()) {
    problems.push_back({cpu_ok.message(), "use --engine reference, or a trit build for this CPU"});
  }
  Expected<std::string> models_dir = store::ModelsDir();
  if (!models_dir.ok()) {
    problems.push_back({models_dir.status().message(), "set TRIT_HOME to a writable directory for the model store"});
  }

  if (opt.json) {
    nlohmann::ordered_json j;
    j["cpu"] = {{"model", cpu.model.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cpu.model)},
                {"arch", cpu.arch},
                {"features", cpu.features},
                {"logical_cpus", cpu.logical_cpus},
                {"usable_cpus", cpu.usable_cpus}};
    j["cpu"]["simd_target"] = kernels::ActiveTargetName();
    j["cpu"]["simd_targets_runnable"] = runnable_targets;
    j["threads_default"] = threads_default;
    j["memory"] = {{"total_bytes", mem.total_bytes ? nlohmann::ordered_json(*mem.total_bytes) : nlohmann::ordered_json(nullptr)},
                   {"available_bytes",
                    mem.available_bytes ? nlohmann::ordered_json(*mem.available_bytes) : nlohmann::ordered_json(nullptr)},
                   {"cgroup_limit_bytes", mem.cgroup_limit_bytes ? nlohmann::ordered_json(*mem.cgroup_limit_bytes)
                                                                 : nlohmann::ordered_json(nullptr)}};
    j["engines"] = EnginesJson(*registry);
    j["plugin_dirs"] = PluginDirectoriesJson(discovery.Directories());
    j["models_dir"] = models_dir.ok() ? nlohmann::ordered_json(*models_dir) : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json p = nlohmann::ordered_json::array();
    for (const Problem& pr : problems) p.push_back({{"problem", pr.problem}, {"fix", pr.fix}});
    j["problems"] = p;
    fmt::print("{}\n", j.dump());
    return kExitSuccess;
  }
  std::string features;
  for (const std::string& f : cpu.features) features += (features.empty() ? "" : " ") + f;
  fmt::print("cpu:      {} ({})\n", cpu.model.empty() ? "unknown model" : cpu.model, cpu.arch);
  fmt::print("features: {}\n", features.empty() ? "none of the SIMD extensions trit's kernels use" : features);
  std::string runnable;
  for (const std::string& t : runnable_targets) runnable += (runnable.empty() ? "" : ", ") + t;
  fmt::print("simd:     kernels run {} (runnable here: {})\n", kernels::ActiveTargetName(), runnable);
  fmt::print("cpus:     {} logical, {} usable by this process; trit run uses {} threads unless --threads says\n",
             cpu.logical_cpus, cpu.usable_cpus, threads_default);
  fmt::print("memory:   {} total, {} available{}\n", Bytes(mem.total_bytes), Bytes(mem.available_bytes),
             mem.cgroup_limit_bytes
                 ? fmt::format(" (this process's memory cgroup is limited to {})", Bytes(mem.cgroup_limit_bytes))
                 : "");
  fmt::print("engines:\n{}", EnginesText(*registry));
  fmt::print("{}", PluginDirectoriesText(discovery.Directories()));
  fmt::print("models:   {}\n", models_dir.ok() ? *models_dir : models_dir.status().message());
  if (problems.empty()) {
    fmt::print("no problems found\n");
  } else {
    fmt::print("problems:\n");
    for (const Problem& pr : problems) fmt::print("  - {}\n    fix: {}\n", pr.problem, pr.fix);
  }
  return kExitSuccess;
}

}  // namespace

Command AddDoctorCommand(CLI::App& parent) {
  auto opt = std::make_shared<DoctorOptions>();
  CLI::App* app = parent.add_subcommand("doctor", "Check this machine and binary: CPU, memory, engines, and problems with fixes");
  app->add_flag("--json", opt->json,
                "Print one JSON object: cpu {model, arch, features, logical_cpus, usable_cpus, simd_target, "
                "simd_targets_runnable}, threads_default, memory {total_bytes, available_bytes}, engines, plugin_dirs, "
                "models_dir, problems [{problem, fix}]");
  app->footer("Exit 0 whether or not problems are found; read `problems` to decide.\nExample:\n  trit doctor --json");
  return {app, [opt] { return RunDoctor(*opt); }};
}

}  // namespace trit::cli
