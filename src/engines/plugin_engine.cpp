#include "engines/plugin_engine.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engines/model_format.h"

namespace trit::engines {

namespace {

// The version-1 trit_engine before device engines: every field up to
// free_model. A plugin built against that header is a host engine.
constexpr size_t kEngineBaseSize = offsetof(trit_engine, device_family);
// The struct as it is now; fields past a plugin's struct_size are not read.
constexpr size_t kEngineDeviceSize = offsetof(trit_engine, describe_pack) + sizeof(trit_engine::describe_pack);
static_assert(kEngineDeviceSize == sizeof(trit_engine), "a field was added to trit_engine: read it only when struct_size covers it");

constexpr size_t kMaxListItems = 64;
constexpr size_t kMaxNameBytes = 128;
constexpr size_t kMessageBytes = 1024;

Expected<std::string> CopyName(const char* s, const char* field) {
  if (s == nullptr) return Error(ErrorCode::kCorrupt, "{} is NULL", field);
  const size_t n = strnlen(s, kMaxNameBytes + 1);
  if (n == 0 || n > kMaxNameBytes) {
    return Error(ErrorCode::kCorrupt, "{} must be 1..{} bytes long", field, kMaxNameBytes);
  }
  return std::string(s, n);
}

Expected<std::vector<std::string>> CopyList(const char* const* list, const char* field, bool may_be_null) {
  std::vector<std::string> out;
  if (list == nullptr) {
    if (may_be_null) return out;
    return Error(ErrorCode::kCorrupt, "{} is NULL", field);
  }
  for (size_t i = 0; list[i] != nullptr; ++i) {
    if (i == kMaxListItems) return Error(ErrorCode::kCorrupt, "{} has more than {} items (missing NULL end?)", field, kMaxListItems);
    Expected<std::string> s = CopyName(list[i], field);
    if (!s.ok()) return s.status();
    out.push_back(std::move(s).value());
  }
  return out;
}

std::string MessageFrom(const char* buffer) { return std::string(buffer, strnlen(buffer, kMessageBytes)); }

// The runtime's KV cache, seen by the plugin through trit_kv_access.
int32_t ViewKv(void* ctx, int32_t seq, int64_t layer, trit_kv_view* out) {
  const kernels::KvView v = static_cast<model::KvProvider*>(ctx)->View(seq, layer);
  out->type = v.type == kernels::KvType::kF16 ? TRIT_KV_F16 : TRIT_KV_F32;
  out->reserved = 0;
  out->k = v.k;
  out->v = v.v;
  out->row_stride = v.row_stride;
  return 0;
}

class PluginModel final : public model::Model {
 public:
  PluginModel(const trit_engine& engine, std::string engine_name, trit_model* handle, model::HParams hparams,
              std::shared_ptr<const PluginLibrary> library)
      : engine_(engine),
        engine_name_(std::move(engine_name)),
        handle_(handle),
        hparams_(std::move(hparams)),
        library_(std::move(library)) {}
  ~PluginModel() override { engine_.free_model(handle_); }

  const model::HParams& hparams() const override { return hparams_; }
  const trit_model* handle() const { return handle_; }
  // Whether this model was loaded by the engine named `engine_name` of `library`.
  bool LoadedBy(const std::string& engine_name, const PluginLibrary* library) const {
    return engine_name == engine_name_ && library == library_.get();
  }

  void Forward(const model::ForwardBatch& batch, model::KvProvider& kv, ThreadPool& pool, float* logits) const override {
    trit_forward_batch b{};
    b.n_rows = static_cast<int64_t>(batch.tokens.size());
    b.tokens = batch.tokens.data();
    b.positions = batch.positions.data();
    b.seqs = batch.seqs.data();
    b.n_logit_rows = static_cast<int64_t>(batch.logit_rows.size());
    b.logit_rows = batch.logit_rows.data();
    const trit_kv_access access{&kv, &ViewKv};
    char error[kMessageBytes] = {};
    if (engine_.forward(handle_, &b, &access, pool.n_threads(), logits, error, sizeof error) != 0) {
      // Model::Forward has no error channel: its inputs were validated by the
      // session, so a failing plugin has broken its contract.
      std::fprintf(stderr, "trit: fatal: engine '%s' (%s) failed a forward pass: %s\n", engine_name_.c_str(),
                   library_->path.c_str(), MessageFrom(error).c_str());
      std::abort();
    }
  }

 private:
  trit_engine engine_;
  std::string engine_name_;
  trit_model* handle_;
  model::HParams hparams_;
  std::shared_ptr<const PluginLibrary> library_;
};

Expected<model::HParams> HParamsFrom(const trit_model_info& m) {
  model::HParams h;
  h.architecture = std::string(m.architecture, strnlen(m.architecture, sizeof m.architecture));
  const std::pair<const char*, int64_t> sizes[] = {{"n_vocab", m.n_vocab}, {"n_ctx_train", m.n_ctx_train},
                                                   {"n_embd", m.n_embd},   {"n_layer", m.n_layer},
                                                   {"n_head", m.n_head},   {"n_head_kv", m.n_head_kv},
                                                   {"head_dim", m.head_dim}};
  for (const auto& [name, value] : sizes) {
    if (value < 1 || value > (int64_t{1} << 30)) {
      return Error(ErrorCode::kCorrupt, "model info {} = {} is out of range 1..2^30", name, value);
    }
  }
  h.n_vocab = m.n_vocab;
  h.n_ctx_train = m.n_ctx_train;
  h.n_embd = m.n_embd;
  h.n_layer = m.n_layer;
  h.n_head = m.n_head;
  h.n_head_kv = m.n_head_kv;
  h.head_dim = m.head_dim;
  return h;
}

class PluginEngine final : public Engine {
 public:
  PluginEngine(EngineInfo info, const trit_engine& engine, std::shared_ptr<const PluginLibrary> library)
      : info_(std::move(info)), engine_(engine), library_(std::move(library)) {}

  const EngineInfo& info() const override { return info_; }

  Availability Available() const override {
    char reason[kMessageBytes] = {};
    if (engine_.available(engine_.ctx, reason, sizeof reason) == 1) return {true, ""};
    return {false, MessageFrom(reason)};
  }

  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const override {
    char error[kMessageBytes] = {};
    trit_model* handle = engine_.load_model(engine_.ctx, path.c_str(), error, sizeof error);
    if (handle == nullptr) {
      return Error(ErrorCode::kCorrupt, "engine '{}' could not load {}: {}", info_.name, path, MessageFrom(error));
    }
    trit_model_info m{};
    if (engine_.describe_model(handle, &m) != 0) {
      engine_.free_model(handle);
      return Error(ErrorCode::kCorrupt, "engine '{}' could not describe the model it loaded from {}", info_.name, path);
    }
    Expected<model::HParams> h = HParamsFrom(m);
    if (!h.ok()) {
      engine_.free_model(handle);
      return h.status().WithContext(fmt::format("engine '{}' ({})", info_.name, library_->path));
    }
    return std::unique_ptr<model::Model>(
        std::make_unique<PluginModel>(engine_, info_.name, handle, std::move(h).value(), library_));
  }

  Expected<PackInfo> DescribePack(const model::Model& model) const override {
    if (engine_.describe_pack == nullptr) return Engine::DescribePack(model);
    const auto* m = dynamic_cast<const PluginModel*>(&model);
    if (m == nullptr || !m->LoadedBy(info_.name, library_.get())) {
      return Error(ErrorCode::kInvalidArgument, "engine '{}' was asked to describe a model it did not load", info_.name);
    }
    trit_pack_info p{};
    if (engine_.describe_pack(m->handle(), &p) != 0) {
      return Error(ErrorCode::kCorrupt, "engine '{}' ({}) could not describe the pack it loaded", info_.name,
                   library_->path);
    }
    const size_t n = strnlen(p.generation, sizeof p.generation);
    if (n == 0 || n == sizeof p.generation) {
      return Error(ErrorCode::kCorrupt, "engine '{}' ({}): pack info generation must be 1..{} bytes and NUL-terminated",
                   info_.name, library_->path, sizeof p.generation - 1);
    }
    if (p.width < 1 || p.n_kernels < 1) {
      return Error(ErrorCode::kCorrupt, "engine '{}' ({}): pack info width = {} and n_kernels = {} must both be >= 1",
                   info_.name, library_->path, p.width, p.n_kernels);
    }
    return PackInfo{std::string(p.generation, n), p.width, p.n_kernels};
  }

 private:
  EngineInfo info_;
  trit_engine engine_;
  std::shared_ptr<const PluginLibrary> library_;
};

}  // namespace

Expected<std::unique_ptr<Engine>> AdoptPluginEngine(const trit_engine& engine,
                                                    std::shared_ptr<const PluginLibrary> library) {
  if (engine.struct_size < kEngineBaseSize) {
    return Error(ErrorCode::kCorrupt, "trit_engine.struct_size is {}, expected at least {}", engine.struct_size,
                 kEngineBaseSize);
  }
  // Only the fields the plugin's header had; the rest stay zero (a host engine).
  trit_engine copy{};
  std::memcpy(&copy, &engine, std::min<size_t>(engine.struct_size, sizeof copy));
  copy.struct_size = sizeof copy;
  EngineInfo info;
  Expected<std::string> name = CopyName(engine.name, "trit_engine.name");
  if (!name.ok()) return name.status();
  info.name = std::move(name).value();
  Expected<std::vector<std::string>> aliases = CopyList(engine.aliases, "trit_engine.aliases", true);
  if (!aliases.ok()) return aliases.status();
  info.aliases = std::move(aliases).value();
  Expected<std::vector<std::string>> caps = CopyList(engine.capabilities, "trit_engine.capabilities", false);
  if (!caps.ok()) return caps.status();
  info.capabilities = std::move(caps).value();
  Expected<std::vector<std::string>> formats = CopyList(engine.formats, "trit_engine.formats", false);
  if (!formats.ok()) return formats.status();
  info.formats = std::move(formats).value();
  info.priority = engine.priority;
  info.origin = library->path;
  if (engine.available == nullptr || engine.load_model == nullptr || engine.describe_model == nullptr ||
      engine.forward == nullptr || engine.free_model == nullptr) {
    return Error(ErrorCode::kCorrupt, "engine '{}': a function pointer of trit_engine is NULL", info.name);
  }
  if (copy.device_family != nullptr) {
    Expected<std::string> family = CopyName(copy.device_family, "trit_engine.device_family");
    if (!family.ok()) return family.status();
    info.device_family = std::move(family).value();
    if (copy.describe_pack == nullptr) {
      return Error(ErrorCode::kCorrupt, "engine '{}': device_family is '{}' but describe_pack is NULL", info.name,
                   info.device_family);
    }
    if (!info.Accepts(kFormatPack)) {
      return Error(ErrorCode::kCorrupt, "engine '{}': device_family is '{}' but formats do not list \"{}\"", info.name,
                   info.device_family, kFormatPack);
    }
  } else {
    copy.describe_pack = nullptr;  // a host engine has no pack to describe
  }
  return std::unique_ptr<Engine>(std::make_unique<PluginEngine>(std::move(info), copy, std::move(library)));
}

}  // namespace trit::engines
