// The registry trit's commands use: the built-in engines, then the plugins
// found where plugin_loader.h says. This is the one place that reads the
// process's environment (its executable path and TRIT_ENGINE_PATH).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/plugin_loader.h"
#include "engines/registry.h"

namespace trit::engines {

struct Discovery {
  std::string exe_dir;                     // empty when /proc/self/exe cannot be read
  std::optional<std::string> engine_path;  // TRIT_ENGINE_PATH, when set
  std::vector<PluginDirectory> Directories() const;
};

// This process's executable directory and TRIT_ENGINE_PATH.
Discovery DiscoveryFromEnvironment();

// cpu, reference and pack, then every plugin of `discovery`'s directories.
std::unique_ptr<Registry> BuildRegistry(const Discovery& discovery);

}  // namespace trit::engines
