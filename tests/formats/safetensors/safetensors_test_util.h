// Helpers for the safetensors tests: a writer of valid files (its own, no
// JSON library: the reader under test must not check its own output), the
// same layout from hand-written header text for crafted files, and a scratch
// directory removed at the end of a test.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trit::safetensors::testing {

struct TestTensor {
  std::string name;  // plain ASCII: written into the JSON as it is
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

// Bytes 0, 1, 2, ... (mod 251), so that each tensor's bytes differ.
inline std::vector<uint8_t> Counting(size_t n, uint8_t start = 0) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((start + i) % 251);
  return out;
}

// u64 length | header text padded with spaces to a multiple of 8 | buffer.
inline std::vector<uint8_t> FileFromHeader(std::string header, const std::vector<uint8_t>& buffer) {
  while (header.size() % 8 != 0) header.push_back(' ');
  // Sized once and copied into (GCC 12 warns, wrongly, on insert() after a short vector).
  std::vector<uint8_t> out(8 + header.size() + buffer.size());
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, header.data(), header.size());
  if (!buffer.empty()) std::memcpy(out.data() + 8 + header.size(), buffer.data(), buffer.size());
  return out;
}

// The header text of `tensors` laid out in order from buffer offset 0.
inline std::string HeaderText(const std::vector<TestTensor>& tensors,
                              const std::map<std::string, std::string>& metadata = {}) {
  std::string text = "{";
  if (!metadata.empty()) {
    text += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      text += fmt::format("{}\"{}\":\"{}\"", first ? "" : ",", k, v);
      first = false;
    }
    text += "}";
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TestTensor& t = tensors[i];
    text += fmt::format("{}\"{}\":{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
                        i == 0 && metadata.empty() ? "" : ",", t.name, t.dtype, fmt::join(t.shape, ","), offset,
                        offset + t.data.size());
    offset += t.data.size();
  }
  return text + "}";
}

// A valid file holding `tensors` in order.
inline std::vector<uint8_t> WriteSafetensors(const std::vector<TestTensor>& tensors,
                                             const std::map<std::string, std::string>& metadata = {}) {
  std::vector<uint8_t> buffer;
  for (const TestTensor& t : tensors) buffer.insert(buffer.end(), t.data.begin(), t.data.end());
  return FileFromHeader(HeaderText(tensors, metadata), buffer);
}

inline void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline void WriteText(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// A fresh directory under the system temp dir, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "trit-safetensors-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  bool ok() const { return !path_.empty(); }
  std::string dir() const { return path_.string(); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace trit::safetensors::testing
