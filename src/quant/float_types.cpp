#include "quant/float_types.h"

#include <cstring>

#include "base/check.h"
#include "base/half.h"
#include "quant/block_formats.h"

namespace trit::quant {

void DequantizeRowF32(const void* src, float* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void QuantizeRowF32(const float* src, void* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void DequantizeRowF16(const void* src, float* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  const auto* p = static_cast<const uint8_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = LoadF16(p + 2 * i);
}

void QuantizeRowF16(const float* src, void* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  auto* p = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n; ++i) StoreF16(p + 2 * i, src[i]);
}

void DequantizeRowBF16(const void* src, float* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  const auto* p = static_cast<const uint8_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = Bf16ToFloat(LoadU16(p + 2 * i));
}

void QuantizeRowBF16(const float* src, void* dst, int64_t n) {
  TRIT_CHECK(n >= 0);
  auto* p = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n; ++i) StoreU16(p + 2 * i, FloatToBf16(src[i]));
}

}  // namespace trit::quant
