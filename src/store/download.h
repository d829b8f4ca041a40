// Fetching a model into its .partial file: over HTTP(S) with libcurl
// (resuming with a Range request), or by copying a local file. Both refuse
// what cannot be a GGUF model as early as possible (an HTML page, a body
// not starting with "GGUF") and check free space before and during.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "store/pull_event.h"

namespace trit::store {

struct DownloadOptions {
  long max_redirects = 10;
  long connect_timeout_s = 30;
  // A transfer slower than 1 byte/s for this long is abandoned (the
  // partial file is kept for the next pull).
  long stall_timeout_s = 60;
  // Free space a download leaves on the disk, beyond the file itself.
  uint64_t reserve_bytes = 16u << 20;
};

struct FetchTarget {
  std::string name;            // for events
  std::string partial;         // the file written
  std::string partial_source;  // records `url` beside it, so only the same URL resumes
};

// Downloads `url` into target.partial, resuming what is there when it came
// from the same URL. On return the partial holds the whole body (its size
// matches what the server announced). Errors name the problem (HTTP status,
// HTML page, redirect loop, Content-Length mismatch, disk full, stall) and
// say whether the partial file was kept for resuming.
Status DownloadUrl(const std::string& url, const FetchTarget& target, const DownloadOptions& options,
                   const PullObserver& observer);

// Copies the local file `path` into target.partial (from scratch).
Status CopyLocalFile(const std::string& path, const FetchTarget& target, const DownloadOptions& options,
                     const PullObserver& observer);

// Free bytes for an unprivileged user on the filesystem holding `path`.
Expected<uint64_t> FreeBytes(const std::string& path);

// OK when `needed` more bytes fit on the filesystem of `path` leaving
// `reserve` free; otherwise an error with both figures.
Status CheckFreeSpace(const std::string& path, uint64_t needed, uint64_t reserve);

// The verdict of CheckFreeSpace for a known `free` figure: apart so that it
// can be tested without racing whatever else writes to the filesystem.
Status FreeSpaceVerdict(const std::string& path, uint64_t free, uint64_t needed, uint64_t reserve);

}  // namespace trit::store
