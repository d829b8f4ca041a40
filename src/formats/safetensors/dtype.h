// The element types of safetensors files, as the "dtype" field of a tensor
// names them (huggingface/safetensors, safetensors/src/tensor.rs, 0.8): one
// table of name and bits per element, used by the reader for tensor sizes
// and by the converters (later) to pick a conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace trit::safetensors {

enum class Dtype {
  kBool,
  kF4,        // float4 e2m1, two elements a byte
  kF6E2M3,    // float6, four elements in three bytes
  kF6E3M2,
  kU8,
  kI8,
  kF8E5M2,
  kF8E4M3,
  kF8E8M0,    // the scale type of MX formats
  kF8E4M3Fnuz,
  kF8E5M2Fnuz,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kC64,       // complex, two float32
  kF64,
  kI64,
  kU64,
};

// "F32", "BF16", "F8_E4M3", ... as written in the file.
std::string_view DtypeName(Dtype dtype);
// Bits per element: 4 and 6 for the packed float types, else 8 x bytes.
uint32_t DtypeBits(Dtype dtype);
// The dtype a file's name stands for; nullopt for a name not in the table.
std::optional<Dtype> ParseDtype(std::string_view name);
// Every dtype, in table order (for listing the known names in an error).
std::span<const Dtype> AllDtypes();

// The bytes `n_elements` of `dtype` take: n_elements x bits / 8. nullopt
// when that overflows or does not end on a byte boundary (an odd count of
// F4 elements), which the format does not allow.
std::optional<uint64_t> DtypeBytes(Dtype dtype, uint64_t n_elements);

}  // namespace trit::safetensors
