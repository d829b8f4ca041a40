// Moving weight matrices into the row-group layout (kernels/repack.h) that
// the optimized kernels read faster, for any architecture's weights.
#pragma once

#include <cstdint>
#include <span>

#include "base/huge_buffer.h"
#include "kernels/matmul.h"

namespace trit::model {

// Copies every matrix of `matrices` that kernels::ShouldRepack picks into
// one buffer (*buffer_out, which the matrices then point into) in the
// row-group layout, and drops the file's pages of each original slice by
// slice, so the peak stays about one 4 MiB slice above the model. Matrices
// it does not pick are left as they are. Returns the bytes repacked.
uint64_t RepackMatrices(std::span<kernels::Matrix* const> matrices, HugeBuffer* buffer_out);

}  // namespace trit::model
