// File: a mapped GGUF file, its parsed header and indexes by key and name.
#include "base/check.h"
#include "formats/gguf/lookup.h"
#include "formats/gguf/reader.h"

namespace trit::gguf {

Expected<File> File::Open(const std::string& path) {
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();  // already names the path
  auto header = ParseHeader(mapped->bytes());
  if (!header.ok()) return header.status().WithContext(path);

  File file;
  file.mapped_ = std::move(mapped).value();
  file.header_ = std::move(header).value();
  // Keys and names are unique (ParseHeader refuses duplicates).
  for (size_t i = 0; i < file.header_.metadata.size(); ++i) {
    file.metadata_index_.emplace(file.header_.metadata[i].key, i);
  }
  for (size_t i = 0; i < file.header_.tensors.size(); ++i) {
    file.tensor_index_.emplace(file.header_.tensors[i].name, i);
  }
  return file;
}

const Value* File::Find(std::string_view key) const {
  const auto it = metadata_index_.find(key);
  return it == metadata_index_.end() ? nullptr : &header_.metadata[it->second].value;
}

const TensorInfo* File::FindTensor(std::string_view name) const {
  const auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &header_.tensors[it->second];
}

Expected<std::string> File::GetString(std::string_view key) const { return ValueAsString(key, Find(key)); }
Expected<uint64_t> File::GetUint(std::string_view key) const { return ValueAsUint(key, Find(key)); }
Expected<int64_t> File::GetInt(std::string_view key) const { return ValueAsInt(key, Find(key)); }
Expected<float> File::GetFloat(std::string_view key) const { return ValueAsFloat(key, Find(key)); }
Expected<bool> File::GetBool(std::string_view key) const { return ValueAsBool(key, Find(key)); }
Expected<const Array*> File::GetArray(std::string_view key) const { return ValueAsArray(key, Find(key)); }

std::span<const uint8_t> File::TensorData(const TensorInfo& tensor) const {
  auto range = TensorBytes(mapped_.bytes(), header_, tensor);
  TRIT_CHECK(range.ok());  // every tensor of header_ was checked against this mapping by ParseHeader
  return *range;
}

}  // namespace trit::gguf
