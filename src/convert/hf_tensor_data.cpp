// Element conversion in chunks through aligned scratch arrays: the mapped
// safetensors buffer need not be aligned for float (its header length is any
// number of bytes), so elements are memcpy'd, never cast in place. Each chunk
// goes through the type table's quantizer (quant/types.h), f16 through the
// batched FloatsToHalves (the same bits, faster).
#include "convert/hf_tensor_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>

#include "base/check.h"
#include "base/half.h"
#include "convert/hf_ternary.h"

namespace trit::convert {
namespace {

// Elements per step: 16 KiB of float scratch, and a multiple of every
// block size of kHfConvertTypes (q8_0: 32), so chunks end on block boundaries.
constexpr size_t kChunk = 4096;
static_assert(kChunk % 32 == 0);

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

bool IsHfConvertType(quant::GgmlType type) {
  return std::find(std::begin(kHfConvertTypes), std::end(kHfConvertTypes), type) != std::end(kHfConvertTypes);
}

std::string HfConvertTypeNames() {
  std::string names;
  const size_t n = std::size(kHfConvertTypes);
  for (size_t i = 0; i < n; ++i) {
    names += i == 0 ? "" : i + 1 == n ? " or " : ", ";
    names += quant::GetType(kHfConvertTypes[i]).name;
  }
  return names;
}

quant::GgmlType GgufTypeFor(std::string_view gguf_name, std::span<const int64_t> gguf_shape,
                            quant::GgmlType requested) {
  const bool ternary = IsTernaryType(requested);
  TRIT_CHECK(IsHfConvertType(requested) || ternary);
  if (gguf_shape.size() <= 1 || EndsWith(gguf_name, "_norm.weight") || !EndsWith(gguf_name, ".weight") ||
      gguf_name == "position_embd.weight" || gguf_name == "token_types.weight" ||
      EndsWith(gguf_name, ".ssm_conv1d.weight") || EndsWith(gguf_name, ".ffn_gate_inp.weight")) {
    return quant::GgmlType::kF32;
  }
  // BitNet's ternary types are for its ternary weights (the caller's); the
  // other matrices (embeddings, output) f16, as bitnet.cpp's converter keeps them.
  if (ternary) return quant::GgmlType::kF16;
  // gguf-py's can_quantize: the last numpy axis, GGUF's first, a whole number of blocks.
  if (gguf_shape[0] % quant::GetType(requested).block_size != 0) return quant::GgmlType::kF16;
  return requested;
}

Status ConvertElements(safetensors::Dtype dtype, std::span<const uint8_t> src, quant::GgmlType type,
                       std::span<uint8_t> out) {
  if (dtype != safetensors::Dtype::kF32 && dtype != safetensors::Dtype::kF16 && dtype != safetensors::Dtype::kBF16) {
    return Error(ErrorCode::kUnsupported, "dtype {}: trit converts F32, F16 and BF16 tensors",
                 safetensors::DtypeName(dtype));
  }
  TRIT_CHECK(IsHfConvertType(type));
  const quant::TypeInfo& to = quant::GetType(type);
  const size_t block = static_cast<size_t>(to.block_size);
  const size_t block_bytes = static_cast<size_t>(to.type_size);
  const size_t in_size = dtype == safetensors::Dtype::kF32 ? 4 : 2;
  TRIT_CHECK(src.size() % in_size == 0);
  const size_t n = src.size() / in_size;
  TRIT_CHECK(n % block == 0 && out.size() == n / block * block_bytes);
  // Same type in and out: the bytes are already GGUF's (not BF16, whose NaNs are made quiet).
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
    uint8_t* dst = out.data() + begin / block * block_bytes;
    switch (type) {
      case quant::GgmlType::kF32:
        std::memcpy(dst, f.data(), m * 4);
        break;
      case quant::GgmlType::kF16:
        FloatsToHalves(f.data(), h.data(), static_cast<int64_t>(m));
        std::memcpy(dst, h.data(), m * 2);
        break;
      default:
        if (type == quant::GgmlType::kQ8_0) {
          // ggml's scale of a block holding inf or NaN is not a number, and its quants undefined.
          const auto bad = std::find_if(f.begin(), f.begin() + m, [](float x) { return !std::isfinite(x); });
          if (bad != f.begin() + m) {
            return Error(ErrorCode::kUnsupported,
                         "element {} is {}: q8_0 cannot hold it; convert with --type f16, bf16 or f32",
                         begin + static_cast<size_t>(bad - f.begin()), *bad);
          }
        }
        to.quantize(f.data(), dst, static_cast<int64_t>(m));
        break;
    }
  }
  return Status::Ok();
}

}  // namespace trit::convert
