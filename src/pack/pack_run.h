// The work of `trit pack run`, apart from flags and printing: ids in, every
// row's logits out, through Session::Verify (the forward pass `trit serve`
// and `trit verify` use: there is no second path), in passes of the plan's
// width with positions carried from pass to pass.
//
// The batch-check oracle (`--check`) compares each pass's rows with single
// steps that continue the SAME cache from the SAME position: before a pass
// at position p, the cache's first p tokens are copied to a second sequence
// (Session::CopyPrefix: the same bits), which then runs the pass's ids one
// at a time. Never a reset cache: a pass that starts at p > 0 is compared
// with rows that saw the same p tokens before them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/pack/plan.h"
#include "kernels/attention.h"
#include "model/model.h"

namespace trit::pack {

// The rows per pass a run uses, and where that number came from.
struct RunWidth {
  int64_t m = 1;
  std::string source;  // "plan.json prefill_m", or why one row per pass
};

// The plan's prefill_m; a plan that states none runs one row per pass (never
// a guessed width: a launch wider than the kernels' buffers corrupts memory).
RunWidth WidthFromPlan(const PackPlan& plan);

struct PassSpan {
  int64_t first_position = 0;
  int64_t rows = 0;
};

struct PackRunOptions {
  int64_t width = 1;
  bool check = false;
  int n_threads = 1;
  kernels::KvType kv_type = kernels::KvType::kF16;
};

struct PackRunResult {
  int64_t n_vocab = 0;
  std::vector<PassSpan> passes;
  std::vector<float> logits;    // (rows, n_vocab), of the passes
  std::vector<int32_t> argmax;  // (rows)
  std::string logits_sha256;    // over `logits` as little-endian float32, row by row
  // With check: rows bit-identical to (and differing from) the single steps.
  int64_t identical = 0;
  int64_t differing = 0;
  std::vector<int64_t> differing_rows;
  double seconds = 0.0;  // wall time of the passes (the oracle's steps excluded)
};

// Ids are checked against the vocabulary; the cache holds all of them.
Expected<PackRunResult> RunPackPasses(const model::Model& model, const std::vector<int32_t>& ids,
                                      const PackRunOptions& options);

}  // namespace trit::pack
