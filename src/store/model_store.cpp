#include "store/model_store.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/check.h"
#include "store/model_name.h"
#include "store/models_home.h"
#include "store/store_lock.h"

namespace trit::store {

namespace fs = std::filesystem;

Expected<ModelStore> ModelStore::OpenDefault() {
  Expected<std::string> dir = ModelsDir();
  if (!dir.ok()) return dir.status();
  return ModelStore(*dir);
}

Status ModelStore::EnsureDir() const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: cannot create the models directory: {}", dir_, ec.message());
  return Status::Ok();
}

ModelPaths ModelStore::PathsFor(const std::string& name) const {
  TRIT_CHECK(ValidateModelName(name).ok());
  auto path = [&](std::string_view suffix) { return fmt::format("{}/{}{}", dir_, name, suffix); };
  return {path(".gguf"), path(kManifestSuffix), path(".gguf.partial"), path(".gguf.partial.source"), path(".lock")};
}

StoreEntry ModelStore::Check(const std::string& name) const {
  StoreEntry e;
  e.name = name;
  e.paths = PathsFor(name);
  Expected<Manifest> m = ReadManifest(e.paths.manifest);
  if (!m.ok()) {
    e.problem = m.status().message();
    return e;
  }
  if (m->name != name) {
    e.problem = fmt::format("manifest names '{}', not '{}'", m->name, name);
    return e;
  }
  e.manifest = *m;
  std::error_code ec;
  const fs::file_status st = fs::status(e.paths.model, ec);
  if (ec || !fs::exists(st)) {
    e.problem = "model file is gone";
  } else if (!fs::is_regular_file(st)) {
    e.problem = "model path is not a regular file";
  } else if (const uint64_t size = fs::file_size(e.paths.model, ec); ec || size != m->size) {
    e.problem = fmt::format("model file has {} bytes, the manifest says {}", ec ? 0 : size, m->size);
  } else {
    e.present = true;
  }
  return e;
}

std::vector<StoreEntry> ModelStore::Scan() const {
  std::vector<StoreEntry> out;
  std::error_code ec;
  for (const fs::directory_entry& d : fs::directory_iterator(dir_, ec)) {
    const std::string file = d.path().filename().string();
    if (!file.ends_with(kManifestSuffix)) continue;
    const std::string name(std::string_view(file).substr(0, file.size() - kManifestSuffix.size()));
    if (!ValidateModelName(name).ok()) continue;  // not one of ours
    out.push_back(Check(name));
  }
  std::sort(out.begin(), out.end(), [](const StoreEntry& a, const StoreEntry& b) { return a.name < b.name; });
  return out;
}

Expected<StoreEntry> ModelStore::Find(const std::string& name) const {
  if (Status s = ValidateModelName(name); !s.ok()) return s;
  const ModelPaths paths = PathsFor(name);
  std::error_code ec;
  if (!fs::exists(paths.manifest, ec)) {
    return Error(ErrorCode::kNotFound, "no model named '{}' in {} (see trit models list)", name, dir_);
  }
  return Check(name);
}

std::vector<StoreEntry> ModelStore::CleanStale() const {
  std::vector<StoreEntry> removed;
  for (StoreEntry& e : Scan()) {
    if (e.present) continue;
    Expected<StoreLock> lock = StoreLock::Acquire(e.paths.lock, StoreLock::Wait::kNo);
    if (!lock.ok()) continue;  // a pull of this name is running; it decides
    const StoreEntry again = Check(e.name);
    if (again.present) continue;
    std::error_code ec;
    fs::remove(e.paths.manifest, ec);
    // A file of the wrong size is not the model the manifest described.
    if (e.manifest.has_value() && fs::exists(e.paths.model, ec)) fs::remove(e.paths.model, ec);
    removed.push_back(std::move(e));
  }
  return removed;
}

Status ModelStore::Remove(const std::string& name) const {
  if (Status s = ValidateModelName(name); !s.ok()) return s;
  const ModelPaths p = PathsFor(name);
  std::error_code ec;
  const bool any = fs::exists(p.manifest, ec) || fs::exists(p.model, ec) || fs::exists(p.partial, ec);
  if (!any) return Error(ErrorCode::kNotFound, "no model named '{}' in {} (see trit models list)", name, dir_);
  Expected<StoreLock> lock = StoreLock::Acquire(p.lock, StoreLock::Wait::kNo);
  if (!lock.ok()) return Error(ErrorCode::kIo, "model '{}' is being pulled by another trit process; try again after it", name);
  // Manifest first: from here on nothing lists the model, whatever happens next.
  for (const std::string& path : {p.manifest, p.model, p.partial, p.partial_source}) {
    fs::remove(path, ec);
    if (ec) return Error(ErrorCode::kIo, "{}: cannot remove: {}", path, ec.message());
  }
  // The lock file stays: a pull waiting on it must lock the same file a later pull opens.
  return Status::Ok();
}

}  // namespace trit::store
