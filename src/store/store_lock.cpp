#include "store/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trit::store {

Expected<StoreLock> StoreLock::Acquire(const std::string& lock_path, Wait wait) {
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error(ErrorCode::kIo, "{}: cannot open lock file: {}", lock_path, std::strerror(errno));
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | (wait == Wait::kNo ? LOCK_NB : 0));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return Error(ErrorCode::kIo, "{}: {}", lock_path, kLockBusy);
    return Error(ErrorCode::kIo, "{}: cannot lock: {}", lock_path, std::strerror(err));
  }
  return StoreLock(fd);
}

bool StoreLock::IsHeld(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the lock if we took it
  return held;
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace trit::store
