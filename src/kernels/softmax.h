// Softmax over one row.
#pragma once

#include <cstdint>

namespace trit::kernels {

// x (n) := exp(x - max) / sum, the sum taken in double in index order. n >= 1.
void Softmax(float* x, int64_t n);

}  // namespace trit::kernels
