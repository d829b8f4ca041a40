// A file of vectors or logits, as `trit compare` reads it: an .npy file
// (formats/npy/npy_file.h) or JSON (formats/vectors/json_vectors.h), told
// apart by its first bytes, never by its name: the .npy magic "\x93NUMPY",
// or JSON text starting with '[' or '{' (after whitespace and a UTF-8 byte
// order mark). Either way the result is rows x columns of doubles.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::vectors {

enum class VectorFormat { kNpy, kJson };

const char* VectorFormatName(VectorFormat format);  // "npy", "json"

struct VectorTable {
  VectorFormat format = VectorFormat::kNpy;
  std::string detail;          // "npy 1.0, <f4" or "JSON, OpenAI embeddings response"
  std::vector<int64_t> shape;  // as stored: {n} for one vector, {rows, columns}
  int64_t n_rows = 0;          // shape {n} is one row of n
  int64_t n_cols = 0;
  std::vector<double> values;  // (n_rows, n_cols), row-major

  // "(3, 4)" or "(5,)", as numpy prints a shape.
  std::string ShapeText() const;
};

// Sniffs and parses a whole file's bytes. Errors name the format tried and
// what is wrong; bytes that are neither format are refused naming their
// first byte.
Expected<VectorTable> ParseVectorFile(std::span<const uint8_t> bytes);

// Reads `path` and parses it; errors are prefixed with the path.
Expected<VectorTable> ReadVectorFile(const std::string& path);

}  // namespace trit::vectors
