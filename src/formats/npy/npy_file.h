// NumPy's .npy array files (numpy.lib.format, versions 1.0, 2.0 and 3.0):
//
//   "\x93NUMPY"      6 bytes, the magic
//   major, minor     1 byte each: 1.0, 2.0 or 3.0
//   HEADER_LEN       uint16 little-endian (1.0) or uint32 (2.0, 3.0)
//   header           HEADER_LEN bytes: a Python dict literal such as
//                      {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//                    padded with spaces and ended by '\n' so that the data
//                    starts on a multiple of 64 bytes (latin-1 text; UTF-8 in 3.0)
//   data             product(shape) items of `descr`, row-major (C order)
//
// trit reads little-endian floats ('<f2', '<f4', '<f8') of one dimension (one
// vector) or two (rows x columns) in C order, and refuses anything else by
// name: Fortran order, integer and big-endian types, structured types, other
// dimension counts. Every length, the shape's product and the data size are
// checked against the bytes that are there before they are used. It writes
// float32 2-D arrays with a 1.0 header, byte for byte as numpy.save writes
// them, so that numpy reads trit's files and either side's files compare.
// `npy_reader_fuzz` runs the header parser and the reader.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::npy {

// The element types trit reads.
enum class Dtype { kF16, kF32, kF64 };

const char* DtypeDescr(Dtype dtype);  // "<f2", "<f4", "<f8"
uint64_t DtypeSize(Dtype dtype);      // 2, 4, 8

// What the preamble and header of an .npy file say.
struct Header {
  uint8_t major = 1;  // 1, 2 or 3
  uint8_t minor = 0;  // 0
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // one or two dimensions, each >= 0
  uint64_t data_offset = 0;    // where the data starts: preamble + HEADER_LEN
  uint64_t data_bytes = 0;     // product(shape) * DtypeSize(dtype), overflow-checked

  // "(3, 4)" or "(5,)", as numpy prints a shape.
  std::string ShapeText() const;
};

// Whether `bytes` starts with the .npy magic.
bool HasMagic(std::span<const uint8_t> bytes);

// Parses the preamble and header at the start of `bytes` (a whole file, or
// at least its header). Pure: reads nothing but `bytes`. Checks the magic,
// the version, that HEADER_LEN lies inside `bytes`, the dict (keys 'descr',
// 'fortran_order' and 'shape' once each, nothing else), the type and order
// trit reads, and the shape (dimensions, overflow). Does not check the data
// size; ReadArray does. Errors (kCorrupt for malformed bytes, kUnsupported
// for valid files beyond what trit reads) name the field and what was found.
Expected<Header> ParseHeader(std::span<const uint8_t> bytes);

// A whole file's array, its values widened to double (8 bytes a value,
// whatever the file's type: the comparison works in double).
struct Array {
  Header header;
  int64_t n_rows = 0;  // shape (n,) is one row of n
  int64_t n_cols = 0;
  std::vector<double> values;  // (n_rows, n_cols), row-major
};

// ParseHeader, then the data: exactly header.data_bytes must follow the
// header (fewer or more is an error naming both sizes).
Expected<Array> ReadArray(std::span<const uint8_t> bytes);

// Maps and reads `path`; errors are prefixed with the path.
Expected<Array> ReadArrayFile(const std::string& path);

// An .npy file of a float32 (n_rows, n_cols) array: a 1.0 header laid out as
// numpy.save lays it out, then `values`, row-major. Preconditions (checked):
// n_rows, n_cols >= 0 and values.size() == n_rows * n_cols.
std::vector<uint8_t> EncodeF32(int64_t n_rows, int64_t n_cols, std::span<const float> values);

// EncodeF32 written to `path` atomically (a failed write leaves no file).
Status WriteF32File(const std::string& path, int64_t n_rows, int64_t n_cols, std::span<const float> values);

}  // namespace trit::npy
