#include "runtime/verify_run.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstring>

#include "base/sha256.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace trit::runtime {

static_assert(std::endian::native == std::endian::little, "logits_sha256 hashes little-endian float32 bytes");

Expected<std::vector<int32_t>> ParseIds(const std::string& text) {
  std::vector<int32_t> ids;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == ',' || c == '\t' || c == '\n') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != ',' && text[end] != '\t' && text[end] != '\n') ++end;
    int32_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + end, value);
    if (ec != std::errc() || ptr != text.data() + end || value < 0) {
      return Error(ErrorCode::kInvalidArgument, "--ids: '{}' (item {}) is not a token id (an integer >= 0)",
                   text.substr(i, end - i), ids.size() + 1);
    }
    ids.push_back(value);
    i = end;
  }
  if (ids.empty()) return Error(ErrorCode::kInvalidArgument, "--ids: no token ids given");
  return ids;
}

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A session whose cache holds n_ids tokens, or the model's context when that is smaller
// (then the run is refused as a context overflow, naming both sizes).
Expected<std::unique_ptr<runtime::Session>> MakeSession(const model::Model& model, const VerifyOptions& options,
                                                        size_t n_ids) {
  runtime::SessionOptions so;
  so.n_ctx = std::min(static_cast<int64_t>(n_ids), model.hparams().n_ctx_train);
  so.n_threads = options.n_threads;
  so.kv_type = options.kv_type;
  return runtime::Session::Create(model, so);
}

// Runs ids in passes of `chunk` rows on a fresh session; logits (n, n_vocab).
Expected<std::vector<float>> RunPasses(const model::Model& model, const std::vector<int32_t>& ids, int64_t chunk,
                                       const VerifyOptions& options, double* seconds) {
  Expected<std::unique_ptr<runtime::Session>> session = MakeSession(model, options, ids.size());
  if (!session.ok()) return session.status();
  std::vector<float> all;
  all.reserve(ids.size() * static_cast<size_t>(model.hparams().n_vocab));
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < ids.size(); i += static_cast<size_t>(chunk)) {
    const size_t n = std::min(static_cast<size_t>(chunk), ids.size() - i);
    Expected<runtime::Logits> logits = (*session)->Verify(std::span<const int32_t>(ids).subspan(i, n));
    if (!logits.ok()) return logits.status();
    all.insert(all.end(), logits->values.begin(), logits->values.end());
  }
  *seconds = SecondsSince(start);
  return all;
}

}  // namespace

Expected<VerifyResult> RunVerify(const model::Model& model, const std::vector<int32_t>& ids,
                                 const VerifyOptions& options) {
  const int64_t n_vocab = model.hparams().n_vocab;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= n_vocab) {
      return Error(ErrorCode::kInvalidArgument, "--ids: id {} (item {}) is out of range, expected 0..{}", ids[i],
                   i + 1, n_vocab - 1);
    }
  }
  const int64_t n = static_cast<int64_t>(ids.size());
  const int64_t chunk = options.chunk == 0 ? n : options.chunk;
  VerifyResult r;
  r.n_vocab = n_vocab;
  Expected<std::vector<float>> chunked = RunPasses(model, ids, chunk, options, &r.chunked_seconds);
  if (!chunked.ok()) return chunked.status();
  Expected<std::vector<float>> single = RunPasses(model, ids, 1, options, &r.single_seconds);
  if (!single.ok()) return single.status();
  r.logits = std::move(*chunked);
  const size_t row_bytes = static_cast<size_t>(n_vocab) * sizeof(float);
  Sha256 hash;
  for (int64_t i = 0; i < n; ++i) {
    const float* a = r.logits.data() + i * n_vocab;
    const float* b = single->data() + i * n_vocab;
    r.argmax.push_back(runtime::Argmax(std::span<const float>(a, static_cast<size_t>(n_vocab))));
    if (std::memcmp(a, b, row_bytes) == 0) {
      ++r.identical;
    } else {
      ++r.differing;
    }
    hash.Update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(a), row_bytes));
  }
  r.logits_sha256 = hash.FinishHex();
  return r;
}

}  // namespace trit::runtime
