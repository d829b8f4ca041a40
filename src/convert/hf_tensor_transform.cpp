// TransformTensor: row gathers for the rope permutation, an elementwise add
// with re-rounding for Gemma's norms.
#include "convert/hf_tensor_transform.h"

#include <cstring>

#include "base/half.h"

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

// F32 or F16 bytes with 1 added to every element, in that type.
std::vector<uint8_t> AddOne(safetensors::Dtype dtype, std::span<const uint8_t> src) {
  std::vector<uint8_t> out(src.size());
  if (dtype == safetensors::Dtype::kF32) {
    for (size_t at = 0; at + 4 <= src.size(); at += 4) {
      float f;
      std::memcpy(&f, src.data() + at, 4);
      f += 1.0f;
      std::memcpy(out.data() + at, &f, 4);
    }
    return out;
  }
  for (size_t at = 0; at + 2 <= src.size(); at += 2) {
    uint16_t h;
    std::memcpy(&h, src.data() + at, 2);
    // Computed in float and rounded once to half, as torch's CPU half add
    // does; where the float sum is inexact (|x| < 2^-13) both give 1.
    h = FloatToHalf(HalfToFloat(h) + 1.0f);
    std::memcpy(out.data() + at, &h, 2);
  }
  return out;
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
    case HfTransform::kNone:
      break;
  }
  out.bytes.assign(src.begin(), src.end());
  return out;
}

}  // namespace trit::convert
