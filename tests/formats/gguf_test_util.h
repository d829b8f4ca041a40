// Helpers for the GGUF tests: whole-file reads, a byte builder for crafted
// files, and a scratch directory removed at the end of a test.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace trit::testing {

inline std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Appends little-endian GGUF encodings; pos() is the offset of the next byte,
// so a test can state the exact offset an error must name.
class GgufBuilder {
 public:
  uint64_t pos() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  GgufBuilder& U8(uint8_t v) { return Put(v); }
  GgufBuilder& U32(uint32_t v) { return Put(v); }
  GgufBuilder& U64(uint64_t v) { return Put(v); }
  GgufBuilder& I64(int64_t v) { return Put(v); }
  GgufBuilder& Str(std::string_view s) {
    U64(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  GgufBuilder& Zeros(size_t n) {
    bytes_.resize(bytes_.size() + n, 0);
    return *this;
  }
  GgufBuilder& PadTo(uint64_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
    return *this;
  }
  // "GGUF", version, tensor_count, kv_count.
  GgufBuilder& Preamble(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    U32(0x46554747);
    U32(version);
    U64(n_tensors);
    return U64(n_kv);
  }
  // One tensor info.
  GgufBuilder& Tensor(std::string_view name, const std::vector<int64_t>& shape, uint32_t type, uint64_t offset) {
    Str(name);
    U32(static_cast<uint32_t>(shape.size()));
    for (int64_t ne : shape) I64(ne);
    U32(type);
    return U64(offset);
  }

 private:
  template <typename T>
  GgufBuilder& Put(T v) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

// The 524-byte file the GGUF fuzz target stopped on (issue 24), rebuilt: v3,
// no tensors, four metadata keys, one of them `general.alignment` = 2^30.
// Before the alignment was bounded it parsed, and writing it back padded its
// header to 1 GiB.
inline GgufBuilder HugeAlignmentFile() {
  GgufBuilder b;
  b.Preamble(0, 4);
  b.Str("general.architecture").U32(8).Str("llama");
  b.Str("general.alignment").U32(4).U32(1u << 30);
  b.Str("general.name").U32(8).Str("trit fuzz finding");
  b.Str("general.description").U32(8).Str(std::string(334, 'x'));
  return b;
}

// A fresh directory under the system temp dir, removed with its contents.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag)
      : path_(std::filesystem::temp_directory_path() /
              ("trit-" + tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace trit::testing
