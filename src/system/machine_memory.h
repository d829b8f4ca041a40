// What this machine's memory does, for `trit bench`: the read bandwidth a
// streaming read reaches with N threads, and this process's peak resident
// memory.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace trit::system {

struct BandwidthOptions {
  int n_threads = 1;      // exactly this many threads read (the caller's and n_threads - 1 workers)
  uint64_t n_bytes = 0;   // buffer size; 0: DefaultBandwidthBufferBytes()
  int n_passes = 5;       // timed passes after one untimed warm-up pass; the fastest counts
};

// 4x the last-level cache (when the system says), between 512 MiB and 2 GiB:
// large enough that no cache holds a useful part of it.
uint64_t DefaultBandwidthBufferBytes();

// Bytes per second of the fastest of `n_passes` passes that each read the
// whole buffer once, split in contiguous parts over the threads (the access
// pattern of a matmul over weight rows). The buffer is freed on return, but
// it does count in the process's peak RSS: read PeakRssBytes() first.
// Errors when the buffer cannot be allocated.
Expected<double> MeasureReadBandwidth(const BandwidthOptions& options);

// The process's peak resident set size so far, in bytes: VmHWM of
// /proc/self/status where there is one, else getrusage's ru_maxrss.
uint64_t PeakRssBytes();

}  // namespace trit::system
