#include "engines/default_registry.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "engines/builtin_engines.h"

namespace trit::engines {

std::vector<PluginDirectory> Discovery::Directories() const {
  return PluginDirectories(exe_dir, engine_path ? engine_path->c_str() : nullptr);
}

Discovery DiscoveryFromEnvironment() {
  Discovery d;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) d.exe_dir = exe.parent_path().string();
  if (const char* p = std::getenv("TRIT_ENGINE_PATH"); p != nullptr) d.engine_path = p;
  return d;
}

std::unique_ptr<Registry> BuildRegistry(const Discovery& discovery) {
  auto registry = std::make_unique<Registry>();
  registry->Add(MakeCpuEngine());
  registry->Add(MakeReferenceEngine());
  registry->Add(MakePackEngine());
  LoadPlugins(discovery.Directories(), registry.get());
  return registry;
}

}  // namespace trit::engines
