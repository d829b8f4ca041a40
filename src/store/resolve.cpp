#include "store/resolve.h"

#include <cstdio>
#include <filesystem>

#include "formats/pack/plan.h"
#include "store/model_name.h"
#include "store/model_store.h"
#include "store/progress_printer.h"
#include "store/pull.h"
#include "store/source.h"

namespace trit::store {
namespace {

namespace fs = std::filesystem;

bool IsPathLike(std::string_view arg) {
  std::error_code ec;
  return fs::exists(fs::path(std::string(arg)), ec) || arg.find('/') != std::string_view::npos ||
         arg.ends_with(".gguf");
}

}  // namespace

Expected<std::string> ResolveModelArgument(std::string_view arg) {
  return ResolveModelArgument(arg, MakeProgressPrinter(DefaultProgressStyle(stderr), stderr));
}

Expected<std::string> ResolveModelArgument(std::string_view arg, const PullObserver& observer) {
  if (IsHttpUrl(arg) || IsHubPath(arg)) {
    Expected<ModelStore> store = ModelStore::OpenDefault();
    if (!store.ok()) return store.status();
    Expected<PullResult> pulled = Pull(*store, std::string(arg), PullOptions{}, observer);
    if (!pulled.ok()) return pulled.status().WithContext(fmt::format("pulling {}", arg));
    return pulled->path;
  }
  if (IsPathLike(arg) || !ValidateModelName(arg).ok()) return std::string(arg);
  Expected<ModelStore> store = ModelStore::OpenDefault();
  if (!store.ok()) return store.status();
  Expected<StoreEntry> entry = store->Find(std::string(arg));
  if (!entry.ok()) {
    return Error(ErrorCode::kNotFound, "'{}' is not a file, a URL, or a model in {} (see trit models list)", arg,
                 store->dir());
  }
  if (!entry->present) {
    return Error(ErrorCode::kNotFound, "model '{}' in {}: {}; pull it again", arg, store->dir(), entry->problem);
  }
  return entry->paths.model;
}

bool LooksLikeModelArgument(std::string_view arg) {
  if (IsHttpUrl(arg) || IsHubPath(arg)) return true;
  std::error_code ec;
  const fs::path path(arg);
  if (fs::is_regular_file(path, ec)) return true;
  if (fs::is_directory(path, ec) && fs::is_regular_file(path / pack::kPlanFileName, ec)) return true;  // a pack
  if (!ValidateModelName(arg).ok()) return false;
  Expected<ModelStore> store = ModelStore::OpenDefault();
  if (!store.ok()) return false;
  return fs::exists(store->PathsFor(std::string(arg)).manifest, ec);
}

}  // namespace trit::store
