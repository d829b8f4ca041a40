// `trit backends [--json]`: every engine this binary has (built in, and
// plugins found in <exe dir>/engines/ and TRIT_ENGINE_PATH), whether it can
// run here and why not. The source of truth for what a binary contains.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/engines_report.h"
#include "engines/default_registry.h"

namespace trit::cli {
namespace {

struct BackendsOptions {
  bool json = false;
};

int RunBackends(const BackendsOptions& opt) {
  const engines::Discovery discovery = engines::DiscoveryFromEnvironment();
  const std::unique_ptr<engines::Registry> registry = engines::BuildRegistry(discovery);
  if (opt.json) {
    nlohmann::ordered_json j;
    j["engines"] = EnginesJson(*registry);
    j["plugin_dirs"] = PluginDirectoriesJson(discovery.Directories());
    fmt::print("{}\n", j.dump());
    return kExitSuccess;
  }
  fmt::print("{}", EnginesText(*registry));
  fmt::print("{}", PluginDirectoriesText(discovery.Directories()));
  return kExitSuccess;
}

}  // namespace

Command AddBackendsCommand(CLI::App& parent) {
  auto opt = std::make_shared<BackendsOptions>();
  CLI::App* app = parent.add_subcommand("backends", "List the engines this binary can run models on, and why any cannot");
  app->add_flag("--json", opt->json,
                "Print {\"engines\":[{name, aliases, priority, capabilities, formats, origin, available, reason}], "
                "\"plugin_dirs\":[{path, source, exists}]}");
  app->footer(
      "Engines are built in (origin \"builtin\") or plugins: shared libraries found only in <exe dir>/engines/ and in\n"
      "the directories of TRIT_ENGINE_PATH (':'-separated), never the working directory or LD_LIBRARY_PATH.\n"
      "Unpinned work goes to the highest-priority available engine that accepts the model; --engine NAME pins.\n"
      "Examples:\n  trit backends\n  TRIT_ENGINE_PATH=/opt/npu/engines trit backends --json");
  return {app, [opt] { return RunBackends(*opt); }};
}

}  // namespace trit::cli
