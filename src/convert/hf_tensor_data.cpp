// Element conversion in chunks through aligned scratch arrays: the mapped
// safetensors buffer need not be aligned for float (its header length is any
// number of bytes), so elements are memcpy'd, never cast in place.
#include "convert/hf_tensor_data.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/check.h"
#include "base/half.h"

namespace trit::convert {
namespace {

constexpr size_t kChunk = 4096;  // elements per step: 16 KiB of float scratch

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Reads elements [begin, begin + n) of `src` as float into `dst`.
void LoadFloats(safetensors::Dtype dtype, const uint8_t* src, size_t begin, size_t n, float* dst) {
  switch (dtype) {
    case safetensors::Dtype::kF32:
      std::memcpy(dst, src + begin * 4, n * 4);
      return;
    case safetensors::Dtype::kF16:
    case safetensors::Dtype::kBF16: {
      std::array<uint16_t, kChunk> h;
      std::memcpy(h.data(), src + begin * 2, n * 2);
      for (size_t i = 0; i < n; ++i) dst[i] = dtype == safetensors::Dtype::kF16 ? HalfToFloat(h[i]) : Bf16ToFloat(h[i]);
      return;
    }
    default:
      TRIT_CHECK(false);
  }
}

}  // namespace

quant::GgmlType GgufTypeFor(std::string_view gguf_name, size_t n_dims, quant::GgmlType requested) {
  if (n_dims <= 1 || EndsWith(gguf_name, "_norm.weight") || !EndsWith(gguf_name, ".weight") ||
      gguf_name == "position_embd.weight" || gguf_name == "token_types.weight") {
    return quant::GgmlType::kF32;
  }
  return requested;
}

Status ConvertElements(safetensors::Dtype dtype, std::span<const uint8_t> src, quant::GgmlType type,
                       std::span<uint8_t> out) {
  if (dtype != safetensors::Dtype::kF32 && dtype != safetensors::Dtype::kF16 && dtype != safetensors::Dtype::kBF16) {
    return Error(ErrorCode::kUnsupported, "dtype {}: trit converts F32, F16 and BF16 tensors",
                 safetensors::DtypeName(dtype));
  }
  TRIT_CHECK(type == quant::GgmlType::kF32 || type == quant::GgmlType::kF16);
  const size_t in_size = dtype == safetensors::Dtype::kF32 ? 4 : 2;
  const size_t out_size = type == quant::GgmlType::kF32 ? 4 : 2;
  TRIT_CHECK(src.size() % in_size == 0 && out.size() / out_size == src.size() / in_size &&
             out.size() % out_size == 0);
  const size_t n = src.size() / in_size;
  // Same type in and out: the bytes are already GGUF's.
  if ((dtype == safetensors::Dtype::kF32 && type == quant::GgmlType::kF32) ||
      (dtype == safetensors::Dtype::kF16 && type == quant::GgmlType::kF16)) {
    if (n != 0) std::memcpy(out.data(), src.data(), src.size());
    return Status::Ok();
  }
  std::array<float, kChunk> f;
  std::array<uint16_t, kChunk> h;
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t m = std::min(kChunk, n - begin);
    LoadFloats(dtype, src.data(), begin, m, f.data());
    if (type == quant::GgmlType::kF32) {
      std::memcpy(out.data() + begin * 4, f.data(), m * 4);
    } else {
      FloatsToHalves(f.data(), h.data(), static_cast<int64_t>(m));
      std::memcpy(out.data() + begin * 2, h.data(), m * 2);
    }
  }
  return Status::Ok();
}

}  // namespace trit::convert
