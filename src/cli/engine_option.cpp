#include "cli/engine_option.h"

#include "cli/command.h"
#include "engines/default_registry.h"
#include "engines/model_format.h"

namespace trit::cli {

void AddEngineOption(CLI::App* app, std::string* engine) {
  app->add_option("--engine", *engine,
                  "Run on this engine (a name or alias that `trit backends` lists); default: the highest-priority "
                  "available engine that accepts the model. A pin that cannot be honoured exits 2");
}

Expected<EngineModel> OpenModel(const std::string& path, const std::string& capability, const std::string& engine,
                                int* exit_code) {
  *exit_code = kExitFailure;
  EngineModel out;
  out.registry = engines::BuildRegistry(engines::DiscoveryFromEnvironment());
  Expected<std::string> format = engines::SniffModelFormat(path);
  if (!format.ok()) return format.status();
  out.format = *format;
  Expected<const engines::Engine*> chosen = out.registry->Choose({capability, out.format, engine});
  if (!chosen.ok()) {
    if (!engine.empty()) {
      *exit_code = kExitUsage;
      return chosen.status().WithContext("--engine " + engine);
    }
    return chosen.status().WithContext(path);
  }
  out.engine = *chosen;
  Expected<std::unique_ptr<model::Model>> m = out.engine->LoadModel(path);
  if (!m.ok()) return m.status();
  out.model = std::move(m).value();
  *exit_code = kExitSuccess;
  return out;
}

}  // namespace trit::cli
