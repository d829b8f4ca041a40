#include "cli/engines_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace trit::cli {

namespace {

std::string Join(const std::vector<std::string>& items, const char* empty) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out.empty() ? empty : out;
}

}  // namespace

nlohmann::ordered_json EnginesJson(const engines::Registry& registry) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const engines::Registry::Entry& e : registry.entries()) {
    const engines::EngineInfo& info = e.engine->info();
    nlohmann::ordered_json j;
    j["name"] = info.name;
    j["aliases"] = info.aliases;
    j["priority"] = info.priority;
    j["capabilities"] = info.capabilities;
    j["formats"] = info.formats;
    j["device_family"] = info.device_family.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(info.device_family);
    j["origin"] = info.origin;
    j["available"] = e.availability.available;
    j["reason"] = e.availability.available ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.availability.reason);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json PluginDirectoriesJson(const std::vector<engines::PluginDirectory>& dirs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const engines::PluginDirectory& d : dirs) {
    std::error_code ec;
    out.push_back({{"path", d.path}, {"source", d.source}, {"exists", std::filesystem::is_directory(d.path, ec)}});
  }
  return out;
}

std::string PluginDirectoriesText(const std::vector<engines::PluginDirectory>& dirs) {
  std::string out = "plugins are looked for in:\n";
  for (const engines::PluginDirectory& d : dirs) out += "  " + engines::PluginDirectoryText(d) + "\n";
  return out;
}

std::string EnginesText(const engines::Registry& registry) {
  size_t width = 6;
  size_t device_width = 6;
  for (const engines::Registry::Entry& e : registry.entries()) {
    width = std::max(width, e.engine->info().name.size());
    device_width = std::max(device_width, e.engine->info().device_family.size());
  }
  std::string out = fmt::format("{:<{}}  {:>8}  {:<9}  {:<12}  {:<8}  {:<{}}  {}\n", "ENGINE", width, "PRIORITY",
                                "AVAILABLE", "CAPABILITIES", "FORMATS", "DEVICE", device_width, "ORIGIN");
  std::string reasons;
  for (const engines::Registry::Entry& e : registry.entries()) {
    const engines::EngineInfo& info = e.engine->info();
    out += fmt::format("{:<{}}  {:>8}  {:<9}  {:<12}  {:<8}  {:<{}}  {}\n", info.name, width, info.priority,
                       e.availability.available ? "yes" : "no", Join(info.capabilities, "-"), Join(info.formats, "-"),
                       info.device_family.empty() ? "-" : info.device_family, device_width, info.origin);
    if (!info.aliases.empty()) reasons += fmt::format("  {}: also answers to {}\n", info.name, Join(info.aliases, ""));
    if (!e.availability.available) reasons += fmt::format("  {}: unavailable: {}\n", info.name, e.availability.reason);
  }
  return out + reasons;
}

}  // namespace trit::cli
