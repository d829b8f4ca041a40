// The models directory: <dir>/<name>.gguf (the model), <name>.manifest.json
// (what it is, manifest.h), and while a pull runs <name>.gguf.partial with
// <name>.gguf.partial.source (the URL it came from, for resuming) and
// <name>.lock (one pull of a name at a time, store_lock.h).
//
// A model is present when its manifest parses and its file exists with the
// manifest's size. A pull renames the finished file into place and only
// then writes the manifest, and rm deletes the manifest first, so a process
// killed at any point never leaves something that counts as present but is
// not (docs/MODELS.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/manifest.h"

namespace trit::store {

struct ModelPaths {
  std::string model;           // <dir>/<name>.gguf
  std::string manifest;        // <dir>/<name>.manifest.json
  std::string partial;         // <dir>/<name>.gguf.partial
  std::string partial_source;  // <dir>/<name>.gguf.partial.source
  std::string lock;            // <dir>/<name>.lock
};

struct StoreEntry {
  std::string name;
  ModelPaths paths;
  std::optional<Manifest> manifest;  // absent when the manifest did not parse
  bool present = false;
  std::string problem;  // why not present: "file is gone", "file has 12 bytes, manifest says 40", ...
};

class ModelStore {
 public:
  // The store at ModelsDir() ($TRIT_HOME/models or ~/.trit/models).
  static Expected<ModelStore> OpenDefault();
  explicit ModelStore(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  // Creates the directory (and parents) if missing.
  Status EnsureDir() const;

  // Precondition: ValidateModelName(name).ok().
  ModelPaths PathsFor(const std::string& name) const;

  // Every manifest in the directory, sorted by name, each checked.
  std::vector<StoreEntry> Scan() const;
  // The entry of `name`: kNotFound when it has no manifest.
  Expected<StoreEntry> Find(const std::string& name) const;

  // Deletes the manifests of entries that are not present (their files too
  // when the size is wrong), skipping names a running pull holds. Returns
  // what it removed.
  std::vector<StoreEntry> CleanStale() const;

  // Deletes the manifest, then the model file and any partial download. kNotFound when nothing of `name` exists; an error when a
  // pull of it is running.
  Status Remove(const std::string& name) const;

 private:
  StoreEntry Check(const std::string& name) const;
  std::string dir_;
};

inline constexpr std::string_view kManifestSuffix = ".manifest.json";

}  // namespace trit::store
