#include "engines/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

#include "engines/plugin_engine.h"

namespace trit::engines {

namespace {

#if defined(__APPLE__)
constexpr const char* kPluginSuffix = ".dylib";
#else
constexpr const char* kPluginSuffix = ".so";
#endif

// Stands for a plugin file that gave no engine: listed, never chosen.
class UnusablePlugin final : public Engine {
 public:
  explicit UnusablePlugin(const std::string& path) {
    info_.name = std::filesystem::path(path).stem().string();
    info_.origin = path;
  }
  const EngineInfo& info() const override { return info_; }
  Availability Available() const override { return {false, "not loaded"}; }
  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const override {
    return Error(ErrorCode::kUnsupported, "{}: plugin {} is not usable", path, info_.origin);
  }

 private:
  EngineInfo info_;
};

// What register_engines reports through the host's add_engine.
struct Registration {
  std::shared_ptr<const PluginLibrary> library;
  std::vector<std::unique_ptr<Engine>> engines;
  std::string error;  // the first engine refused, if any
};

int32_t AddEngine(void* ctx, const trit_engine* engine) {
  auto* r = static_cast<Registration*>(ctx);
  if (engine == nullptr) {
    if (r->error.empty()) r->error = "add_engine was given NULL";
    return 1;
  }
  Expected<std::unique_ptr<Engine>> adopted = AdoptPluginEngine(*engine, r->library);
  if (!adopted.ok()) {
    if (r->error.empty()) r->error = adopted.status().message();
    return 1;
  }
  r->engines.push_back(std::move(adopted).value());
  return 0;
}

void AddUnusable(const std::string& path, std::string reason, Registry* registry) {
  registry->AddUnavailable(std::make_unique<UnusablePlugin>(path), std::move(reason));
}

}  // namespace

std::vector<PluginDirectory> PluginDirectories(const std::string& exe_dir, const char* engine_path) {
  std::vector<PluginDirectory> out;
  if (!exe_dir.empty()) out.push_back({(std::filesystem::path(exe_dir) / "engines").string(), kSourceExeDir});
  if (engine_path != nullptr) {
    std::string_view rest = engine_path;
    for (;;) {
      const size_t colon = rest.find(':');
      const std::string_view item = rest.substr(0, colon);
      // An empty item means the working directory in PATH-like lists; it is skipped on purpose.
      if (!item.empty()) out.push_back({std::filesystem::absolute(std::string(item)).lexically_normal().string(), kSourceEnginePath});
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return out;
}

std::string PluginDirectoryText(const PluginDirectory& dir) {
  std::error_code ec;
  return fmt::format("{} ({}{})", dir.path, dir.source, std::filesystem::is_directory(dir.path, ec) ? "" : ", absent");
}

std::vector<std::string> PluginFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    std::error_code type_ec;
    if (p.extension() == kPluginSuffix && std::filesystem::is_regular_file(p, type_ec)) out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void LoadPluginFile(const std::string& path, Registry* registry) {
  // RTLD_LOCAL: a plugin's symbols never satisfy another plugin's. RTLD_NOW:
  // a missing dependency is found here, not in the middle of a run.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    AddUnusable(path, fmt::format("cannot be loaded: {}", why != nullptr ? why : "dlopen failed"), registry);
    return;
  }
  // A plugin is never dlclose'd, not even one refused below: its static
  // constructors have run and may have started threads or registered exit
  // handlers, which unloading would leave pointing at unmapped code.
  dlerror();
  const auto* entry = static_cast<const trit_plugin_entry*>(dlsym(handle, TRIT_ENGINE_PLUGIN_SYMBOL));
  if (entry == nullptr) {
    AddUnusable(path, fmt::format("not a trit engine plugin: it does not export the symbol '{}'", TRIT_ENGINE_PLUGIN_SYMBOL),
                registry);
    return;
  }
  // The ABI version is the only thing read before anything of the plugin is called.
  if (entry->abi_version != TRIT_ENGINE_ABI_VERSION) {
    AddUnusable(path, fmt::format("built for engine ABI version {}, this trit speaks version {}", entry->abi_version,
                                  TRIT_ENGINE_ABI_VERSION),
                registry);
    return;
  }
  if (entry->register_engines == nullptr) {
    AddUnusable(path, "its trit_engine_plugin.register_engines is NULL", registry);
    return;
  }
  auto library = std::make_shared<PluginLibrary>();
  library->path = path;
  library->handle = handle;
  if (entry->description != nullptr) library->description = std::string(entry->description, strnlen(entry->description, 256));
  Registration registration;
  registration.library = library;
  trit_engine_host host{};
  host.abi_version = TRIT_ENGINE_ABI_VERSION;
  host.ctx = &registration;
  host.add_engine = &AddEngine;
  char error[1024] = {};
  const int32_t rc = entry->register_engines(&host, error, sizeof error);
  if (rc != 0) {
    AddUnusable(path, fmt::format("its registration failed (code {}): {}", rc, std::string(error, strnlen(error, sizeof error))),
                registry);
    return;
  }
  if (!registration.error.empty()) {
    AddUnusable(path, fmt::format("it registered an invalid engine: {}", registration.error), registry);
    return;
  }
  if (registration.engines.empty()) {
    AddUnusable(path, "its registration added no engine", registry);
    return;
  }
  for (std::unique_ptr<Engine>& e : registration.engines) registry->Add(std::move(e));
}

void LoadPlugins(const std::vector<PluginDirectory>& dirs, Registry* registry) {
  std::set<std::string> seen;
  for (const PluginDirectory& d : dirs) {
    for (const std::string& file : PluginFiles(d.path)) {
      std::error_code ec;
      const std::filesystem::path canonical = std::filesystem::weakly_canonical(file, ec);
      if (!seen.insert(ec ? file : canonical.string()).second) continue;
      LoadPluginFile(file, registry);
    }
  }
}

bool IsUnusablePlugin(const Engine& engine) { return dynamic_cast<const UnusablePlugin*>(&engine) != nullptr; }

}  // namespace trit::engines
