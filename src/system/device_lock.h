// An exclusive lock per accelerator device, shared by every process on the
// machine that drives it (docs/DEVICE_LOCK.md): a file <dir>/<device>.lock
// held with flock(2), so the kernel frees it when the holder dies however
// it dies (kill -9 included), and a record in that file of who holds it:
// pid, user, command line, start time. A record found in a lock nobody
// holds was left by a holder that died: it is reported as stale and taken
// over, never trusted.
//
// Host-only work never takes a device lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trit::system {

// Who holds (or held) a device: the lock file's record.
struct LockHolder {
  int64_t pid = 0;            // the process that took the lock
  int64_t child_pid = 0;      // the command it runs (trit lock run), 0 if none
  std::string user;           // user name, or "uid N"
  std::string command;        // command line, arguments joined by spaces
  int64_t started_unix = 0;   // when the lock was taken, seconds since 1970 UTC
};

// "pid 123 (alice, since 2026-12-05 03:40:00 UTC): trit pack run ..."
std::string DescribeHolder(const LockHolder& holder);

// The record's bytes (one JSON object) and back. A record that does not
// parse is an error naming what is wrong; callers treat it as stale.
std::string EncodeLockRecord(const LockHolder& holder);
Expected<LockHolder> DecodeLockRecord(const std::string& text);

// Device names are file names: 1-64 of [A-Za-z0-9._-], not starting with a dot.
Status CheckDeviceName(const std::string& device);

// This process as a holder: its pid, user and the given command line, now.
LockHolder CurrentProcessHolder(const std::vector<std::string>& command);

// True if a process with this pid exists (kill(pid, 0)).
bool ProcessRunning(int64_t pid);

class DeviceLock {
 public:
  DeviceLock() = default;
  // Adopts `fd`, which holds `device`'s lock (TryLockDevice makes these).
  DeviceLock(int fd, std::string device, std::optional<LockHolder> taken_over)
      : fd_(fd), device_(std::move(device)), taken_over_(std::move(taken_over)) {}
  DeviceLock(DeviceLock&& other) noexcept;
  DeviceLock& operator=(DeviceLock&& other) noexcept;
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;
  // Clears the record and releases the lock.
  ~DeviceLock();

  bool held() const { return fd_ >= 0; }
  const std::string& device() const { return device_; }
  // The descriptor that holds the lock: a child that inherits it (no
  // close-on-exec) holds the lock too, until both have closed it.
  int fd() const { return fd_; }
  // The stale record found when the lock was taken, if there was one.
  const std::optional<LockHolder>& taken_over() const { return taken_over_; }
  // Rewrites the record (e.g. to add the child's pid once it is started).
  Status UpdateRecord(const LockHolder& holder);
  // Clears the record and releases the lock now.
  void Release();

 private:
  int fd_ = -1;
  std::string device_;
  std::optional<LockHolder> taken_over_;
};

// The outcome of one attempt: the lock, or who holds it (holder is empty
// when the holder has not written its record yet, or it does not parse).
struct LockAttempt {
  std::optional<DeviceLock> lock;
  std::optional<LockHolder> holder;
};

// Takes `device`'s lock in `dir` (made if missing) for `me`, without
// waiting. Errors: a bad device name, or a lock file that cannot be made or
// opened (naming the path).
Expected<LockAttempt> TryLockDevice(const std::string& dir, const std::string& device, const LockHolder& me);

// The same, trying again every 100 ms for up to wait_seconds while another
// process holds it; on_wait(holder) is called once, when the first attempt
// finds it held. Returns the last attempt.
Expected<LockAttempt> LockDevice(const std::string& dir, const std::string& device, const LockHolder& me,
                                 double wait_seconds,
                                 const std::function<void(const std::optional<LockHolder>&)>& on_wait);

// What the lock files in `dir` say now, sorted by device.
struct DeviceLockState {
  std::string device;
  bool held = false;                  // a process holds the lock
  std::optional<LockHolder> holder;   // its record (held), or a stale record (not held)
  std::string record_error;           // why a non-empty record could not be read
};

// Every device with a lock file in `dir`, or just `device` (a device never
// locked is reported free). A missing `dir` has no locks.
Expected<std::vector<DeviceLockState>> ReadDeviceLocks(const std::string& dir, const std::string& device = "");

}  // namespace trit::system
