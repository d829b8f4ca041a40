// trit_model_load: the MODEL argument to a path (a file or a store name),
// then engines::LoadedModel::Open, the loader `trit run` and `trit serve`
// use too.
#include "api/c_struct.h"
#include "api/model_handle.h"
#include "store/resolve.h"
#include "store/source.h"

namespace trit::api {
namespace {

constexpr size_t kModelOptionsV1Size = 40;  // ABI 1's sizeof(trit_model_options): never lower it
static_assert(sizeof(trit_model_options) >= kModelOptionsV1Size);

// A file path as given, or the path of the store's model of that name. URLs
// are refused: a library call should not start a download (trit pull does).
Expected<std::string> ResolveModel(const std::string& arg) {
  if (store::IsHttpUrl(arg) || store::IsHubPath(arg)) {
    return Error(ErrorCode::kInvalidArgument,
                 "trit_model_options.model '{}': a URL is not loaded by the C API; pull it first (trit pull {}) "
                 "and load it by name",
                 arg, arg);
  }
  return store::ResolveModelArgument(arg);  // never pulls for a path or a name
}

// The registry's "--engine NAME: why" (the CLI's wording) as the C API's.
Status EngineRefused(const Status& status) {
  std::string message = status.message();
  if (message.starts_with("--engine ")) message.erase(0, 2);
  return Status(ErrorCode::kInvalidArgument, "trit_model_options." + message);
}

}  // namespace

bool CheckModel(const trit_model* model, trit_status* status) noexcept {
  if (model != nullptr) return true;
  *status = Fail(TRIT_STATUS_INVALID_ARGUMENT, "model is NULL");
  return false;
}

Status LoadModel(const trit_model_options& options, std::unique_ptr<trit_model>* out) {
  if (options.model == nullptr || options.model[0] == '\0') {
    return Error(ErrorCode::kInvalidArgument, "trit_model_options.model: a GGUF path or a store name is required");
  }
  if (options.reserved != 0) {  // a field a later ABI may give a meaning: not silently ignored
    return Error(ErrorCode::kUnsupported, "trit_model_options.reserved is {}: expected 0", options.reserved);
  }
  if (options.n_threads < 0) {
    return Error(ErrorCode::kInvalidArgument, "trit_model_options.n_threads {}: expected 0 (one per hardware thread) or more",
                 options.n_threads);
  }
  if (options.n_ctx < 0) {
    return Error(ErrorCode::kInvalidArgument, "trit_model_options.n_ctx {}: expected 0 (the model's) or more", options.n_ctx);
  }
  TRIT_ASSIGN_OR_RETURN(const std::string path, ResolveModel(options.model));
  engines::LoadOptions load;
  load.engine = options.engine != nullptr ? options.engine : "";
  load.n_threads = options.n_threads;
  load.n_ctx = options.n_ctx;
  bool pin_rejected = false;
  Expected<engines::LoadedModel> loaded = engines::LoadedModel::Open(path, load, &pin_rejected);
  if (!loaded.ok()) return pin_rejected ? EngineRefused(loaded.status()) : loaded.status();
  *out = std::make_unique<trit_model>(std::move(loaded).value());
  return Status::Ok();
}

}  // namespace trit::api

extern "C" {

void trit_model_options_default(trit_model_options* options) {
  if (options == nullptr) return;
  *options = trit_model_options{};
  options->struct_size = sizeof(trit_model_options);
}

trit_status trit_model_load(const trit_model_options* options, trit_model** out_model) {
  return trit::api::Guarded("trit_model_load", [&]() -> trit_status {
    using namespace trit::api;
    if (out_model == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "out_model is NULL");
    *out_model = nullptr;
    if (options == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "options is NULL");
    trit_model_options opt;
    trit_model_options_default(&opt);
    if (trit_status s = ReadCStruct(options, "trit_model_options", kModelOptionsV1Size, &opt); s != TRIT_STATUS_OK) {
      return s;
    }
    std::unique_ptr<trit_model> model;
    if (trit::Status s = LoadModel(opt, &model); !s.ok()) return Fail(s);
    *out_model = model.release();
    return Succeed();
  });
}

void trit_model_free(trit_model* model) { delete model; }  // destructors do not throw

}  // extern "C"
