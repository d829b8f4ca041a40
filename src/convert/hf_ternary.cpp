#include "convert/hf_ternary.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "convert/hf_tensor_data.h"
#include "quant/i2s_quants.h"

namespace trit::convert {
namespace {

// Element i of little-endian `data` (F32, F16 or BF16) as float.
float LoadFloat(safetensors::Dtype dtype, const uint8_t* data, int64_t i) {
  if (dtype == safetensors::Dtype::kF32) {
    float f;
    std::memcpy(&f, data + i * 4, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, data + i * 2, 2);
  return dtype == safetensors::Dtype::kF16 ? HalfToFloat(h) : Bf16ToFloat(h);
}

bool IsFloat(safetensors::Dtype d) {
  return d == safetensors::Dtype::kF32 || d == safetensors::Dtype::kF16 || d == safetensors::Dtype::kBF16;
}

}  // namespace

bool IsTernaryType(quant::GgmlType type) {
  return type == quant::GgmlType::kI2_S || type == quant::GgmlType::kTQ2_0 || type == quant::GgmlType::kTQ1_0;
}

Expected<TernaryWeight> TernarizeAbsmean(safetensors::Dtype dtype, std::span<const uint8_t> data, int64_t n) {
  if (!IsFloat(dtype)) {
    return Error(ErrorCode::kUnsupported, "dtype {}: a BitNet master weight is F32, F16 or BF16",
                 safetensors::DtypeName(dtype));
  }
  TRIT_CHECK(static_cast<int64_t>(data.size()) == n * (safetensors::DtypeBits(dtype) / 8));
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const float w = LoadFloat(dtype, data.data(), i);
    if (!std::isfinite(w)) return Error(ErrorCode::kCorrupt, "element {} is {}: not ternarizable", i, w);
    sum += std::fabs(w);
  }
  const float mean = n > 0 ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
  const float s = 1.0f / std::max(mean, 1e-5f);  // torch: 1 / w.abs().mean().clamp(min=1e-5)
  TernaryWeight out;
  out.t.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    // torch.round rounds half to even, as nearbyint in the default mode.
    const float q = std::nearbyint(LoadFloat(dtype, data.data(), i) * s);
    out.t[static_cast<size_t>(i)] = static_cast<int8_t>(std::clamp(q, -1.0f, 1.0f));
  }
  out.scale = 1.0f / s;
  return out;
}

Expected<TernaryWeight> UnpackBitnetWeight(std::span<const uint8_t> packed, int64_t rows, int64_t cols,
                                           safetensors::Dtype scale_dtype, std::span<const uint8_t> weight_scale,
                                           WeightScaleRule rule) {
  TRIT_CHECK(rows % 4 == 0 && static_cast<int64_t>(packed.size()) == rows / 4 * cols);
  if (!IsFloat(scale_dtype)) {
    return Error(ErrorCode::kUnsupported, "weight_scale of dtype {}: expected F32, F16 or BF16",
                 safetensors::DtypeName(scale_dtype));
  }
  TRIT_CHECK(static_cast<int64_t>(weight_scale.size()) == safetensors::DtypeBits(scale_dtype) / 8);
  const float ws = LoadFloat(scale_dtype, weight_scale.data(), 0);
  if (!std::isfinite(ws) || !(ws > 0.0f)) {
    return Error(ErrorCode::kCorrupt, "weight_scale is {}: expected a finite number > 0", ws);
  }
  const int64_t packed_rows = rows / 4;
  TernaryWeight out;
  out.t.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < packed_rows; ++j) {
      const uint8_t* src = packed.data() + j * cols;
      int8_t* dst = out.t.data() + (i * packed_rows + j) * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const int code = (src[c] >> (2 * i)) & 3;
        if (code == 3) {
          return Error(ErrorCode::kCorrupt, "element [{}, {}] has code 3 (value 2): not ternary",
                       i * packed_rows + j, c);
        }
        dst[c] = static_cast<int8_t>(code - 1);
      }
    }
  }
  out.scale = rule == WeightScaleRule::kDivide ? 1.0f / ws : ws;
  return out;
}

Status WriteTernary(const TernaryWeight& w, int64_t cols, quant::GgmlType type, std::span<uint8_t> out) {
  const int64_t n = static_cast<int64_t>(w.t.size());
  const quant::TypeInfo& info = quant::GetType(type);
  TRIT_CHECK(cols > 0 && n % cols == 0 && cols % info.block_size == 0);
  if (type == quant::GgmlType::kI2_S) {
    TRIT_CHECK(out.size() == quant::I2SBytes(n));
    quant::PackI2S(w.t.data(), out.data(), n);
    quant::WriteI2STrailer(out, n, w.scale);
    return Status::Ok();
  }
  const bool ternary = IsTernaryType(type);
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float t = w.t[static_cast<size_t>(i)];
    values[static_cast<size_t>(i)] = ternary ? t : t * w.scale;
  }
  if (ternary) {
    const uint64_t row_bytes = static_cast<uint64_t>(cols / info.block_size * info.type_size);
    TRIT_CHECK(out.size() == row_bytes * static_cast<uint64_t>(n / cols));
    for (int64_t r = 0; r < n / cols; ++r) info.quantize(values.data() + r * cols, out.data() + r * row_bytes, cols);
    return Status::Ok();
  }
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float));
  return ConvertElements(safetensors::Dtype::kF32, bytes, type, out);
}

}  // namespace trit::convert
