#include "pack/pack_run.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>

#include "base/sha256.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace trit::pack {

static_assert(std::endian::native == std::endian::little, "logits_sha256 hashes little-endian float32 bytes");

RunWidth WidthFromPlan(const PackPlan& plan) {
  if (plan.prefill_m) return {*plan.prefill_m, "plan.json prefill_m"};
  return {1, "plan.json states no prefill_m: one row per pass"};
}

Expected<PackRunResult> RunPackPasses(const model::Model& model, const std::vector<int32_t>& ids,
                                      const PackRunOptions& options) {
  const int64_t n_vocab = model.hparams().n_vocab;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= n_vocab) {
      return Error(ErrorCode::kInvalidArgument, "--ids: id {} (item {}) is out of range, expected 0..{}", ids[i], i + 1,
                   n_vocab - 1);
    }
  }
  if (ids.empty()) return Error(ErrorCode::kInvalidArgument, "--ids: no token ids given");
  if (options.width < 1) return Error(ErrorCode::kInvalidArgument, "width {}: expected >= 1", options.width);
  runtime::SessionOptions so;
  so.n_ctx = static_cast<int64_t>(ids.size());
  so.n_seq = options.check ? 2 : 1;  // sequence 1: the oracle's single steps
  so.n_threads = options.n_threads;
  so.kv_type = options.kv_type;
  Expected<std::unique_ptr<runtime::Session>> session = runtime::Session::Create(model, so);
  if (!session.ok()) return session.status();
  runtime::Session& s = **session;

  PackRunResult r;
  r.n_vocab = n_vocab;
  r.logits.reserve(ids.size() * static_cast<size_t>(n_vocab));
  const size_t row_bytes = static_cast<size_t>(n_vocab) * sizeof(float);
  const std::span<const int32_t> all(ids);
  for (size_t p = 0; p < ids.size(); p += static_cast<size_t>(options.width)) {
    const size_t n = std::min(static_cast<size_t>(options.width), ids.size() - p);
    r.passes.push_back({static_cast<int64_t>(p), static_cast<int64_t>(n)});
    if (options.check) {
      // The oracle's sequence continues this cache from position p.
      if (Status st = s.CopyPrefix(0, 1, static_cast<int64_t>(p)); !st.ok()) return st;
    }
    const auto start = std::chrono::steady_clock::now();
    Expected<runtime::Logits> logits = s.Verify(all.subspan(p, n), 0);
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!logits.ok()) return logits.status();
    r.logits.insert(r.logits.end(), logits->values.begin(), logits->values.end());
    if (!options.check) continue;
    for (size_t j = 0; j < n; ++j) {
      Expected<runtime::Logits> one = s.Verify(all.subspan(p + j, 1), 1);
      if (!one.ok()) return one.status();
      if (std::memcmp(one->values.data(), logits->values.data() + j * static_cast<size_t>(n_vocab), row_bytes) == 0) {
        ++r.identical;
      } else {
        ++r.differing;
        r.differing_rows.push_back(static_cast<int64_t>(p + j));
      }
    }
  }
  Sha256 hash;
  for (size_t i = 0; i < ids.size(); ++i) {
    const float* row = r.logits.data() + i * static_cast<size_t>(n_vocab);
    r.argmax.push_back(runtime::Argmax(std::span<const float>(row, static_cast<size_t>(n_vocab))));
    hash.Update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(row), row_bytes));
  }
  r.logits_sha256 = hash.FinishHex();
  return r;
}

}  // namespace trit::pack
