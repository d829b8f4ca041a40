// TransformTensor: row gathers for the rope permutation, an elementwise add
// with re-rounding for Gemma's norms.
#include "convert/hf_tensor_transform.h"

#include <cmath>
#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_formats.h"

namespace trit::convert {
namespace {

Expected<std::vector<uint8_t>> PermuteRope(int64_t n_head, const std::vector<int64_t>& shape,
                                           std::span<const uint8_t> src) {
  if (shape.empty() || n_head <= 0 || shape[0] % (2 * n_head) != 0) {
    return Error(ErrorCode::kInvalidArgument, "rope permutation: {} rows do not split into {} heads of pairs",
                 shape.empty() ? 0 : shape[0], n_head);
  }
  const size_t n_rows = static_cast<size_t>(shape[0]);
  const size_t row_bytes = src.size() / n_rows;
  const size_t half = n_rows / static_cast<size_t>(n_head) / 2;
  std::vector<uint8_t> out(src.size());
  for (size_t h = 0; h < static_cast<size_t>(n_head); ++h) {
    for (size_t i = 0; i < half; ++i) {
      for (size_t j = 0; j < 2; ++j) {
        const size_t to = h * 2 * half + 2 * i + j;
        const size_t from = h * 2 * half + j * half + i;
        std::memcpy(out.data() + to * row_bytes, src.data() + from * row_bytes, row_bytes);
      }
    }
  }
  return out;
}

// F32 or F16 bytes with f applied to every element, in that type.
template <typename F>
std::vector<uint8_t> Map(safetensors::Dtype dtype, std::span<const uint8_t> src, F f) {
  std::vector<uint8_t> out(src.size());
  if (dtype == safetensors::Dtype::kF32) {
    for (size_t at = 0; at + 4 <= src.size(); at += 4) {
      float x;
      std::memcpy(&x, src.data() + at, 4);
      x = f(x);
      std::memcpy(out.data() + at, &x, 4);
    }
    return out;
  }
  for (size_t at = 0; at + 2 <= src.size(); at += 2) {
    uint16_t h;
    std::memcpy(&h, src.data() + at, 2);
    h = FloatToHalf(f(HalfToFloat(h)));
    std::memcpy(out.data() + at, &h, 2);
  }
  return out;
}

// F32 or F16 bytes with 1 added to every element, in that type. For F16
// computed in float and rounded once to half, as torch's CPU half add
// does; where the float sum is inexact (|x| < 2^-13) both give 1.
std::vector<uint8_t> AddOne(safetensors::Dtype dtype, std::span<const uint8_t> src) {
  return Map(dtype, src, [](float x) { return x + 1.0f; });
}

// BF16 -> F32 (exact), as prepare_tensors' data_torch.to(torch.float32).
std::vector<uint8_t> WidenBf16(std::span<const uint8_t> src) {
  std::vector<uint8_t> out(src.size() * 2);
  for (size_t i = 0; 2 * i + 2 <= src.size(); ++i) {
    uint16_t b;
    std::memcpy(&b, src.data() + 2 * i, 2);
    const float f = Bf16ToFloat(b);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

}  // namespace

Expected<TransformedTensor> TransformTensor(HfTransform transform, int64_t n_rope_heads, safetensors::Dtype dtype,
                                            const std::vector<int64_t>& shape, std::span<const uint8_t> src) {
  if (dtype != safetensors::Dtype::kF32 && dtype != safetensors::Dtype::kF16 &&
      dtype != safetensors::Dtype::kBF16) {
    return Error(ErrorCode::kInvalidArgument, "transforming a tensor: dtype {}, expected F32, F16 or BF16",
                 safetensors::DtypeName(dtype));
  }
  TransformedTensor out{dtype, {}};
  std::vector<uint8_t> widened;
  if (dtype == safetensors::Dtype::kBF16) {
    widened = WidenBf16(src);
    src = widened;
    out.dtype = safetensors::Dtype::kF32;
  }
  switch (transform) {
    case HfTransform::kPermuteRope: {
      Expected<std::vector<uint8_t>> p = PermuteRope(n_rope_heads, shape, src);
      if (!p.ok()) return p.status();
      out.bytes = std::move(p).value();
      return out;
    }
    case HfTransform::kAddOne:
      out.bytes = AddOne(out.dtype, src);
      return out;
    case HfTransform::kNegExp:
      out.bytes = Map(out.dtype, src, [](float x) { return -std::exp(x); });
      return out;
    case HfTransform::kNone:
      break;
  }
  out.bytes.assign(src.begin(), src.end());
  return out;
}

Expected<std::vector<uint8_t>> ReorderValueHeads(const HfVHeadOrder& order, const std::vector<int64_t>& shape,
                                                 size_t element_size, std::span<const uint8_t> src) {
  if (order.n_k_heads <= 0) return std::vector<uint8_t>(src.begin(), src.end());
  if (shape.empty() || order.n_v_per_k <= 0 || order.head_dim <= 0 || order.skip < 0) {
    return Error(ErrorCode::kInvalidArgument, "value-head reorder: no axis to reorder");
  }
  const int64_t axis = order.columns ? shape.back() : shape.front();
  const int64_t heads = order.n_k_heads * order.n_v_per_k * order.head_dim;
  if (order.skip + heads != axis) {
    return Error(ErrorCode::kInvalidArgument, "value-head reorder: an axis of {} is not {} + {} x {} x {}", axis,
                 order.skip, order.n_k_heads, order.n_v_per_k, order.head_dim);
  }
  // A unit is what moves together: a whole row (rows), one element (columns).
  int64_t n_outer = 1, unit = 1;
  if (order.columns) {
    n_outer = static_cast<int64_t>(src.size() / element_size) / axis;
  } else {
    unit = static_cast<int64_t>(src.size() / element_size) / axis;
  }
  const size_t unit_bytes = static_cast<size_t>(unit) * element_size;
  const size_t head_bytes = static_cast<size_t>(order.head_dim) * unit_bytes;
  const size_t outer_bytes = static_cast<size_t>(axis) * unit_bytes;
  std::vector<uint8_t> out(src.begin(), src.end());
  for (int64_t o = 0; o < n_outer; ++o) {
    const size_t base = static_cast<size_t>(o) * outer_bytes + static_cast<size_t>(order.skip) * unit_bytes;
    for (int64_t k = 0; k < order.n_k_heads; ++k) {
      for (int64_t v = 0; v < order.n_v_per_k; ++v) {
        const size_t from = base + static_cast<size_t>(k * order.n_v_per_k + v) * head_bytes;
        const size_t to = base + static_cast<size_t>(v * order.n_k_heads + k) * head_bytes;
        std::memcpy(out.data() + to, src.data() + from, head_bytes);
      }
    }
  }
  return out;
}

Expected<std::vector<uint8_t>> PickExperts(const HfExpertsPick& pick, const std::vector<int64_t>& shape,
                                           size_t element_size, std::span<const uint8_t> src) {
  const bool rank_ok = shape.size() == 3 || (shape.size() == 2 && !pick.transpose);
  if (!rank_ok || pick.stride < 1 || pick.offset < 0 || pick.offset >= pick.stride) {
    return Error(ErrorCode::kInvalidArgument, "experts: cannot take [:, {}::{}]{} of a tensor of rank {}", pick.offset,
                 pick.stride, pick.transpose ? " of the transpose" : "", shape.size());
  }
  const size_t n_expert = static_cast<size_t>(shape[0]);
  const size_t a = static_cast<size_t>(shape[1]), b = shape.size() == 3 ? static_cast<size_t>(shape[2]) : 1;
  const size_t rows = pick.transpose ? b : a, cols = pick.transpose ? a : b;  // of t
  const size_t stride = static_cast<size_t>(pick.stride), offset = static_cast<size_t>(pick.offset);
  if (rows % stride != 0) {
    return Error(ErrorCode::kInvalidArgument, "experts: {} rows do not split {} ways", rows, stride);
  }
  if (src.size() != n_expert * a * b * element_size) {
    return Error(ErrorCode::kInvalidArgument, "experts: {} bytes for {} x {} x {} elements of {} bytes", src.size(),
                 n_expert, a, b, element_size);
  }
  const size_t out_rows = rows / stride;
  std::vector<uint8_t> out(n_expert * out_rows * cols * element_size);
  for (size_t e = 0; e < n_expert; ++e) {
    const uint8_t* from = src.data() + e * a * b * element_size;
    uint8_t* to = out.data() + e * out_rows * cols * element_size;
    for (size_t r = 0; r < out_rows; ++r) {
      const size_t row = offset + r * stride;
      if (!pick.transpose) {  // a whole row of t is a row of the source
        std::memcpy(to + r * cols * element_size, from + row * cols * element_size, cols * element_size);
        continue;
      }
      for (size_t c = 0; c < cols; ++c) {  // t[row][c] = src[c][row]
        std::memcpy(to + (r * cols + c) * element_size, from + (c * rows + row) * element_size, element_size);
      }
    }
  }
  return out;
}

void RepackMxfp4(std::span<const uint8_t> blocks, std::span<const uint8_t> scales, std::span<uint8_t> out) {
  constexpr size_t kHalf = quant::kQKMxfp4 / 2;  // 16 bytes of codes
  const size_t n = scales.size();
  TRIT_CHECK(blocks.size() == n * kHalf && out.size() == n * sizeof(quant::BlockMxfp4));
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* in = blocks.data() + i * kHalf;
    auto code = [in](size_t k) { return static_cast<uint8_t>((in[k / 2] >> (4 * (k % 2))) & 0x0F); };
    quant::BlockMxfp4 block;
    block.e = scales[i];
    for (size_t j = 0; j < kHalf; ++j) block.qs[j] = static_cast<uint8_t>(code(j) | code(j + kHalf) << 4);
    std::memcpy(out.data() + i * sizeof block, &block, sizeof block);
  }
}

}  // namespace trit::convert
