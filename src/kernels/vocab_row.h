// Whole-vocabulary row operations for sampling (runtime/sampler.h): the
// largest logit and the unnormalised softmax weights with their sum. A row
// is 32K-262K floats and these run once per sampled token, so they are
// written to vectorise: the reference here is the scalar oracle, and
// vocab_row_optimized.h repeats it lane by lane with the same bits on every
// target (tested), so a seeded sampler draws the same tokens everywhere.
#pragma once

#include <cstdint>

namespace trit::kernels {

// The largest value of x[0..n) that is not NaN (-inf when there is none);
// n >= 1. Only the sign of a zero maximum may differ between targets.
float RowMax(const float* x, int64_t n);

// w[i] = ExpFixed((x[i] - shift) * scale) (exp_fixed.h), and returns the sum
// of the w[i] in double: element i into lane i % 8 in increasing i, the
// lanes in dot.h's tree ((0+1)+(2+3))+((4+5)+(6+7)). With shift = max and
// scale = 1 / temperature these are the softmax numerators; w[i] for the
// maximum is exactly 1.
double ExpWeights(const float* x, int64_t n, float shift, float scale, float* w);

}  // namespace trit::kernels
