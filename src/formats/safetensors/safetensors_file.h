// Reader of safetensors files, the tensors of Hugging Face checkpoints
// (huggingface/safetensors, "Format"):
//
//   u64 N (little-endian) | N bytes of UTF-8 JSON, maybe padded with spaces | the buffer
//
// The JSON is an object: tensor name -> {"dtype": "F32", "shape": [2, 3],
// "data_offsets": [begin, end]}, offsets relative to the buffer's start,
// plus an optional "__metadata__" object of string values.
//
// Every field is checked before use: the header's length against the file
// (and 100 MB, the reference implementation's bound), the JSON's nesting
// (before parsing), each dtype by name, each shape (non-negative integers,
// no overflow of the element count), each [begin, end) (inside the buffer,
// end - begin exactly the shape's bytes), no name twice, no unknown key in a
// tensor's entry, and the tensors covering the buffer exactly, with no
// overlap and no gap (the format requires it). An error names the tensor,
// the field and what was expected vs found, never a crash or an
// out-of-bounds read. The JSON stays inside the .cpp; `safetensors_reader_fuzz`
// runs ParseHeader.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "formats/safetensors/dtype.h"

namespace trit::safetensors {

// The reference implementation's bound on N (MAX_HEADER_SIZE).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::kF32;
  std::vector<int64_t> shape;  // row-major, outermost first (numpy's order; GGUF's is reversed)
  uint64_t begin = 0;          // [begin, end) in the buffer, which starts at Header::data_offset
  uint64_t end = 0;
  uint64_t n_elements = 0;     // the product of shape (1 for a scalar, shape [])

  uint64_t n_bytes() const { return end - begin; }
};

struct Header {
  uint64_t header_bytes = 0;  // N
  uint64_t data_offset = 0;   // 8 + N: where the buffer starts in the file
  uint64_t data_bytes = 0;    // the buffer's size: the rest of the file
  std::vector<TensorInfo> tensors;            // in buffer order (by begin, then end)
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// Parses the header of a whole safetensors file held in `file_bytes` (not
// retained) and checks every tensor's range against the buffer that follows.
// Errors are kCorrupt (kUnsupported for a dtype not in dtype.h's table).
Expected<Header> ParseHeader(std::span<const uint8_t> file_bytes);

// A safetensors file mapped read-only; tensors are views into the mapping,
// never copied. Move-only.
class File {
 public:
  // Maps and parses `path`. Errors are prefixed with the path.
  static Expected<File> Open(const std::string& path);

  const std::string& path() const { return mapped_.path(); }
  const Header& header() const { return header_; }
  const std::vector<TensorInfo>& tensors() const { return header_.tensors; }
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }

  // nullptr when the file has no tensor of that name.
  const TensorInfo* Find(std::string_view name) const;

  // The bytes of `tensor`, one of tensors(), inside the mapping (checked at
  // Open). Valid while this File lives.
  std::span<const uint8_t> Data(const TensorInfo& tensor) const;

 private:
  MappedFile mapped_;
  Header header_;
  std::map<std::string, size_t, std::less<>> index_;  // name -> position in tensors()
};

}  // namespace trit::safetensors
