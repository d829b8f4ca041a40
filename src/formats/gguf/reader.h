// GGUF reader: versions 2 and 3, as llama.cpp's tools write them.
//
// Every count, length, offset and size is checked against the bytes that are
// there before it is used, with overflow-safe arithmetic. A corrupt,
// truncated or hostile file gives one error naming the field and the byte
// offset, never a crash, a hang, an out-of-bounds read or an allocation larger
// than a small multiple of the file size.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "formats/gguf/value.h"
#include "quant/types.h"

namespace trit::gguf {

inline constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
inline constexpr uint64_t kDefaultAlignment = 32;
// The largest `general.alignment` read or written. GGUF writers use 32
// (llama.cpp, gguf-py); 64 KiB covers aligning tensors to any common page
// size. A larger value is refused: each tensor pads to it, so a header field
// alone would decide how big a rewritten file gets (a 524-byte file asking
// for 1 GiB made `trit quantize` write 1 GiB).
inline constexpr uint64_t kMaxAlignment = 65536;
inline constexpr uint32_t kMaxDims = 4;          // GGML_MAX_DIMS
inline constexpr size_t kMaxTensorNameBytes = 63;  // llama.cpp: GGML_MAX_NAME - 1
inline constexpr uint32_t kMaxArrayDepth = 16;      // arrays within arrays: a bound, not a format limit

struct TensorInfo {
  std::string name;
  const quant::TypeInfo* type = nullptr;  // never null after a successful parse
  std::vector<int64_t> shape;             // GGUF order: shape[0] is the row length (contiguous)
  uint64_t offset = 0;                    // from the start of the data section
  uint64_t n_bytes = 0;
  int64_t n_elements = 0;
};

struct MetadataEntry {
  std::string key;
  Value value;
};

// The parsed header of a GGUF file: metadata and tensor infos. Holds no
// tensor bytes.
struct Header {
  uint32_t version = 0;
  uint64_t alignment = kDefaultAlignment;
  uint64_t data_offset = 0;   // absolute offset of the data section
  uint64_t file_size = 0;
  std::vector<MetadataEntry> metadata;  // in file order
  std::vector<TensorInfo> tensors;      // in file order
};

// Parses a whole GGUF file held in memory; `bytes` is not retained.
// Tensor data ranges are checked against bytes.size().
Expected<Header> ParseHeader(std::span<const uint8_t> bytes);

// The bytes of `tensor` inside `file`, the bytes `header` was parsed from.
// Errors (naming the tensor, its range and the file size) when the range does
// not lie inside `file`; ParseHeader has already checked this for its input.
Expected<std::span<const uint8_t>> TensorBytes(std::span<const uint8_t> file, const Header& header,
                                               const TensorInfo& tensor);

// A GGUF file mapped read-only, with zero-copy views of its tensors.
class File {
 public:
  // Maps and parses `path`. Errors are prefixed with the path.
  static Expected<File> Open(const std::string& path);

  const Header& header() const { return header_; }
  uint32_t version() const { return header_.version; }
  const std::vector<MetadataEntry>& metadata() const { return header_.metadata; }
  const std::vector<TensorInfo>& tensors() const { return header_.tensors; }
  const std::string& path() const { return mapped_.path(); }
  uint64_t file_size() const { return header_.file_size; }

  // nullptr when absent.
  const Value* Find(std::string_view key) const;
  const TensorInfo* FindTensor(std::string_view name) const;

  // Typed lookups: an error names the key and the expected vs actual type.
  // Integer lookups accept any integer type whose value fits.
  Expected<std::string> GetString(std::string_view key) const;
  Expected<uint64_t> GetUint(std::string_view key) const;
  Expected<int64_t> GetInt(std::string_view key) const;
  Expected<float> GetFloat(std::string_view key) const;  // float32 or float64
  Expected<bool> GetBool(std::string_view key) const;
  Expected<const Array*> GetArray(std::string_view key) const;

  // The tensor's bytes inside the mapping (already bounds-checked).
  std::span<const uint8_t> TensorData(const TensorInfo& tensor) const;

 private:
  MappedFile mapped_;
  Header header_;
  std::map<std::string, size_t, std::less<>> metadata_index_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
};

}  // namespace trit::gguf
