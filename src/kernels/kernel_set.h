// Which implementation of the hot kernels a model runs. The reference set is
// the scalar oracle every optimized kernel is tested against; the optimized
// set is what `cpu` runs. A model is bound to one set when it is loaded, so
// two engines can hold the same file with different kernels side by side.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/thread_pool.h"
#include "kernels/attention.h"
#include "kernels/matmul.h"
#include "kernels/rope.h"

namespace trit::kernels {

enum class KernelSet { kOptimized, kReference };

std::string_view KernelSetName(KernelSet set);
std::optional<KernelSet> ParseKernelSet(std::string_view name);

// The entry points a forward pass calls through. Each keeps the contract of
// its reference declaration (matmul.h): a row's result does not depend on the
// batch size or the thread count.
struct Ops {
  void (*matmul)(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool) = nullptr;
  // Several matrices of one input (matmul.h's MatMulMany).
  void (*matmul_many)(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool) = nullptr;
  // Queries of one KV head over the KV cache, each with its own key count
  // (attention.h's AttendQueries).
  void (*attend)(const KvView& kv, int64_t kv_head, int64_t head_dim, std::span<const AttendQuery> queries,
                 const AttendOptions& options) = nullptr;
  // norm.h's RmsNorm, activation.h's SwiGlu and GeGlu (each row or element alone).
  void (*rms_norm)(const float* x, const float* weight, int64_t n, float eps, float* out) = nullptr;
  void (*swiglu)(const float* gate, const float* up, int64_t n, float* out) = nullptr;
  void (*geglu)(const float* gate, const float* up, int64_t n, float* out) = nullptr;
  // activation.h's SwiGluOai (gpt-oss's experts).
  void (*swiglu_oai)(const float* gate, const float* up, int64_t n, float* out) = nullptr;
  // rope.h's RopeApply (one head in place).
  void (*rope)(const RopeParams& p, const float* cos_in, const float* sin_in, float* head) = nullptr;
  // activation.h's GeluErfRow (BERT's feed-forward), in place.
  void (*gelu_erf)(float* x, int64_t n) = nullptr;
};

const Ops& OpsFor(KernelSet set);

}  // namespace trit::kernels
