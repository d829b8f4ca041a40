#include "base/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace trit {

Expected<AtomicFileWriter> AtomicFileWriter::Create(const std::string& target_path) {
  std::string temp = fmt::format("{}.partial-{}", target_path, ::getpid());
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (f == nullptr) {
    return Error(ErrorCode::kIo, "{}: cannot create: {}", temp, std::strerror(errno));
  }
  return AtomicFileWriter(target_path, std::move(temp), f);
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : target_path_(std::move(other.target_path_)),
      temp_path_(std::move(other.temp_path_)),
      file_(std::exchange(other.file_, nullptr)),
      bytes_written_(other.bytes_written_),
      committed_(std::exchange(other.committed_, true)) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) Abandon();
}

void AtomicFileWriter::Abandon() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  if (!temp_path_.empty()) std::remove(temp_path_.c_str());
}

Status AtomicFileWriter::Write(std::span<const uint8_t> bytes) {
  if (file_ == nullptr) return Error(ErrorCode::kIo, "{}: write after close", temp_path_);
  if (bytes.empty()) return Status::Ok();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return Error(ErrorCode::kIo, "{}: write failed at byte {}: {}", temp_path_, bytes_written_,
                 std::strerror(errno));
  }
  bytes_written_ += bytes.size();
  return Status::Ok();
}

Status AtomicFileWriter::WriteZeros(uint64_t count) {
  static constexpr uint8_t kZeros[256] = {};
  while (count > 0) {
    const uint64_t n = count < sizeof kZeros ? count : sizeof kZeros;
    if (Status s = Write({kZeros, n}); !s.ok()) return s;
    count -= n;
  }
  return Status::Ok();
}

Status AtomicFileWriter::Commit() {
  if (file_ == nullptr) return Error(ErrorCode::kIo, "{}: commit after close", temp_path_);
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    Abandon();
    return Error(ErrorCode::kIo, "{}: cannot flush: {}", temp_path_, std::strerror(flush_errno));
  }
  if (std::rename(temp_path_.c_str(), target_path_.c_str()) != 0) {
    const int err = errno;
    Abandon();
    return Error(ErrorCode::kIo, "cannot rename {} to {}: {}", temp_path_, target_path_, std::strerror(err));
  }
  committed_ = true;
  return Status::Ok();
}

}  // namespace trit
