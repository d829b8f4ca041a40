// What `trit doctor` reports about the machine: CPU model and SIMD features,
// CPUs, memory. Read from /proc (Linux); the parsers are pure functions of
// the files' text so they are tested on captured samples.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trit::system {

struct CpuInfo {
  std::string model;                  // "model name" of /proc/cpuinfo; empty when absent
  std::string arch;                   // x86_64, aarch64, ...
  std::vector<std::string> features;  // the SIMD features kernels care about that this CPU has
  int logical_cpus = 0;               // hardware threads of the machine
  int usable_cpus = 0;                // those this process may run on (affinity, cgroup cpusets)
};

struct MemoryInfo {
  std::optional<uint64_t> total_bytes;      // MemTotal
  // MemAvailable, or less when this process's memory cgroup allows less
  // (its limit minus what it uses, its inactive file pages counted free):
  // under a container's or systemd-run's limit, page cache counts against
  // the limit, and a copy sized by MemAvailable alone would be OOM-killed.
  std::optional<uint64_t> available_bytes;
  std::optional<uint64_t> cgroup_limit_bytes;  // the memory cgroup's limit; nullopt when none (or unlimited)
};

// A memory cgroup's figures, read from its directory (v2: memory.max,
// memory.current, memory.stat inactive_file; v1: memory.limit_in_bytes,
// memory.usage_in_bytes, memory.stat total_inactive_file).
struct CgroupMemory {
  std::optional<uint64_t> limit;  // nullopt: "max" or v1's unlimited (near 2^63)
  uint64_t usage = 0;
  uint64_t inactive_file = 0;
};

// The directory of this process's memory cgroup from /proc/self/cgroup's
// text: v1's "N:memory:/path" under <root>/memory, else v2's "0::/path"
// under <root>; empty when neither line is there.
std::string MemoryCgroupDir(std::string_view proc_self_cgroup, std::string_view root = "/sys/fs/cgroup");
// What the cgroup leaves: limit - usage + inactive_file (clamped at 0,
// and at most the limit); nullopt without a limit.
std::optional<uint64_t> CgroupAvailable(const CgroupMemory& cg);
// The figures of the cgroup directory `dir`; nullopt when it has none.
std::optional<CgroupMemory> ReadCgroupMemory(const std::string& dir);

// The first "model name" value of /proc/cpuinfo text; empty when none.
std::string CpuModelFromCpuinfo(std::string_view cpuinfo);
// The kernel-relevant SIMD features in the first "flags" (x86) or
// "Features" (arm) line, in a fixed order (the table in system_info.cpp).
std::vector<std::string> SimdFeaturesFromCpuinfo(std::string_view cpuinfo);
// A "Key:   N kB" line of /proc/meminfo in bytes.
std::optional<uint64_t> MeminfoBytes(std::string_view meminfo, std::string_view key);

CpuInfo ReadCpuInfo();
MemoryInfo ReadMemoryInfo();

}  // namespace trit::system
