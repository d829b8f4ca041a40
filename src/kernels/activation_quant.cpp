// QuantizeRows with Highway (every target, dispatched at run time) and the
// scalar definition it is tested against. Both give the same bits for finite
// inputs: the block maximum is exact in any order, x * (127 / amax) is one
// rounding per lane, and rounding to nearest even and the clamp are exact.
#include "kernels/activation_quant.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/activation_quant.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace trit::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block of `block` (a multiple of 32) floats.
void QuantizeBlockKernel(const float* src, int64_t block, int8_t* dst, float* scale, int32_t* sum, int32_t* sum32,
                         int32_t* sum16) {
  const hn::CappedTag<float, 8> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<int8_t, decltype(df)> d8;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  auto amax_v = hn::Zero(df);
  for (int64_t i = 0; i < block; i += n) amax_v = hn::Max(amax_v, hn::Abs(hn::LoadU(df, src + i)));
  const float amax = hn::GetLane(hn::MaxOfLanes(df, amax_v));
  const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
  const auto inv_v = hn::Set(df, inv);
  const auto lo = hn::Set(df, -127.0f);
  const auto hi = hn::Set(df, 127.0f);
  int32_t total = 0;
  // Partial sums per 16 only where they are kept (n <= 8 lanes: whole vectors either way).
  const int64_t part_len = sum16 != nullptr ? 16 : 32;
  for (int64_t s = 0; s < block; s += part_len) {
    auto acc = hn::Zero(di);
    for (int64_t i = s; i < s + part_len; i += n) {
      const auto v = hn::Min(hn::Max(hn::Round(hn::LoadU(df, src + i) * inv_v), lo), hi);
      const auto q = hn::ConvertTo(di, v);
      hn::StoreU(hn::DemoteTo(d8, q), d8, dst + i);
      acc = acc + q;
    }
    const int32_t part = hn::GetLane(hn::SumOfLanes(di, acc));
    if (sum16 != nullptr) sum16[s / 16] = part;
    if (s % 32 == 0) {
      sum32[s / 32] = part;
    } else {
      sum32[s / 32] += part;
    }
    total += part;
  }
  *scale = amax / 127.0f;
  *sum = total;
}

}  // namespace HWY_NAMESPACE
}  // namespace trit::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace trit::kernels {

HWY_EXPORT(QuantizeBlockKernel);

namespace {

void Prepare(int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out) {
  TRIT_CHECK(block > 0 && n_cols % block == 0 && n_rows >= 0);
  out.n_rows = n_rows;
  out.n_cols = n_cols;
  out.block = block;
  const int64_t n_blocks = n_cols / block;
  out.q.resize(static_cast<size_t>(n_rows * n_cols));
  out.scale.resize(static_cast<size_t>(n_rows * n_blocks));
  out.sum.resize(static_cast<size_t>(n_rows * n_blocks));
  out.sum32.assign(block % 32 == 0 ? static_cast<size_t>(n_rows * n_cols / 32) : 0, 0);
  out.sum16.assign(block % 256 == 0 ? static_cast<size_t>(n_rows * n_cols / 16) : 0, 0);
}

// Blocks [begin, end) of x (counted over all rows) into `out` (prepared).
void QuantizeBlocks(const float* x, int64_t begin, int64_t end, QuantizedRows& out) {
  const auto kernel = HWY_DYNAMIC_DISPATCH(QuantizeBlockKernel);
  const int64_t block = out.block;
  for (int64_t b = begin; b < end; ++b) {
    kernel(x + b * block, block, out.q.data() + b * block, &out.scale[static_cast<size_t>(b)],
           &out.sum[static_cast<size_t>(b)], out.sum32.data() + b * block / 32,
           out.sum16.empty() ? nullptr : out.sum16.data() + b * block / 16);
  }
}

}  // namespace

void QuantizeRows(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out) {
  if (block % 32 != 0) {
    QuantizeRowsScalar(x, n_rows, n_cols, block, out);
    return;
  }
  Prepare(n_rows, n_cols, block, out);
  QuantizeBlocks(x, 0, n_rows * (n_cols / block), out);
}

void QuantizeRows(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out, ThreadPool& pool) {
  if (block % 32 != 0 || n_rows < 2) {
    QuantizeRows(x, n_rows, n_cols, block, out);
    return;
  }
  Prepare(n_rows, n_cols, block, out);
  const int64_t n_blocks = n_cols / block;
  pool.ParallelFor(n_rows, [&](int64_t begin, int64_t end) { QuantizeBlocks(x, begin * n_blocks, end * n_blocks, out); });
}

void QuantizeRowsScalar(const float* x, int64_t n_rows, int64_t n_cols, int64_t block, QuantizedRows& out) {
  Prepare(n_rows, n_cols, block, out);
  const int64_t n_blocks = n_cols / block;
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
      if (!out.sum16.empty()) out.sum16[static_cast<size_t>((b * block + i) / 16)] += dst[i];
    }
    out.scale[static_cast<size_t>(b)] = amax / 127.0f;
    out.sum[static_cast<size_t>(b)] = sum;
  }
}

}  // namespace trit::kernels
#endif  // HWY_ONCE
