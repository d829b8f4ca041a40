#include "cli/engine_option.h"

#include "cli/command.h"

namespace trit::cli {

void AddEngineOption(CLI::App* app, std::string* engine) {
  app->add_option("--engine", *engine,
                  "Run on this engine (a name or alias that `trit backends` lists); default: the highest-priority "
                  "available engine that accepts the model. A pin that cannot be honoured exits 2");
}

Expected<EngineModel> OpenModel(const std::string& path, const std::string& capability, const std::string& engine,
                                int* exit_code) {
  bool pin_rejected = false;
  Expected<EngineModel> out = engines::OpenForCapability(path, capability, engine, &pin_rejected);
  *exit_code = out.ok() ? kExitSuccess : pin_rejected ? kExitUsage : kExitFailure;
  return out;
}

}  // namespace trit::cli
