#include "formats/safetensors/dtype.h"

#include <array>

#include "base/checked_math.h"

namespace trit::safetensors {

namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  uint32_t bits;
};

// In the order of the enum (checked below), as safetensors orders them.
constexpr std::array<DtypeInfo, 22> kDtypes = {{
    {Dtype::kBool, "BOOL", 8},
    {Dtype::kF4, "F4", 4},
    {Dtype::kF6E2M3, "F6_E2M3", 6},
    {Dtype::kF6E3M2, "F6_E3M2", 6},
    {Dtype::kU8, "U8", 8},
    {Dtype::kI8, "I8", 8},
    {Dtype::kF8E5M2, "F8_E5M2", 8},
    {Dtype::kF8E4M3, "F8_E4M3", 8},
    {Dtype::kF8E8M0, "F8_E8M0", 8},
    {Dtype::kF8E4M3Fnuz, "F8_E4M3FNUZ", 8},
    {Dtype::kF8E5M2Fnuz, "F8_E5M2FNUZ", 8},
    {Dtype::kI16, "I16", 16},
    {Dtype::kU16, "U16", 16},
    {Dtype::kF16, "F16", 16},
    {Dtype::kBF16, "BF16", 16},
    {Dtype::kI32, "I32", 32},
    {Dtype::kU32, "U32", 32},
    {Dtype::kF32, "F32", 32},
    {Dtype::kC64, "C64", 64},
    {Dtype::kF64, "F64", 64},
    {Dtype::kI64, "I64", 64},
    {Dtype::kU64, "U64", 64},
}};

constexpr bool TableFollowsEnum() {
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    if (static_cast<size_t>(kDtypes[i].dtype) != i) return false;
  }
  return true;
}
static_assert(TableFollowsEnum(), "kDtypes must list the dtypes in enum order");

constexpr std::array<Dtype, kDtypes.size()> AllInOrder() {
  std::array<Dtype, kDtypes.size()> out{};
  for (size_t i = 0; i < kDtypes.size(); ++i) out[i] = kDtypes[i].dtype;
  return out;
}
constexpr std::array<Dtype, kDtypes.size()> kAll = AllInOrder();

}  // namespace

std::string_view DtypeName(Dtype dtype) { return kDtypes[static_cast<size_t>(dtype)].name; }

uint32_t DtypeBits(Dtype dtype) { return kDtypes[static_cast<size_t>(dtype)].bits; }

std::optional<Dtype> ParseDtype(std::string_view name) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::span<const Dtype> AllDtypes() { return kAll; }

std::optional<uint64_t> DtypeBytes(Dtype dtype, uint64_t n_elements) {
  const std::optional<uint64_t> bits = CheckedMul(n_elements, DtypeBits(dtype));
  if (!bits || *bits % 8 != 0) return std::nullopt;
  return *bits / 8;
}

}  // namespace trit::safetensors
