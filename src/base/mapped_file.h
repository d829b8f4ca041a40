// A read-only memory mapping of a whole file. Weights are viewed in place,
// never copied (docs/DESIGN.md, contract 6). Move-only; unmaps on destruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/status.h"

namespace trit {

class MappedFile {
 public:
  // Maps `path` read-only. An empty file maps to an empty span. Errors name the path.
  static Expected<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void Reset();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Drops the pages wholly inside `range` (a part of a read-only private file
// mapping, such as MappedFile's) from this process's memory; touching them
// again reads them back from the file. For weights that were copied into
// another layout at load (kernels/repack.h). Advice only: a failure changes
// nothing but the memory used.
void ReleaseMappedPages(std::span<const uint8_t> range);

}  // namespace trit
