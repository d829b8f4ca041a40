// What `trit backends` and `trit doctor` say about the engines of a registry
// and the directories searched for plugins, as JSON and as text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engines/plugin_loader.h"
#include "engines/registry.h"

namespace trit::cli {

// [{name, aliases, priority, capabilities, formats, device_family (null: none),
// origin, available, reason}]
// in registry order (built-in engines first, then plugins as discovered).
nlohmann::ordered_json EnginesJson(const engines::Registry& registry);
// [{path, source, exists}]
nlohmann::ordered_json PluginDirectoriesJson(const std::vector<engines::PluginDirectory>& dirs);

// A table of the engines, one line each, then the reason of every
// unavailable engine.
std::string EnginesText(const engines::Registry& registry);

// "plugins are looked for in:" and one line per directory, "PATH (SOURCE)"
// or "PATH (SOURCE, absent)" when it is not a directory.
std::string PluginDirectoriesText(const std::vector<engines::PluginDirectory>& dirs);

}  // namespace trit::cli
