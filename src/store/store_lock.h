// One pull (or rm) of a model name at a time: an exclusive flock(2) on
// <models>/<name>.lock. The kernel drops it when the holder exits, even by
// kill -9, so a stale lock never blocks anyone.
#pragma once

#include <string>

#include "base/status.h"

namespace trit::store {

class StoreLock {
 public:
  enum class Wait { kNo, kYes };

  // Takes the lock on `lock_path` (created if absent). With Wait::kNo, a
  // lock held by another process is an error (ErrorCode::kUnsupported is
  // not used: the code is kIo and busy() on the result tells it apart).
  static Expected<StoreLock> Acquire(const std::string& lock_path, Wait wait);
  // True when `lock_path` is locked by another process right now.
  static bool IsHeld(const std::string& lock_path);

  StoreLock(StoreLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StoreLock& operator=(StoreLock&&) = delete;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

 private:
  explicit StoreLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The message of the error Acquire(.., Wait::kNo) returns for a held lock.
inline constexpr std::string_view kLockBusy = "held by another trit process";

}  // namespace trit::store
