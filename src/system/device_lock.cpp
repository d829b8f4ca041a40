#include "system/device_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

namespace trit::system {
namespace {

constexpr const char* kSuffix = ".lock";
// A record is a few hundred bytes; more is not a record this code wrote.
constexpr size_t kMaxRecordBytes = 64 * 1024;

std::string LockPath(const std::string& dir, const std::string& device) { return dir + "/" + device + kSuffix; }

// The whole file at fd (from offset 0), at most kMaxRecordBytes + 1 bytes.
Expected<std::string> ReadRecordBytes(int fd, const std::string& path) {
  std::string text;
  char buffer[4096];
  off_t at = 0;
  while (text.size() <= kMaxRecordBytes) {
    const ssize_t n = ::pread(fd, buffer, sizeof(buffer), at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error(ErrorCode::kIo, "cannot read {}: {}", path, std::strerror(errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  return text;
}

Status WriteRecordBytes(int fd, const std::string& text, const std::string& what) {
  if (::ftruncate(fd, 0) != 0) return Error(ErrorCode::kIo, "cannot clear {}: {}", what, std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error(ErrorCode::kIo, "cannot write {}: {}", what, std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// A record read back: the holder, or why the bytes are not one. Empty bytes
// are no record at all.
struct ReadRecord {
  std::optional<LockHolder> holder;
  std::string error;
};
ReadRecord ParseRecordBytes(const Expected<std::string>& bytes) {
  ReadRecord out;
  if (!bytes.ok()) {
    out.error = bytes.status().message();
  } else if (!bytes->empty()) {
    Expected<LockHolder> h = DecodeLockRecord(*bytes);
    if (h.ok()) {
      out.holder = *h;
    } else {
      out.error = h.status().message();
    }
  }
  return out;
}

std::string FormatUtc(int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// The lock directory and any missing parent (TRIT_HOME itself may not exist yet).
Status MakeDirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, "cannot create the lock directory {}: {}", dir, ec.message());
  if (!std::filesystem::is_directory(dir, ec)) {
    return Error(ErrorCode::kIo, "the lock directory {} is not a directory", dir);
  }
  return Status::Ok();
}

}  // namespace

std::string DescribeHolder(const LockHolder& holder) {
  std::string text = "pid " + std::to_string(holder.pid);
  if (holder.child_pid > 0) text += " (running pid " + std::to_string(holder.child_pid) + ")";
  text += ", user " + (holder.user.empty() ? std::string("unknown") : holder.user);
  text += ", since " + FormatUtc(holder.started_unix);
  if (!holder.command.empty()) text += ": " + holder.command;
  return text;
}

std::string EncodeLockRecord(const LockHolder& holder) {
  nlohmann::ordered_json j;
  j["pid"] = holder.pid;
  if (holder.child_pid > 0) j["child_pid"] = holder.child_pid;
  j["user"] = holder.user;
  j["command"] = holder.command;
  j["started_unix"] = holder.started_unix;
  j["started"] = FormatUtc(holder.started_unix);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Expected<LockHolder> DecodeLockRecord(const std::string& text) {
  if (text.size() > kMaxRecordBytes) return Error(ErrorCode::kCorrupt, "lock record larger than {} bytes", kMaxRecordBytes);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error(ErrorCode::kCorrupt, "lock record is not a JSON object");
  LockHolder h;
  auto integer = [&](const char* key, int64_t& out, bool required) -> Status {
    const auto it = j.find(key);
    if (it == j.end()) {
      return required ? Error(ErrorCode::kCorrupt, "lock record has no \"{}\"", key) : Status::Ok();
    }
    if (!it->is_number_integer() || it->get<int64_t>() < 0) {
      return Error(ErrorCode::kCorrupt, "lock record's \"{}\" is not a non-negative integer", key);
    }
    out = it->get<int64_t>();
    return Status::Ok();
  };
  auto text_field = [&](const char* key, std::string& out) -> Status {
    const auto it = j.find(key);
    if (it == j.end()) return Status::Ok();
    if (!it->is_string()) return Error(ErrorCode::kCorrupt, "lock record's \"{}\" is not a string", key);
    out = it->get<std::string>();
    return Status::Ok();
  };
  for (Status s : {integer("pid", h.pid, true), integer("child_pid", h.child_pid, false),
                   integer("started_unix", h.started_unix, true), text_field("user", h.user),
                   text_field("command", h.command)}) {
    if (!s.ok()) return s;
  }
  if (h.pid == 0) return Error(ErrorCode::kCorrupt, "lock record's \"pid\" is 0");
  return h;
}

Status CheckDeviceName(const std::string& device) {
  const bool chars_ok = std::all_of(device.begin(), device.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
  if (device.empty() || device.size() > 64 || !chars_ok || device[0] == '.') {
    return Error(ErrorCode::kInvalidArgument,
                 "'{}' is not a device name: use 1-64 letters, digits, '.', '_' or '-', not starting with '.' "
                 "(e.g. xdna2-0)",
                 device);
  }
  return Status::Ok();
}

LockHolder CurrentProcessHolder(const std::vector<std::string>& command) {
  LockHolder h;
  h.pid = ::getpid();
  const uid_t uid = ::geteuid();
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buffer[4096];
  if (::getpwuid_r(uid, &pw, buffer, sizeof(buffer), &found) == 0 && found != nullptr) {
    h.user = found->pw_name;
  } else {
    h.user = "uid " + std::to_string(uid);
  }
  for (const std::string& arg : command) h.command += (h.command.empty() ? "" : " ") + arg;
  h.started_unix = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  return h;
}

bool ProcessRunning(int64_t pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

DeviceLock::DeviceLock(DeviceLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      device_(std::move(other.device_)),
      taken_over_(std::move(other.taken_over_)) {}

DeviceLock& DeviceLock::operator=(DeviceLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    device_ = std::move(other.device_);
    taken_over_ = std::move(other.taken_over_);
  }
  return *this;
}

DeviceLock::~DeviceLock() { Release(); }

Status DeviceLock::UpdateRecord(const LockHolder& holder) {
  if (fd_ < 0) return Error(ErrorCode::kInvalidArgument, "the lock of {} is not held", device_);
  return WriteRecordBytes(fd_, EncodeLockRecord(holder), "the lock record of " + device_);
}

void DeviceLock::Release() {
  if (fd_ < 0) return;
  // An empty file is "no holder": the next taker finds nothing stale.
  (void)::ftruncate(fd_, 0);
  ::close(fd_);  // the lock goes with the last descriptor of this open file
  fd_ = -1;
}

Expected<LockAttempt> TryLockDevice(const std::string& dir, const std::string& device, const LockHolder& me) {
  if (Status s = CheckDeviceName(device); !s.ok()) return s;
  if (Status s = MakeDirs(dir); !s.ok()) return s;
  const std::string path = LockPath(dir, device);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Error(ErrorCode::kIo, "cannot open the lock file {}: {}", path, std::strerror(errno));
  LockAttempt attempt;
  // A lock held with no record yet is a holder about to write it, or
  // ReadDeviceLocks testing it for an instant: a few more tries first.
  int empty_tries = 5;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    if (err != EWOULDBLOCK) {
      ::close(fd);
      return Error(ErrorCode::kIo, "cannot lock {}: {}", path, std::strerror(err));
    }
    attempt.holder = ParseRecordBytes(ReadRecordBytes(fd, path)).holder;
    if (!attempt.holder.has_value() && empty_tries-- > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    ::close(fd);
    return attempt;
  }
  // Ours. A record here was left by a holder that died (a clean release
  // empties the file).
  ReadRecord left = ParseRecordBytes(ReadRecordBytes(fd, path));
  DeviceLock lock(fd, device, left.holder);
  if (Status s = lock.UpdateRecord(me); !s.ok()) return s;  // lock's destructor releases it
  attempt.lock = std::move(lock);
  return attempt;
}

Expected<LockAttempt> LockDevice(const std::string& dir, const std::string& device, const LockHolder& me,
                                 double wait_seconds,
                                 const std::function<void(const std::optional<LockHolder>&)>& on_wait) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(0.0, wait_seconds));
  bool told = false;
  for (;;) {
    Expected<LockAttempt> attempt = TryLockDevice(dir, device, me);
    if (!attempt.ok() || attempt->lock.has_value()) return attempt;
    if (std::chrono::steady_clock::now() >= deadline) return attempt;
    if (!told && on_wait) on_wait(attempt->holder);
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Expected<std::vector<DeviceLockState>> ReadDeviceLocks(const std::string& dir, const std::string& device) {
  std::vector<std::string> devices;
  if (!device.empty()) {
    if (Status s = CheckDeviceName(device); !s.ok()) return s;
    devices.push_back(device);
  } else if (DIR* d = ::opendir(dir.c_str()); d != nullptr) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      const size_t n = std::strlen(kSuffix);
      if (name.size() > n && name.compare(name.size() - n, n, kSuffix) == 0) {
        const std::string dev = name.substr(0, name.size() - n);
        if (CheckDeviceName(dev).ok()) devices.push_back(dev);
      }
    }
    ::closedir(d);
  } else if (errno != ENOENT) {
    return Error(ErrorCode::kIo, "cannot list the lock directory {}: {}", dir, std::strerror(errno));
  }
  std::sort(devices.begin(), devices.end());
  std::vector<DeviceLockState> out;
  for (const std::string& dev : devices) {
    DeviceLockState state;
    state.device = dev;
    const std::string path = LockPath(dir, dev);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      if (errno != ENOENT) return Error(ErrorCode::kIo, "cannot open the lock file {}: {}", path, std::strerror(errno));
      out.push_back(state);  // never locked: free
      continue;
    }
    // Held if a shared lock cannot be had; one that can is dropped at once.
    int r;
    while ((r = ::flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (r != 0 && errno != EWOULDBLOCK) {
      const int err = errno;
      ::close(fd);
      return Error(ErrorCode::kIo, "cannot test the lock {}: {}", path, std::strerror(err));
    }
    state.held = r != 0;
    ReadRecord record = ParseRecordBytes(ReadRecordBytes(fd, path));
    state.holder = record.holder;
    state.record_error = record.error;
    ::close(fd);
    out.push_back(state);
  }
  return out;
}

}  // namespace trit::system
