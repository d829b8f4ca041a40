#include "engines/device_engine.h"

#include <algorithm>

#include "engines/model_format.h"

namespace trit::engines {

namespace {

// "a", "a and b", "a, b and c".
std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == items.size() ? " and " : ", ");
    out += items[i];
  }
  return out;
}

// Every place plugins were looked for, naming the two sources even when they
// gave no directory (plugin_loader.h: the executable's directory unknown,
// TRIT_ENGINE_PATH unset or naming none).
std::string Searched(const std::vector<PluginDirectory>& searched) {
  std::vector<std::string> places;
  const auto from = [&](const char* source) {
    return std::any_of(searched.begin(), searched.end(), [&](const PluginDirectory& d) { return d.source == source; });
  };
  if (!from(kSourceExeDir)) places.push_back("<exe dir>/engines (the executable's directory is unknown)");
  for (const PluginDirectory& d : searched) places.push_back(PluginDirectoryText(d));
  if (!from(kSourceEnginePath)) places.push_back(std::string(kSourceEnginePath) + " (unset or empty)");
  return JoinAnd(places);
}

}  // namespace

Expected<const Engine*> FindDeviceEngine(const Registry& registry, const std::string& family,
                                         const std::vector<PluginDirectory>& searched) {
  if (family.empty()) return Error(ErrorCode::kInvalidArgument, "the device family to find an engine for is empty");
  std::vector<const Registry::Entry*> able;
  std::vector<std::string> cannot;    // engines of the family that cannot run here, with why
  std::vector<std::string> unusable;  // plugin files whose family is unknown because they gave no engine
  for (const Registry::Entry& e : registry.entries()) {
    const EngineInfo& info = e.engine->info();
    if (IsUnusablePlugin(*e.engine)) {
      unusable.push_back(fmt::format("{} ({}): {}", info.name, info.origin, e.availability.reason));
      continue;
    }
    if (info.device_family != family) continue;
    if (!e.availability.available) {
      cannot.push_back(fmt::format("engine '{}' ({}) is unavailable: {}", info.name, info.origin, e.availability.reason));
    } else if (!info.Accepts(kFormatPack)) {
      cannot.push_back(fmt::format("engine '{}' ({}) does not accept {} models", info.name, info.origin, kFormatPack));
    } else {
      able.push_back(&e);
    }
  }
  if (!able.empty()) {
    const auto best = std::min_element(able.begin(), able.end(),
                                       [](const Registry::Entry* a, const Registry::Entry* b) { return Registry::Before(*a, *b); });
    return (*best)->engine.get();
  }
  std::string message =
      cannot.empty()
          ? fmt::format("no engine for device family '{}' was found (looked in {}); a device engine is a plugin that "
                        "declares device_family \"{}\" (docs/ENGINES.md)",
                        family, Searched(searched), family)
          : fmt::format("no engine for device family '{}' can run here: {} (looked in {})", family, JoinAnd(cannot),
                        Searched(searched));
  if (!unusable.empty()) {
    message += fmt::format("; plugins that could not be loaded, so their families are unknown: {}", JoinAnd(unusable));
  }
  message += "; to run the pack on this machine's CPU instead, add --host";
  return Error(ErrorCode::kUnsupported, "{}", message);
}

}  // namespace trit::engines
