#include "kernels/vocab_row.h"

#include <limits>

#include "kernels/exp_fixed.h"

namespace trit::kernels {

float RowMax(const float* x, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;  // NaN compares false: skipped
  return m;
}

double ExpWeights(const float* x, int64_t n, float shift, float scale, float* w) {
  double lanes[8] = {};
  for (int64_t i = 0; i < n; ++i) {
    w[i] = ExpFixed((x[i] - shift) * scale);
    lanes[i % 8] += static_cast<double>(w[i]);
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace trit::kernels
