// The work of `trit verify`, apart from its flags and printing: run ids in
// passes of `chunk` rows, then one at a time, and compare the logits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/attention.h"
#include "model/model.h"

namespace trit::runtime {

struct VerifyOptions {
  int64_t chunk = 0;  // rows per pass; 0: all in one pass
  int n_threads = 1;
  kernels::KvType kv_type = kernels::KvType::kF16;
};

struct VerifyResult {
  int64_t n_vocab = 0;
  std::vector<float> logits;        // (n_rows, n_vocab) of the chunked passes
  std::vector<int32_t> argmax;      // (n_rows)
  int64_t identical = 0;            // rows bit-identical to the one-at-a-time run
  int64_t differing = 0;
  std::string logits_sha256;        // over `logits` as little-endian float32, row by row
  double chunked_seconds = 0.0;     // wall time of the chunked passes
  double single_seconds = 0.0;      // wall time of the one-token passes
};

// Parses "1 2 3" or "1,2,3" (whitespace and/or commas). Errors name the bad item.
Expected<std::vector<int32_t>> ParseIds(const std::string& text);

Expected<VerifyResult> RunVerify(const model::Model& model, const std::vector<int32_t>& ids,
                                 const VerifyOptions& options);

}  // namespace trit::runtime
