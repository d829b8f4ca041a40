#include "store/download.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

namespace trit::store {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kGgufMagic = "GGUF";
constexpr double kEventInterval = 0.1;  // seconds between progress events

std::string DirOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// The partial file, written with write(2) so that ENOSPC surfaces at the write that hit it.
class PartialFile {
 public:
  static Expected<PartialFile> Open(const std::string& path, bool truncate) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
    if (fd < 0) return Error(ErrorCode::kIo, "{}: cannot open for writing: {}", path, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return Error(ErrorCode::kIo, "{}: cannot stat: {}", path, std::strerror(errno));
    }
    if (::lseek(fd, 0, SEEK_END) < 0) {
      ::close(fd);
      return Error(ErrorCode::kIo, "{}: cannot seek: {}", path, std::strerror(errno));
    }
    return PartialFile(path, fd, static_cast<uint64_t>(st.st_size));
  }
  PartialFile(PartialFile&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  PartialFile& operator=(PartialFile&&) = delete;
  ~PartialFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  uint64_t size() const { return size_; }

  Status Write(const char* data, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, data, n);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        const int err = errno;
        if (err == ENOSPC || err == EDQUOT) {
          return Error(ErrorCode::kIo,
                       "disk full writing {} after {} bytes; the partial download is kept: free some space and run "
                       "the same pull again to resume",
                       path_, size_);
        }
        return Error(ErrorCode::kIo, "{}: write failed after {} bytes: {}", path_, size_, std::strerror(err));
      }
      data += w;
      n -= static_cast<size_t>(w);
      size_ += static_cast<uint64_t>(w);
    }
    return Status::Ok();
  }

  Status Truncate() {
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
      return Error(ErrorCode::kIo, "{}: cannot truncate: {}", path_, std::strerror(errno));
    }
    size_ = 0;
    return Status::Ok();
  }

  Status Sync() {
    if (::fsync(fd_) != 0) {
      if (errno == ENOSPC || errno == EDQUOT) {
        return Error(ErrorCode::kIo, "disk full flushing {}; free some space and pull again", path_);
      }
      return Error(ErrorCode::kIo, "{}: fsync failed: {}", path_, std::strerror(errno));
    }
    return Status::Ok();
  }

 private:
  PartialFile(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

std::string FirstBytesText(std::string_view head) {
  std::string out;
  for (char c : head) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", u);
  }
  return out;
}

// The error for a body that does not start with the GGUF magic.
Status NotGgufError(std::string_view head, std::string_view what) {
  std::string_view trimmed = head;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front())) != 0) trimmed.remove_prefix(1);
  if (!trimmed.empty() && trimmed.front() == '<') {
    return Error(ErrorCode::kCorrupt,
                 "{} is an HTML page, not a GGUF model (it starts with '{}'); for a Hugging Face file use "
                 "hf.co/ORG/REPO/FILE.gguf or its /resolve/ URL, not the page URL",
                 what, FirstBytesText(head));
  }
  return Error(ErrorCode::kCorrupt, "{} is not a GGUF model: it starts with '{}', not 'GGUF'", what,
               FirstBytesText(head));
}

// Tracks the first four bytes of the file as they are written and checks them.
class MagicCheck {
 public:
  explicit MagicCheck(std::string prefix) : head_(std::move(prefix)) {}
  // `file_offset`: where `data` lands in the file.
  Status Feed(uint64_t file_offset, const char* data, size_t n, std::string_view what) {
    if (file_offset >= kGgufMagic.size() || checked_) return Status::Ok();
    if (file_offset != head_.size()) head_.resize(file_offset);  // after a restart from 0
    const size_t take = std::min(n, kGgufMagic.size() - head_.size());
    head_.append(data, take);
    if (head_.size() < kGgufMagic.size()) return Status::Ok();
    checked_ = true;
    // Show a little more of the body in the message when it is not a model.
    if (head_ != kGgufMagic) return NotGgufError(std::string_view(data, std::min<size_t>(n, 16)), what);
    return Status::Ok();
  }

 private:
  std::string head_;
  bool checked_ = false;
};

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

std::string ReadPrefix(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

void RemovePartial(const FetchTarget& t) {
  std::error_code ec;
  fs::remove(t.partial, ec);
  fs::remove(t.partial_source, ec);
}

// State shared with libcurl's callbacks for one request.
struct Transfer {
  const std::string* url = nullptr;
  const FetchTarget* target = nullptr;
  const DownloadOptions* options = nullptr;
  const PullObserver* observer = nullptr;
  PartialFile* file = nullptr;
  MagicCheck* magic = nullptr;
  uint64_t resume_from = 0;

  // The current response (reset at each status line: redirects have their own).
  long status = 0;
  std::optional<uint64_t> content_length;
  std::optional<uint64_t> range_start;
  std::optional<uint64_t> range_total;
  std::string content_type;

  bool body_started = false;
  uint64_t body_bytes = 0;
  std::optional<uint64_t> expected_total;  // of the whole file
  bool excess = false;                     // bytes past Content-Length arrived
  bool range_not_satisfiable = false;
  // A server that keeps the connection open after Content-Length bytes
  // despite "Connection: close": the body is taken as complete after a grace period.
  std::optional<Clock::time_point> length_reached_at;
  bool complete_by_length = false;
  bool discard_partial = false;  // the bytes are not worth resuming
  Status error;
  Clock::time_point start = Clock::now();
  Clock::time_point last_event{};

  void Emit(PullEvent::Kind kind, std::string message = {}) {
    if (!*observer) return;
    PullEvent e;
    e.kind = kind;
    e.name = target->name;
    e.message = std::move(message);
    e.bytes = file->size();
    e.total = expected_total;
    e.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    e.session_bytes = body_bytes;
    (*observer)(e);
  }
};

std::optional<uint64_t> ParseU64(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line = Trim(std::string_view(data, size * n));
  if (line.starts_with("HTTP/")) {
    t->status = 0;
    t->content_length.reset();
    t->range_start.reset();
    t->range_total.reset();
    t->content_type.clear();
    const size_t sp = line.find(' ');
    if (sp != std::string_view::npos) {
      t->status = static_cast<long>(ParseU64(line.substr(sp + 1, 3)).value_or(0));
    }
    return size * n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string key(line.substr(0, colon));
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view value = Trim(line.substr(colon + 1));
  if (key == "content-length") {
    t->content_length = ParseU64(value);
  } else if (key == "content-type") {
    t->content_type = std::string(value);
    for (char& c : t->content_type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  } else if (key == "content-range" && value.starts_with("bytes */")) {
    // bytes */TOTAL: the answer to a range past the end (HTTP 416)
    t->range_total = ParseU64(value.substr(8));
  } else if (key == "content-range" && value.starts_with("bytes ")) {
    // bytes START-END/TOTAL
    const std::string_view r = value.substr(6);
    const size_t dash = r.find('-');
    const size_t slash = r.find('/');
    if (dash != std::string_view::npos && slash != std::string_view::npos && dash < slash) {
      t->range_start = ParseU64(r.substr(0, dash));
      t->range_total = ParseU64(r.substr(slash + 1));
    }
  }
  return size * n;
}

// The checks made once, when the first byte of the final response arrives.
Status OnBodyStart(Transfer& t) {
  const std::string& url = *t.url;
  if (t.status == 416 && t.resume_from > 0) {
    t.range_not_satisfiable = true;
    return Error(ErrorCode::kIo, "HTTP 416");
  }
  if (t.status == 401 || t.status == 403) {
    return Error(ErrorCode::kIo, "HTTP {} from {}: the file needs credentials (a gated or private repository?), "
                 "which trit does not send", t.status, url);
  }
  if (t.status >= 400) return Error(ErrorCode::kIo, "HTTP {} from {}", t.status, url);
  if (t.status != 200 && t.status != 206) {
    return Error(ErrorCode::kUnsupported, "unexpected HTTP status {} from {}", t.status, url);
  }
  if (t.content_type.find("text/html") != std::string::npos) {
    t.discard_partial = true;
    return Error(ErrorCode::kCorrupt,
                 "{} sent an HTML page (Content-Type {}), not a GGUF model; for a Hugging Face file use "
                 "hf.co/ORG/REPO/FILE.gguf or its /resolve/ URL, not the page URL",
                 url, t.content_type);
  }
  if (t.resume_from > 0 && t.status == 206) {
    if (t.range_start != t.resume_from) {
      return Error(ErrorCode::kCorrupt, "{} answered a request for bytes {}- with a range starting at {}", url,
                   t.resume_from, t.range_start.has_value() ? fmt::format("{}", *t.range_start) : "(none)");
    }
    t.expected_total = t.range_total;
    t.Emit(PullEvent::Kind::kResume, fmt::format("resuming at byte {}", t.resume_from));
  } else if (t.resume_from > 0) {
    // HTTP 200: the whole file again. The partial's bytes are useless now.
    if (Status s = t.file->Truncate(); !s.ok()) return s;
    t.resume_from = 0;
    t.expected_total = t.content_length;
    t.Emit(PullEvent::Kind::kRestart,
           "the server ignored the Range request (HTTP 200, not 206): downloading from the start");
  } else if (t.status == 206) {
    return Error(ErrorCode::kCorrupt, "{} sent a partial response (HTTP 206) to a request for the whole file", url);
  } else {
    t.expected_total = t.content_length;
  }
  if (t.content_length.has_value()) {
    if (Status s = CheckFreeSpace(t.target->partial, *t.content_length, t.options->reserve_bytes); !s.ok()) return s;
  }
  t.Emit(PullEvent::Kind::kStart, "fetching " + url);
  return Status::Ok();
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  if (!t->body_started) {
    t->body_started = true;
    t->error = OnBodyStart(*t);
    if (!t->error.ok()) return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  if (t->content_length.has_value() && t->body_bytes + bytes > *t->content_length) {
    t->excess = true;
    return 0;
  }
  Status s = t->magic->Feed(t->file->size(), data, bytes, *t->url);
  if (!s.ok()) {
    t->discard_partial = true;
    t->error = s;
    return 0;
  }
  if (s = t->file->Write(data, bytes); !s.ok()) {
    t->error = s;
    return 0;
  }
  t->body_bytes += bytes;
  if (t->content_length.has_value() && t->body_bytes == *t->content_length) t->length_reached_at = Clock::now();
  const Clock::time_point now = Clock::now();
  if (std::chrono::duration<double>(now - t->last_event).count() >= kEventInterval) {
    t->last_event = now;
    t->Emit(PullEvent::Kind::kProgress);
  }
  return bytes;
}

constexpr double kKeepAliveGrace = 2.0;  // seconds to wait for bytes past Content-Length

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->length_reached_at.has_value() &&
      std::chrono::duration<double>(Clock::now() - *t->length_reached_at).count() > kKeepAliveGrace) {
    t->complete_by_length = true;
    return 1;  // aborts: the body is complete and nothing more came
  }
  return 0;
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlHandle {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  ~CurlHandle() {
    curl_slist_free_all(headers);
    if (h != nullptr) curl_easy_cleanup(h);
  }
};

// One request for `url` from byte t.resume_from on.
CURLcode Perform(const std::string& url, Transfer& t, std::string* curl_error) {
  CurlHandle c;
  if (c.h == nullptr) {
    *curl_error = "curl_easy_init failed";
    return CURLE_FAILED_INIT;
  }
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c.h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c.h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c.h, CURLOPT_MAXREDIRS, t.options->max_redirects);
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, t.options->connect_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, t.options->stall_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "trit");
  // Models are stored as sent; a compressed transfer encoding would change the byte ranges.
  c.headers = curl_slist_append(c.headers, "Accept-Encoding: identity");
  // CURLOPT_RANGE, not RESUME_FROM: a server that ignores the range is handled here (restart), not refused.
  const std::string range = fmt::format("{}-", t.resume_from);
  if (t.resume_from > 0) curl_easy_setopt(c.h, CURLOPT_RANGE, range.c_str());
  // The body is read to the end of the connection and compared with
  // Content-Length here, so that a server sending more than it announced is
  // caught (libcurl would stop at Content-Length and drop the rest unseen).
  c.headers = curl_slist_append(c.headers, "Connection: close");
  curl_easy_setopt(c.h, CURLOPT_IGNORE_CONTENT_LENGTH, 1L);
  curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
  // HTTP/1.1, where "Connection: close" has its meaning (HTTP/2 forbids the header).
  curl_easy_setopt(c.h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &t);
  const CURLcode rc = curl_easy_perform(c.h);
  *curl_error = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  return rc;
}

}  // namespace

Expected<uint64_t> FreeBytes(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(DirOf(path).c_str(), &st) != 0) {
    return Error(ErrorCode::kIo, "{}: cannot read free space: {}", DirOf(path), std::strerror(errno));
  }
  return static_cast<uint64_t>(st.f_bavail) * static_cast<uint64_t>(st.f_frsize);
}

Status CheckFreeSpace(const std::string& path, uint64_t needed, uint64_t reserve) {
  Expected<uint64_t> free = FreeBytes(path);
  if (!free.ok()) return free.status();
  return FreeSpaceVerdict(path, *free, needed, reserve);
}

Status FreeSpaceVerdict(const std::string& path, uint64_t free, uint64_t needed, uint64_t reserve) {
  if (free < needed || free - needed < reserve) {
    return Error(ErrorCode::kIo, "not enough free space in {}: {} bytes needed (+{} kept free), {} available",
                 DirOf(path), needed, reserve, free);
  }
  return Status::Ok();
}

static Status DownloadUrlInto(const std::string& url, const FetchTarget& target, const DownloadOptions& options,
                              const PullObserver& observer) {
  GlobalInitOnce();
  // Resume only bytes that came from this very URL and start like a model.
  std::error_code ec;
  bool resume = fs::exists(target.partial, ec) && ReadSmallFile(target.partial_source) == url + "\n";
  std::string prefix;
  if (resume) {
    prefix = ReadPrefix(target.partial, kGgufMagic.size());
    if (!std::string_view(kGgufMagic).starts_with(prefix)) resume = false;
  }
  if (!resume) {
    RemovePartial(target);
    prefix.clear();
    std::ofstream record(target.partial_source, std::ios::binary | std::ios::trunc);
    record << url << "\n";
    if (!record.flush()) return Error(ErrorCode::kIo, "{}: cannot write", target.partial_source);
  }
  Expected<PartialFile> file = PartialFile::Open(target.partial, !resume);
  if (!file.ok()) return file.status();

  for (int attempt = 0;; ++attempt) {
    MagicCheck magic(prefix);
    Transfer t;
    t.url = &url;
    t.target = &target;
    t.options = &options;
    t.observer = &observer;
    t.file = &*file;
    t.magic = &magic;
    t.resume_from = file->size();
    std::string curl_error;
    const CURLcode rc = Perform(url, t, &curl_error);
    if (rc == CURLE_OK && !t.body_started) {
      // An empty body: the checks the first byte would have run.
      t.body_started = true;
      t.error = OnBodyStart(t);
    }
    if (t.range_not_satisfiable && t.range_total == t.resume_from) {
      // "416, the file has N bytes" and the partial has N: it was complete
      // already (a pull stopped after the last byte, before the rename).
      t.expected_total = t.resume_from;
      t.Emit(PullEvent::Kind::kResume, fmt::format("the partial download is complete ({} bytes)", t.resume_from));
      return file->Sync();
    }
    if (t.range_not_satisfiable && attempt == 0) {
      // The partial is longer than the file now is, or the server cannot serve that range: start over.
      if (Status s = file->Truncate(); !s.ok()) return s;
      prefix.clear();
      PullEvent e;
      e.kind = PullEvent::Kind::kRestart;
      e.name = target.name;
      e.message = fmt::format("the server refused to resume at byte {} (HTTP 416): downloading from the start",
                              t.resume_from);
      if (observer) observer(e);
      continue;
    }
    const std::string kept = "the partial download is kept: run the same pull again to resume";
    if (t.excess) {
      RemovePartial(target);
      return Error(ErrorCode::kCorrupt,
                   "{} sent more bytes than its Content-Length announced ({}); the download was discarded", url,
                   t.content_length.has_value() ? fmt::format("{}", *t.content_length) : "?");
    }
    if (!t.error.ok()) {
      if (t.discard_partial) RemovePartial(target);
      return t.error;
    }
    const bool ok = rc == CURLE_OK || (rc == CURLE_ABORTED_BY_CALLBACK && t.complete_by_length);
    if (rc == CURLE_TOO_MANY_REDIRECTS) {
      return Error(ErrorCode::kIo, "{}: more than {} redirects (a redirect loop?)", url, options.max_redirects);
    }
    if (rc == CURLE_PARTIAL_FILE) {
      return Error(ErrorCode::kIo,
                   "{}: the connection closed after {} of the {} bytes the server announced (Content-Length); {}", url,
                   t.body_bytes, t.content_length.has_value() ? fmt::format("{}", *t.content_length) : "?", kept);
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return Error(ErrorCode::kIo, "{}: no data for {} s ({}); {}", url, options.stall_timeout_s, curl_error, kept);
    }
    if (!ok) return Error(ErrorCode::kIo, "{}: download failed: {}; {}", url, curl_error, kept);
    if (file->size() == 0) return Error(ErrorCode::kCorrupt, "{} sent an empty body, not a GGUF model", url);
    if (t.content_length.has_value() && t.body_bytes < *t.content_length) {
      return Error(ErrorCode::kIo,
                   "{}: the connection closed after {} of the {} bytes the server announced (Content-Length); {}", url,
                   t.body_bytes, *t.content_length, kept);
    }
    if (t.expected_total.has_value() && file->size() != *t.expected_total) {
      RemovePartial(target);
      return Error(ErrorCode::kCorrupt, "{}: the file has {} bytes, the server announced {}; the download was discarded",
                   url, file->size(), *t.expected_total);
    }
    if (file->size() < kGgufMagic.size()) {
      RemovePartial(target);
      return NotGgufError(ReadPrefix(target.partial, 16), url);
    }
    t.Emit(PullEvent::Kind::kProgress);
    return file->Sync();
  }
}

Status DownloadUrl(const std::string& url, const FetchTarget& target, const DownloadOptions& options,
                   const PullObserver& observer) {
  Status s = DownloadUrlInto(url, target, options, observer);
  std::error_code ec;
  // Nothing worth resuming: leave no empty partial behind.
  if (!s.ok() && fs::exists(target.partial, ec) && fs::file_size(target.partial, ec) == 0) RemovePartial(target);
  return s;
}

Status CopyLocalFile(const std::string& path, const FetchTarget& target, const DownloadOptions& options,
                     const PullObserver& observer) {
  RemovePartial(target);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kNotFound, "{}: cannot open: {}", path, std::strerror(errno));
  std::error_code ec;
  const uint64_t total = fs::file_size(path, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: cannot read its size: {}", path, ec.message());
  if (Status s = CheckFreeSpace(target.partial, total, options.reserve_bytes); !s.ok()) return s;
  Expected<PartialFile> file = PartialFile::Open(target.partial, /*truncate=*/true);
  if (!file.ok()) return file.status();
  MagicCheck magic("");
  const Clock::time_point start = Clock::now();
  Clock::time_point last{};
  auto emit = [&](PullEvent::Kind kind, std::string message) {
    if (!observer) return;
    PullEvent e;
    e.kind = kind;
    e.name = target.name;
    e.message = std::move(message);
    e.bytes = file->size();
    e.total = total;
    e.session_bytes = file->size();
    e.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    observer(e);
  };
  emit(PullEvent::Kind::kStart, "copying " + path);
  std::vector<char> buf(1u << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    if (Status s = magic.Feed(file->size(), buf.data(), n, path); !s.ok()) {
      RemovePartial(target);
      return s;
    }
    if (Status s = file->Write(buf.data(), n); !s.ok()) return s;
    if (std::chrono::duration<double>(Clock::now() - last).count() >= kEventInterval) {
      last = Clock::now();
      emit(PullEvent::Kind::kProgress, {});
    }
  }
  if (in.bad()) return Error(ErrorCode::kIo, "{}: read failed after {} bytes", path, file->size());
  if (file->size() != total) {
    return Error(ErrorCode::kIo, "{}: copied {} bytes, the file had {} (did it change while copying?)", path,
                 file->size(), total);
  }
  if (file->size() < kGgufMagic.size()) {
    RemovePartial(target);
    return NotGgufError(ReadPrefix(path, 16), path);
  }
  emit(PullEvent::Kind::kProgress, {});
  return file->Sync();
}

}  // namespace trit::store
