// Shared by the model tests: every row's logits of a token list run in
// passes of `chunk` rows, and a bit-for-bit comparison of two such runs
// (the batch-invariance contract, docs/DESIGN.md contract 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention.h"
#include "model/model.h"

namespace trit::testing {

// Logits of every row of `ids` (sequence 0 of a fresh session), run through
// Session::Verify in passes of `chunk` rows. Failures are test failures.
std::vector<float> ChunkedLogits(const model::Model& m, std::span<const int32_t> ids, size_t chunk, int n_threads,
                                 kernels::KvType kv = kernels::KvType::kF16);

// True when both hold exactly the same float bits.
bool SameBits(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace trit::testing
