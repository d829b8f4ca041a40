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
  std::optional<uint64_t> available_bytes;  // MemAvailable
};

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
