#include "quant/types.h"

#include <array>
#include <cctype>

#include "base/check.h"
#include "base/checked_math.h"
#include "quant/block_formats.h"
#include "quant/float_types.h"
#include "quant/i2s_quants.h"
#include "quant/iq_quants.h"
#include "quant/k_quants.h"
#include "quant/legacy_quants.h"
#include "quant/mxfp4_quants.h"
#include "quant/ternary_quants.h"

namespace trit::quant {
namespace {

using T = GgmlType;

// The one table. Names, block sizes and bytes per block are ggml's
// (ggml.c type_traits, ggml-common.h block structs); sizes come from the
// structs in block_formats.h, whose static_asserts pin them to ggml's.
constexpr std::array<TypeInfo, 33> kTypes = {{
    {T::kF32, "f32", 1, 4, DequantizeRowF32, QuantizeRowF32},
    {T::kF16, "f16", 1, 2, DequantizeRowF16, QuantizeRowF16},
    {T::kQ4_0, "q4_0", kQK4_0, sizeof(BlockQ4_0), DequantizeRowQ4_0, QuantizeRowQ4_0, QuantizeRowWeightedQ4_0},
    {T::kQ4_1, "q4_1", kQK4_1, sizeof(BlockQ4_1), DequantizeRowQ4_1, QuantizeRowQ4_1, QuantizeRowWeightedQ4_1},
    {T::kQ5_0, "q5_0", kQK5_0, sizeof(BlockQ5_0), DequantizeRowQ5_0, QuantizeRowQ5_0, QuantizeRowWeightedQ5_0},
    {T::kQ5_1, "q5_1", kQK5_1, sizeof(BlockQ5_1), DequantizeRowQ5_1, QuantizeRowQ5_1, QuantizeRowWeightedQ5_1},
    {T::kQ8_0, "q8_0", kQK8_0, sizeof(BlockQ8_0), DequantizeRowQ8_0, QuantizeRowQ8_0},
    {T::kQ8_1, "q8_1", kQK8_1, sizeof(BlockQ8_1), nullptr, nullptr},
    {T::kQ2_K, "q2_K", kQK_K, sizeof(BlockQ2_K), DequantizeRowQ2_K, nullptr},
    {T::kQ3_K, "q3_K", kQK_K, sizeof(BlockQ3_K), DequantizeRowQ3_K, nullptr},
    {T::kQ4_K, "q4_K", kQK_K, sizeof(BlockQ4_K), DequantizeRowQ4_K, QuantizeRowQ4_K, QuantizeRowWeightedQ4_K},
    {T::kQ5_K, "q5_K", kQK_K, sizeof(BlockQ5_K), DequantizeRowQ5_K, QuantizeRowQ5_K, QuantizeRowWeightedQ5_K},
    {T::kQ6_K, "q6_K", kQK_K, sizeof(BlockQ6_K), DequantizeRowQ6_K, QuantizeRowQ6_K, QuantizeRowWeightedQ6_K},
    {T::kQ8_K, "q8_K", kQK_K, sizeof(BlockQ8_K), DequantizeRowQ8_K, nullptr},
    {T::kIQ2_XXS, "iq2_xxs", kQK_K, sizeof(BlockIQ2_XXS), nullptr, nullptr},
    {T::kIQ2_XS, "iq2_xs", kQK_K, sizeof(BlockIQ2_XS), nullptr, nullptr},
    {T::kIQ3_XXS, "iq3_xxs", kQK_K, sizeof(BlockIQ3_XXS), nullptr, nullptr},
    {T::kIQ1_S, "iq1_s", kQK_K, sizeof(BlockIQ1_S), nullptr, nullptr},
    {T::kIQ4_NL, "iq4_nl", kQK4_NL, sizeof(BlockIQ4_NL), DequantizeRowIQ4_NL, QuantizeRowIQ4_NL, QuantizeRowWeightedIQ4_NL},
    {T::kIQ3_S, "iq3_s", kQK_K, sizeof(BlockIQ3_S), nullptr, nullptr},
    {T::kIQ2_S, "iq2_s", kQK_K, sizeof(BlockIQ2_S), nullptr, nullptr},
    {T::kIQ4_XS, "iq4_xs", kQK_K, sizeof(BlockIQ4_XS), DequantizeRowIQ4_XS, QuantizeRowIQ4_XS, QuantizeRowWeightedIQ4_XS},
    {T::kI8, "i8", 1, 1, nullptr, nullptr},
    {T::kI16, "i16", 1, 2, nullptr, nullptr},
    {T::kI32, "i32", 1, 4, nullptr, nullptr},
    {T::kI64, "i64", 1, 8, nullptr, nullptr},
    {T::kF64, "f64", 1, 8, nullptr, nullptr},
    {T::kIQ1_M, "iq1_m", kQK_K, sizeof(BlockIQ1_M), nullptr, nullptr},
    {T::kBF16, "bf16", 1, 2, DequantizeRowBF16, QuantizeRowBF16},
    {T::kTQ1_0, "tq1_0", kQK_K, sizeof(BlockTQ1_0), DequantizeRowTQ1_0, QuantizeRowTQ1_0},
    {T::kTQ2_0, "tq2_0", kQK_K, sizeof(BlockTQ2_0), DequantizeRowTQ2_0, QuantizeRowTQ2_0},
    // bitnet.cpp's fork: 128 values per 32 bytes, one scale per tensor after the rows.
    {T::kI2_S, "i2_s", kQKI2S, 32, nullptr, nullptr, nullptr, kI2STrailerBytes},
    {T::kMXFP4, "mxfp4", kQKMxfp4, sizeof(BlockMxfp4), DequantizeRowMXFP4, QuantizeRowMXFP4},
}};

constexpr bool IdsAscending() {
  for (size_t i = 1; i < kTypes.size(); ++i) {
    if (static_cast<uint32_t>(kTypes[i - 1].type) >= static_cast<uint32_t>(kTypes[i].type)) return false;
  }
  return true;
}
static_assert(IdsAscending(), "kTypes must list each type once, in id order");

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

const TypeInfo* FindType(uint32_t id) {
  for (const TypeInfo& info : kTypes) {
    if (static_cast<uint32_t>(info.type) == id) return &info;
  }
  return nullptr;
}

const TypeInfo& GetType(GgmlType type) {
  const TypeInfo* info = FindType(static_cast<uint32_t>(type));
  TRIT_CHECK(info != nullptr);
  return *info;
}

const TypeInfo* FindTypeByName(std::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (EqualsIgnoreCase(info.name, name)) return &info;
  }
  return nullptr;
}

std::span<const TypeInfo> AllTypes() { return kTypes; }

Expected<uint64_t> RowBytes(const TypeInfo& type, int64_t n_elements) {
  if (n_elements < 0) {
    return Error(ErrorCode::kInvalidArgument, "type {}: negative element count {}", type.name, n_elements);
  }
  if (n_elements % type.block_size != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 "type {}: {} elements is not a multiple of the block size {}", type.name, n_elements,
                 type.block_size);
  }
  const auto bytes = CheckedMul(static_cast<uint64_t>(n_elements / type.block_size),
                                static_cast<uint64_t>(type.type_size));
  if (!bytes) {
    return Error(ErrorCode::kInvalidArgument, "type {}: {} elements overflow a 64-bit byte count",
                 type.name, n_elements);
  }
  return *bytes;
}

Expected<uint64_t> TensorBytes(const TypeInfo& type, int64_t n_elements) {
  Expected<uint64_t> rows = RowBytes(type, n_elements);
  if (!rows.ok()) return rows;
  const auto bytes = CheckedAdd(*rows, type.tensor_trailer);
  if (!bytes) {
    return Error(ErrorCode::kInvalidArgument, "type {}: {} elements overflow a 64-bit byte count", type.name,
                 n_elements);
  }
  return *bytes;
}

}  // namespace trit::quant
