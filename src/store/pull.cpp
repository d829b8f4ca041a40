#include "store/pull.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/sha256.h"
#include "formats/gguf/reader.h"
#include "store/model_name.h"
#include "store/source.h"
#include "store/store_lock.h"

namespace trit::store {
namespace {

namespace fs = std::filesystem;

Expected<std::string> NormalizeSha256(const std::string& hex) {
  std::string out;
  for (char c : hex) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool ok = out.size() == 64;
  for (char c : out) ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!ok) return Error(ErrorCode::kInvalidArgument, "--sha256 '{}': expected 64 hex digits", hex);
  return out;
}

void Emit(const PullObserver& observer, PullEvent::Kind kind, const std::string& name, std::string message,
          uint64_t bytes = 0) {
  if (!observer) return;
  PullEvent e;
  e.kind = kind;
  e.name = name;
  e.message = std::move(message);
  e.bytes = bytes;
  e.total = bytes;
  observer(e);
}

// Makes a rename in `dir` durable.
void SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The name's lock; when another process holds it, says so and waits.
Expected<StoreLock> AcquireOrWait(const std::string& lock_path, const std::string& name,
                                  const PullObserver& observer) {
  {
    Expected<StoreLock> lock = StoreLock::Acquire(lock_path, StoreLock::Wait::kNo);
    if (lock.ok() || lock.status().message().find(kLockBusy) == std::string::npos) return lock;
  }
  Emit(observer, PullEvent::Kind::kWaiting, name,
       fmt::format("another trit process is pulling '{}'; waiting for it to finish", name));
  return StoreLock::Acquire(lock_path, StoreLock::Wait::kYes);
}

}  // namespace

Expected<std::string> FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kIo, "{}: cannot open: {}", path, std::strerror(errno));
  Sha256 sha;
  std::vector<uint8_t> buf(1u << 20);
  while (in) {
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    sha.Update(std::span<const uint8_t>(buf.data(), n));
  }
  if (in.bad()) return Error(ErrorCode::kIo, "{}: read failed", path);
  return sha.FinishHex();
}

Expected<PullResult> Pull(const ModelStore& store, const std::string& source, const PullOptions& options,
                          const PullObserver& observer) {
  Expected<PullSource> src = ParsePullSource(source);
  if (!src.ok()) return src.status();
  std::string name;
  if (options.name.has_value()) {
    name = *options.name;
    if (Status s = ValidateModelName(name); !s.ok()) return s.WithContext("--name");
  } else {
    Expected<std::string> derived = NameFromSource(src->location);
    if (!derived.ok()) return derived.status();
    name = *derived;
  }
  std::optional<std::string> want_sha;
  if (options.sha256.has_value()) {
    Expected<std::string> sha = NormalizeSha256(*options.sha256);
    if (!sha.ok()) return sha.status();
    want_sha = *sha;
  }
  std::string recorded_source = src->location;
  if (src->kind == PullSource::Kind::kLocalFile) {
    std::error_code ec;
    const fs::path abs = fs::absolute(src->location, ec);
    if (!ec) recorded_source = abs.lexically_normal().string();
  }

  if (Status s = store.EnsureDir(); !s.ok()) return s;
  const ModelPaths paths = store.PathsFor(name);

  // One pull of a name at a time; the second waits, saying so.
  Expected<StoreLock> lock = AcquireOrWait(paths.lock, name, observer);
  if (!lock.ok()) return lock.status();

  // Already there? Only when the file really is (exists, with the manifest's size).
  if (Expected<StoreEntry> existing = store.Find(name); existing.ok()) {
    if (existing->present) {
      const Manifest& m = *existing->manifest;
      if (m.source != recorded_source) {
        return Error(ErrorCode::kInvalidArgument,
                     "the name '{}' is taken by a model pulled from {}; remove it (trit models rm {}) or choose "
                     "another --name",
                     name, m.source, name);
      }
      if (want_sha.has_value() && *want_sha != m.sha256) {
        return Error(ErrorCode::kCorrupt, "model '{}' is present with sha256 {}, not the {} asked for", name,
                     m.sha256, *want_sha);
      }
      Emit(observer, PullEvent::Kind::kAlreadyPresent, name,
           fmt::format("'{}' is already present ({}); nothing to do", name, paths.model), m.size);
      return PullResult{m, paths.model, true};
    }
    // A manifest whose file is gone or wrong: forget it before fetching again.
    std::error_code ec;
    fs::remove(paths.manifest, ec);
  }

  const FetchTarget target{name, paths.partial, paths.partial_source};
  Status fetched = src->kind == PullSource::Kind::kUrl
                       ? DownloadUrl(src->location, target, options.download, observer)
                       : CopyLocalFile(src->location, target, options.download, observer);
  if (!fetched.ok()) return fetched;

  std::error_code ec;
  const uint64_t size = fs::file_size(paths.partial, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: cannot read its size: {}", paths.partial, ec.message());
  Emit(observer, PullEvent::Kind::kVerify, name, "checking sha256 and GGUF structure", size);
  Expected<std::string> sha = FileSha256(paths.partial);
  if (!sha.ok()) return sha.status();
  auto discard = [&] {
    fs::remove(paths.partial, ec);
    fs::remove(paths.partial_source, ec);
  };
  if (want_sha.has_value() && *sha != *want_sha) {
    discard();
    return Error(ErrorCode::kCorrupt, "sha256 mismatch for '{}': expected {}, got {}; the download was discarded",
                 name, *want_sha, *sha);
  }
  if (Expected<gguf::File> gguf = gguf::File::Open(paths.partial); !gguf.ok()) {
    discard();
    return Error(ErrorCode::kCorrupt,
                 "the fetched file is not a complete GGUF model ({}); the download was discarded",
                 gguf.status().message());
  }

  // Into place, then the manifest: a kill between the two leaves a file no
  // manifest describes, which nothing lists and the next pull replaces.
  if (::rename(paths.partial.c_str(), paths.model.c_str()) != 0) {
    return Error(ErrorCode::kIo, "cannot rename {} to {}: {}", paths.partial, paths.model, std::strerror(errno));
  }
  fs::remove(paths.partial_source, ec);
  SyncDir(store.dir());
  Manifest m{name, recorded_source, size, *sha, UtcNowIso8601()};
  if (Status s = WriteManifest(paths.manifest, m); !s.ok()) return s;
  SyncDir(store.dir());
  Emit(observer, PullEvent::Kind::kDone, name, paths.model, size);
  return PullResult{m, paths.model, false};
}

}  // namespace trit::store
