// vocab_row.h's RowMax and ExpWeights with SIMD, compiled per Highway target
// and dispatched at run time: the same arithmetic lane by lane (ExpFixed by
// exp_fixed-inl.h, the sum in the same 8 double lanes and tree), so each
// returns the reference's bits on every target. Max is exact in any order.
#pragma once

#include <cstdint>

namespace trit::kernels {

float RowMaxOptimized(const float* x, int64_t n);
double ExpWeightsOptimized(const float* x, int64_t n, float shift, float scale, float* w);

}  // namespace trit::kernels
