// trit_verify: every row's logits of one pass (Session::Verify, the
// speculative verifier's call); and trit_embed, refused until embeddings exist.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "api/model_handle.h"
#include "runtime/session.h"

extern "C" {

trit_status trit_verify(const trit_model* model, const int32_t* ids, size_t n_ids, float* out_logits,
                        size_t out_capacity) {
  return trit::api::Guarded("trit_verify", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (n_ids == 0) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "trit_verify: no ids");
    if (ids == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "ids is NULL with a count");
    const size_t n_vocab = static_cast<size_t>(model->hparams().n_vocab);
    if (n_ids > std::numeric_limits<size_t>::max() / n_vocab || out_capacity < n_ids * n_vocab) {
      return Fail(TRIT_STATUS_BUFFER_TOO_SMALL,
                  fmt::format("out_capacity {} floats: {} rows of {} logits need {}", out_capacity, n_ids, n_vocab,
                              n_ids <= std::numeric_limits<size_t>::max() / n_vocab ? fmt::format("{}", n_ids * n_vocab)
                                                                                     : std::string("more than fits")));
    }
    if (out_logits == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "out_logits is NULL");
    if (static_cast<int64_t>(n_ids) > model->n_ctx) {
      return Fail(TRIT_STATUS_INVALID_ARGUMENT,
                  fmt::format("{} ids: the context holds {} (trit_model_options.n_ctx)", n_ids, model->n_ctx));
    }
    trit::runtime::SessionOptions so;
    so.n_ctx = model->n_ctx;
    so.n_threads = model->n_threads;
    trit::Expected<std::unique_ptr<trit::runtime::Session>> session =
        model->engine->CreateSession(*model->model, so);
    if (!session.ok()) return Fail(session.status());
    trit::Expected<trit::runtime::Logits> logits = (*session)->Verify(std::span<const int32_t>(ids, n_ids));
    if (!logits.ok()) return Fail(logits.status());
    std::copy(logits->values.begin(), logits->values.end(), out_logits);
    return Succeed();
  });
}

trit_status trit_embed(const trit_model* model, const char* /*text*/, size_t /*text_len*/, float* /*out*/,
                       size_t /*capacity*/, size_t* n_out) {
  return trit::api::Guarded("trit_embed", [&]() -> trit_status {
    if (n_out != nullptr) *n_out = 0;
    return trit::api::Fail(TRIT_STATUS_UNSUPPORTED,
                           fmt::format("trit_embed: embeddings are not implemented in trit yet{}{}; nothing was computed",
                                       model != nullptr ? " (model " : "", model != nullptr ? model->path + ")" : ""));
  });
}

}  // extern "C"
