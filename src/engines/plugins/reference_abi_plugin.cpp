// The in-tree engine plugin: trit's reference kernels behind the C ABI of
// include/trit/engine.h, built as a shared library. It is the worked example
// of docs/ENGINES.md and what the discovery tests load: `trit run --engine
// reference-abi` must give exactly the tokens of `--engine reference`, so the
// whole path through the ABI (load, describe, forward over trit's KV cache)
// is checked for real, not just the registration.
//
// Only the one symbol `trit_engine_plugin` is exported (the build hides the
// rest), and no C++ exception leaves a function of the ABI.
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <span>

#include "base/check.h"
#include "base/thread_pool.h"
#include "model/model.h"
#include "trit/engine.h"

namespace {

void WriteMessage(char* buffer, size_t size, const char* text) {
  if (buffer != nullptr && size > 0) std::snprintf(buffer, size, "%s", text);
}

// trit's KV cache as the runtime handed it over, seen as a KvProvider.
class AbiKvProvider final : public trit::model::KvProvider {
 public:
  explicit AbiKvProvider(const trit_kv_access& access) : access_(access) {}
  trit::kernels::KvView View(int32_t seq, int64_t layer) override {
    trit_kv_view v{};
    TRIT_CHECK(access_.view(access_.ctx, seq, layer, &v) == 0);
    trit::kernels::KvView out;
    out.type = v.type == TRIT_KV_F16 ? trit::kernels::KvType::kF16 : trit::kernels::KvType::kF32;
    out.k = v.k;
    out.v = v.v;
    out.row_stride = v.row_stride;
    return out;
  }

 private:
  trit_kv_access access_;
};

}  // namespace

// The opaque handle of the ABI: a model bound to the reference kernels, and
// the plugin's own thread pool (resized when the host asks another count).
struct trit_model {
  std::unique_ptr<trit::model::Model> model;
  std::unique_ptr<trit::ThreadPool> pool;
};

namespace {

int32_t Available(void*, char*, size_t) { return 1; }  // scalar C++: runs on any CPU trit runs on

trit_model* LoadModel(void*, const char* path, char* error, size_t error_size) {
  try {
    trit::Expected<std::unique_ptr<trit::model::Model>> m =
        trit::model::LoadModel(path, trit::model::LoadOptions{.kernels = trit::kernels::KernelSet::kReference});
    if (!m.ok()) {
      WriteMessage(error, error_size, m.status().message().c_str());
      return nullptr;
    }
    auto* handle = new trit_model;
    handle->model = std::move(m).value();
    return handle;
  } catch (const std::exception& e) {
    WriteMessage(error, error_size, e.what());
    return nullptr;
  }
}

int32_t DescribeModel(const trit_model* model, trit_model_info* out) {
  const trit::model::HParams& h = model->model->hparams();
  std::memset(out, 0, sizeof *out);
  std::snprintf(out->architecture, sizeof out->architecture, "%s", h.architecture.c_str());
  out->n_vocab = h.n_vocab;
  out->n_ctx_train = h.n_ctx_train;
  out->n_embd = h.n_embd;
  out->n_layer = h.n_layer;
  out->n_head = h.n_head;
  out->n_head_kv = h.n_head_kv;
  out->head_dim = h.head_dim;
  return 0;
}

int32_t Forward(trit_model* model, const trit_forward_batch* batch, const trit_kv_access* kv, int32_t n_threads,
                float* logits, char* error, size_t error_size) {
  try {
    if (n_threads < 1) {
      WriteMessage(error, error_size, "n_threads must be at least 1");
      return 1;
    }
    if (!model->pool || model->pool->n_threads() != n_threads) model->pool = std::make_unique<trit::ThreadPool>(n_threads);
    const auto rows = static_cast<size_t>(batch->n_rows);
    trit::model::ForwardBatch b;
    b.tokens = std::span<const int32_t>(batch->tokens, rows);
    b.positions = std::span<const int32_t>(batch->positions, rows);
    b.seqs = std::span<const int32_t>(batch->seqs, rows);
    b.logit_rows = std::span<const int32_t>(batch->logit_rows, static_cast<size_t>(batch->n_logit_rows));
    AbiKvProvider provider(*kv);
    model->model->Forward(b, provider, *model->pool, logits);
    return 0;
  } catch (const std::exception& e) {
    WriteMessage(error, error_size, e.what());
    return 1;
  }
}

void FreeModel(trit_model* model) { delete model; }

const char* const kAliases[] = {"refabi", nullptr};
const char* const kCapabilities[] = {"generate", nullptr};
const char* const kFormats[] = {"gguf", nullptr};

int32_t RegisterEngines(const trit_engine_host* host, char* error, size_t error_size) {
  trit_engine e{};
  e.struct_size = sizeof e;
  e.name = "reference-abi";
  e.aliases = kAliases;
  e.priority = 5;  // below the built-in reference (10): chosen only when pinned
  e.capabilities = kCapabilities;
  e.formats = kFormats;
  e.ctx = nullptr;
  e.available = &Available;
  e.load_model = &LoadModel;
  e.describe_model = &DescribeModel;
  e.forward = &Forward;
  e.free_model = &FreeModel;
  if (host->add_engine(host->ctx, &e) != 0) {
    WriteMessage(error, error_size, "the host refused engine 'reference-abi'");
    return 1;
  }
  return 0;
}

}  // namespace

extern "C" TRIT_ENGINE_EXPORT const trit_plugin_entry trit_engine_plugin = {
    TRIT_ENGINE_ABI_VERSION, 0, "trit's scalar reference kernels through the C plugin ABI", &RegisterEngines};
