// The one table of GGML tensor element types: id (as stored in GGUF), name,
// block size (elements per block), bytes per block, and the scalar reference
// dequantizer/quantizer when trit implements one. The GGUF reader, the size
// checks, `trit quantize` and the kernels all read this table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"

namespace trit::quant {

// Values are GGML's `enum ggml_type`; they are stored in GGUF tensor infos.
enum class GgmlType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kIQ2_XXS = 16,
  kIQ2_XS = 17,
  kIQ3_XXS = 18,
  kIQ1_S = 19,
  kIQ4_NL = 20,
  kIQ3_S = 21,
  kIQ2_S = 22,
  kIQ4_XS = 23,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kIQ1_M = 29,
  kBF16 = 30,
  kTQ1_0 = 34,
  kTQ2_0 = 35,
  kI2_S = 36,  // bitnet.cpp's fork only (upstream ggml retired 36 with IQ4_NL_4_4)
  kMXFP4 = 39,
};

// Converts `n` elements (a multiple of block_size) from blocks at `src` to floats at `dst`.
using DequantizeFn = void (*)(const void* src, float* dst, int64_t n);
// Converts `n` floats (a multiple of block_size) at `src` into blocks at `dst`.
using QuantizeFn = void (*)(const float* src, void* dst, int64_t n);

// Converts one row of `n` floats (a multiple of block_size) into blocks,
// weighing column i's error by importance[i] (non-negative; an importance
// matrix's mean squared activation of that column).
using QuantizeWeightedFn = void (*)(const float* src, void* dst, int64_t n, const float* importance);

struct TypeInfo {
  GgmlType type;
  std::string_view name;  // GGML's lower-case name: "f32", "q4_0", "q4_K", "tq1_0"
  int64_t block_size;     // elements per block
  int64_t type_size;      // bytes per block
  DequantizeFn dequantize;  // nullptr: trit cannot read this type's values
  QuantizeFn quantize;      // nullptr: trit cannot produce this type
  // nullptr: the type takes no importance weights (f32/f16/bf16, q8_0 and the
  // ternary types, which llama-quantize quantizes the same with or without an
  // importance matrix) or trit cannot produce it.
  QuantizeWeightedFn quantize_weighted = nullptr;
  // Bytes a whole tensor of this type has after its rows: 32 for I2_S (its
  // one float scale, quant/i2s_quants.h), 0 for every ggml type. Such a
  // type's values need the whole tensor, so it has no row dequantizer.
  uint64_t tensor_trailer = 0;
};

// The entry for a raw GGUF type id; nullptr when the id is not a known type.
const TypeInfo* FindType(uint32_t id);
// The entry for `type` (always present).
const TypeInfo& GetType(GgmlType type);
// The entry whose name matches case-insensitively ("Q4_K" or "q4_k"); nullptr if none.
const TypeInfo* FindTypeByName(std::string_view name);
// Every known type, in id order.
std::span<const TypeInfo> AllTypes();

// Bytes of a whole tensor of `n_elements` elements: RowBytes plus the
// type's tensor_trailer. Errors as RowBytes does.
Expected<uint64_t> TensorBytes(const TypeInfo& type, int64_t n_elements);

// Bytes taken by `n_elements` elements of `type`. Errors when n_elements is
// negative or not a multiple of the block size, or the size overflows.
Expected<uint64_t> RowBytes(const TypeInfo& type, int64_t n_elements);

}  // namespace trit::quant
