#include "kernels/activation_quant.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace trit::kernels {

void QuantizeRows(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out) {
  TRIT_CHECK(block > 0 && n_cols % block == 0 && n_rows >= 0);
  out.n_rows = n_rows;
  out.n_cols = n_cols;
  out.block = block;
  const int64_t n_blocks = n_cols / block;
  out.q.resize(static_cast<size_t>(n_rows * n_cols));
  out.scale.resize(static_cast<size_t>(n_rows * n_blocks));
  out.sum.resize(static_cast<size_t>(n_rows * n_blocks));
  out.sum32.assign(block % 32 == 0 ? static_cast<size_t>(n_rows * n_cols / 32) : 0, 0);
  for (int64_t b = 0; b < n_rows * n_blocks; ++b) {
    const float* src = x + b * block;
    int8_t* dst = out.q.data() + b * block;
    float amax = 0.0f;
    for (int64_t i = 0; i < block; ++i) amax = std::max(amax, std::fabs(src[i]));
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    int32_t sum = 0;
    for (int64_t i = 0; i < block; ++i) {
      // nearbyint rounds to nearest even in the default mode, the same on every target.
      const float v = std::clamp(std::nearbyint(src[i] * inv), -127.0f, 127.0f);
      dst[i] = static_cast<int8_t>(v);
      sum += dst[i];
      if (!out.sum32.empty()) out.sum32[static_cast<size_t>((b * block + i) / 32)] += dst[i];
    }
    out.scale[static_cast<size_t>(b)] = amax / 127.0f;
    out.sum[static_cast<size_t>(b)] = sum;
  }
}

}  // namespace trit::kernels
