// llama.cpp's importance-matrix files (what `llama-imatrix` writes), read
// for `trit quantize --imatrix`: per weight matrix, the mean of the squared
// activations each column of its input saw over a calibration text. The
// quantizers weigh a column's error by it (quant/types.h,
// QuantizeWeightedFn), so the columns the model drives hardest lose least.
//
// Both formats llama.cpp writes (facts from its tools/imatrix and
// common/imatrix-loader):
//  - GGUF, llama-imatrix's default: general.type "imatrix"; per matrix NAME an
//    f32 tensor NAME.in_sum2 (row length x matrices: one row per expert of a
//    3-D tensor) of summed squared activations and NAME.counts (1 x matrices)
//    of how many input rows each sum holds; keys imatrix.datasets (strings),
//    imatrix.chunk_count and imatrix.chunk_size.
//  - the legacy ".dat" (--output-format dat): int32 entry count; per entry an
//    int32 name length, the name, int32 ncall, int32 value count and that
//    many float32 (the mean squared activation times ncall); then, optional,
//    int32 chunk count, int32 length and the dataset's name.
// All integers and floats little-endian.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::convert {

struct ImportanceMatrix {
  enum class Format { kGguf, kLegacy };
  Format format = Format::kGguf;
  // Tensor name -> the mean squared activation per column, one row per
  // matrix (expert) one after another; normalised as llama-quantize does:
  // GGUF sums / counts (1 where a count is 0: a matrix no input reached),
  // legacy values / ncall (as stored where ncall is 0). Finite, >= 0.
  std::map<std::string, std::vector<float>, std::less<>> entries;
  std::vector<std::string> datasets;  // the calibration texts, as recorded
  int64_t chunk_count = 0;            // 0: not recorded
  int64_t chunk_size = 0;             // tokens per chunk; 0: not recorded (legacy)
  std::string path;                   // the file it was read from; empty when parsed from memory
};

// Parses a whole file held in memory; GGUF when it starts with "GGUF", else
// the legacy format. Errors name the field, entry or tensor that is wrong.
Expected<ImportanceMatrix> ParseImportanceMatrix(std::span<const uint8_t> bytes);

// Reads `path`; errors are prefixed with it.
Expected<ImportanceMatrix> ReadImportanceMatrix(const std::string& path);

std::string_view FormatName(ImportanceMatrix::Format format);

}  // namespace trit::convert
