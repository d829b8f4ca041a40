#include "system/machine_memory.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "base/check.h"
#include "base/thread_pool.h"

namespace trit::system {

namespace {

constexpr uint64_t kMinBufferBytes = uint64_t{512} << 20;
constexpr uint64_t kMaxBufferBytes = uint64_t{2} << 30;
constexpr uint64_t kCacheMultiple = 4;
constexpr size_t kHugePage = size_t{2} << 20;

struct FreeDeleter {
  void operator()(uint64_t* p) const { std::free(p); }
};

// Sum of words [begin, end): four independent accumulators so the adds do not
// serialize and the loop vectorizes; the sum is used, so the reads stay.
uint64_t SumWords(const uint64_t* words, int64_t begin, int64_t end) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  int64_t i = begin;
  for (; i + 4 <= end; i += 4) {
    a += words[i];
    b += words[i + 1];
    c += words[i + 2];
    d += words[i + 3];
  }
  for (; i < end; ++i) a += words[i];
  return a + b + c + d;
}

}  // namespace

uint64_t DefaultBandwidthBufferBytes() {
  long llc = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  // Some VMs report a last-level cache ten times the real one: the cap keeps
  // the buffer (and its fill time) sane there.
  const uint64_t from_cache = llc > 0 ? static_cast<uint64_t>(llc) * kCacheMultiple : 0;
  return std::clamp(from_cache, kMinBufferBytes, kMaxBufferBytes);
}

Expected<double> MeasureReadBandwidth(const BandwidthOptions& options) {
  if (options.n_threads < 1) {
    return Error(ErrorCode::kInvalidArgument, "bandwidth: thread count {} < 1", options.n_threads);
  }
  const uint64_t n_bytes = options.n_bytes == 0 ? DefaultBandwidthBufferBytes() : options.n_bytes;
  const int64_t n_words = static_cast<int64_t>(n_bytes / sizeof(uint64_t));
  if (n_words < options.n_threads) {
    return Error(ErrorCode::kInvalidArgument, "bandwidth: buffer of {} bytes is too small", n_bytes);
  }
  // Huge-page aligned, and huge pages asked for where the system has them:
  // fewer page faults while filling, fewer TLB misses while reading.
  const size_t alloc_bytes = (static_cast<size_t>(n_words) * sizeof(uint64_t) + kHugePage - 1) / kHugePage * kHugePage;
  std::unique_ptr<uint64_t, FreeDeleter> words(static_cast<uint64_t*>(std::aligned_alloc(kHugePage, alloc_bytes)));
  if (!words) return Error(ErrorCode::kIo, "bandwidth: cannot allocate a buffer of {} bytes", n_bytes);

#ifdef MADV_HUGEPAGE
  madvise(words.get(), alloc_bytes, MADV_HUGEPAGE);  // advice only: its failure changes nothing but speed
#endif

  ThreadPool pool(options.n_threads);
  // First touch by the thread that later reads each part (its NUMA node's memory).
  pool.ParallelFor(n_words, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) words.get()[i] = static_cast<uint64_t>(i);
  });
  std::atomic<uint64_t> sink{0};
  double best = 0.0;
  for (int pass = 0; pass <= options.n_passes; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    pool.ParallelFor(options.n_threads, [&](int64_t t_begin, int64_t t_end) {
      for (int64_t t = t_begin; t < t_end; ++t) {
        const int64_t begin = n_words * t / options.n_threads;
        const int64_t end = n_words * (t + 1) / options.n_threads;
        sink.fetch_add(SumWords(words.get(), begin, end), std::memory_order_relaxed);
      }
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (pass > 0 && seconds > 0.0) best = std::max(best, static_cast<double>(n_words * 8) / seconds);
  }
  // The sum of 0..n-1 over every pass: checking it keeps the reads observable.
  const uint64_t n = static_cast<uint64_t>(n_words);
  const uint64_t sum_once = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);  // modulo 2^64, as the adds
  const uint64_t expected = sum_once * static_cast<uint64_t>(options.n_passes + 1);
  TRIT_CHECK(sink.load() == expected);
  return best;
}

uint64_t PeakRssBytes() {
  // Linux: VmHWM of /proc/self/status, this program's own high-water mark.
  // getrusage's ru_maxrss is not: it keeps the peak of the process image
  // before exec, so a trit started by a large parent (a Python script with a
  // model loaded) would report the parent's peak.
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f) != nullptr) {
      found = std::sscanf(line, "VmHWM: %llu kB", &kib) == 1;
    }
    std::fclose(f);
    if (found) return static_cast<uint64_t>(kib) * 1024;
  }
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#ifdef __APPLE__
  return static_cast<uint64_t>(usage.ru_maxrss);  // bytes on macOS
#else
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB elsewhere
#endif
}

}  // namespace trit::system
