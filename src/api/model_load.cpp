// trit_model_load: the MODEL argument to a path (a file or a store name),
// the engine the registry chooses or the caller pins, then the tokenizer and
// the chat template, as `trit run` loads them.
#include <algorithm>
#include <thread>

#include "api/c_struct.h"
#include "api/model_handle.h"
#include "engines/model_format.h"
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
  auto m = std::make_unique<trit_model>();
  Expected<std::string> path = ResolveModel(options.model);
  if (!path.ok()) return path.status();
  m->path = *path;

  const std::string engine = options.engine != nullptr ? options.engine : "";
  bool pin_rejected = false;
  Expected<engines::OpenedModel> opened =
      engines::OpenForCapability(m->path, engines::kCapabilityGenerate, engine, &pin_rejected);
  if (!opened.ok()) return pin_rejected ? EngineRefused(opened.status()) : opened.status();
  m->opened = std::move(opened).value();

  Expected<std::string> weights = engines::WeightsFile(m->path);  // a pack's tokenizer is in its GGUF file
  if (!weights.ok()) return weights.status();
  Expected<gguf::File> file = gguf::File::Open(*weights);
  if (!file.ok()) return file.status();
  m->file = std::make_unique<gguf::File>(std::move(file).value());
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*m->file);
  if (!tok.ok()) return tok.status().WithContext(m->path);
  m->tokenizer = std::move(tok).value();

  if (m->file->Find("tokenizer.chat_template") == nullptr) {
    m->chat_template_error = Error(ErrorCode::kUnsupported, "{}: the model has no chat template (tokenizer.chat_template)", m->path);
  } else {
    Expected<std::string> source = m->file->GetString("tokenizer.chat_template");
    Expected<chat::ChatTemplate> tmpl = source.ok() ? chat::ChatTemplate::Compile(*source)
                                                    : Expected<chat::ChatTemplate>(source.status());
    if (tmpl.ok()) {
      m->chat_template = std::move(tmpl).value();
    } else {
      m->chat_template_error = Status(ErrorCode::kUnsupported, tmpl.status().WithContext(m->path + ": the chat template").message());
    }
  }

  m->n_threads = options.n_threads > 0 ? options.n_threads
                                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  m->n_ctx = options.n_ctx > 0 ? options.n_ctx : m->hparams().n_ctx_train;
  *out = std::move(m);
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
