// Writes a file under a temporary name beside its target and renames it into
// place only when Commit() succeeds, so a failed or interrupted write never
// leaves a partial file at the target path (docs/DESIGN.md, contract 5).
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "base/status.h"

namespace trit {

class AtomicFileWriter {
 public:
  // Creates "<target>.partial-<pid>" in the target's directory.
  static Expected<AtomicFileWriter> Create(const std::string& target_path);

  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&&) = delete;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  // Removes the temporary file unless Commit() succeeded.
  ~AtomicFileWriter();

  Status Write(std::span<const uint8_t> bytes);
  Status WriteZeros(uint64_t count);
  uint64_t bytes_written() const { return bytes_written_; }

  // Flushes, syncs and renames over the target.
  Status Commit();

  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFileWriter(std::string target, std::string temp, std::FILE* file)
      : target_path_(std::move(target)), temp_path_(std::move(temp)), file_(file) {}
  void Abandon();

  std::string target_path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  uint64_t bytes_written_ = 0;
  bool committed_ = false;
};

}  // namespace trit
