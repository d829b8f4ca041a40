#include "system/system_info.h"

#include <sched.h>
#include <sys/utsname.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace trit::system {

namespace {

// SIMD features a CPU kernel may dispatch on, as /proc/cpuinfo spells them
// (x86 "flags", arm64 "Features"), in the order doctor prints them.
constexpr std::string_view kSimdFeatures[] = {
    "sse4_1",   "sse4_2",      "avx",         "f16c",        "fma",      "avx2",     "avx_vnni", "avx512f",
    "avx512bw", "avx512vl",    "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16", "asimd",
    "asimddp",  "asimdhp",     "i8mm",        "bf16",        "sve",      "sve2"};

std::string ReadText(const char* path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The value of the first "key : value" line whose key is `key`.
std::optional<std::string_view> FirstValue(std::string_view text, std::string_view key) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && Trim(line.substr(0, colon)) == key) return Trim(line.substr(colon + 1));
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

std::string CpuModelFromCpuinfo(std::string_view cpuinfo) {
  const std::optional<std::string_view> v = FirstValue(cpuinfo, "model name");
  return v ? std::string(*v) : std::string();
}

std::vector<std::string> SimdFeaturesFromCpuinfo(std::string_view cpuinfo) {
  std::optional<std::string_view> flags = FirstValue(cpuinfo, "flags");
  if (!flags) flags = FirstValue(cpuinfo, "Features");
  std::vector<std::string> have;
  if (!flags) return have;
  std::istringstream in{std::string(*flags)};
  std::vector<std::string> tokens{std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
  for (std::string_view f : kSimdFeatures) {
    for (const std::string& t : tokens) {
      if (t == f) {
        have.emplace_back(f);
        break;
      }
    }
  }
  return have;
}

std::optional<uint64_t> MeminfoBytes(std::string_view meminfo, std::string_view key) {
  const std::optional<std::string_view> v = FirstValue(meminfo, key);
  if (!v) return std::nullopt;
  uint64_t kib = 0;
  const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), kib);
  if (ec != std::errc() || Trim(std::string_view(ptr, static_cast<size_t>(v->data() + v->size() - ptr))) != "kB") {
    return std::nullopt;
  }
  return kib * 1024;
}

CpuInfo ReadCpuInfo() {
  CpuInfo c;
  const std::string text = ReadText("/proc/cpuinfo");
  c.model = CpuModelFromCpuinfo(text);
  c.features = SimdFeaturesFromCpuinfo(text);
  utsname u{};
  if (uname(&u) == 0) c.arch = u.machine;
  c.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  c.usable_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : c.logical_cpus;
  return c;
}

std::string MemoryCgroupDir(std::string_view proc_self_cgroup, std::string_view root) {
  std::string v2;
  size_t start = 0;
  while (start < proc_self_cgroup.size()) {
    size_t end = proc_self_cgroup.find('\n', start);
    if (end == std::string_view::npos) end = proc_self_cgroup.size();
    const std::string_view line = proc_self_cgroup.substr(start, end - start);
    start = end + 1;
    const size_t a = line.find(':');
    const size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty() && line.substr(0, a) == "0") {
      v2 = std::string(root) + std::string(path);
      continue;
    }
    std::istringstream list{std::string(controllers)};
    for (std::string c; std::getline(list, c, ',');) {
      if (c == "memory") return std::string(root) + "/memory" + std::string(path);
    }
  }
  return v2;
}

std::optional<uint64_t> CgroupAvailable(const CgroupMemory& cg) {
  if (!cg.limit) return std::nullopt;
  const uint64_t used = cg.usage > cg.inactive_file ? cg.usage - cg.inactive_file : 0;
  return used >= *cg.limit ? 0 : *cg.limit - used;
}

namespace {

std::optional<uint64_t> ParseCount(std::string_view text) {
  text = Trim(text);
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// The value of `key` in a memory.stat ("key value" lines).
uint64_t StatValue(std::string_view stat, std::string_view key) {
  size_t start = 0;
  while (start < stat.size()) {
    size_t end = stat.find('\n', start);
    if (end == std::string_view::npos) end = stat.size();
    const std::string_view line = stat.substr(start, end - start);
    start = end + 1;
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ') {
      return ParseCount(line.substr(key.size() + 1)).value_or(0);
    }
  }
  return 0;
}

}  // namespace

std::optional<CgroupMemory> ReadCgroupMemory(const std::string& dir) {
  CgroupMemory cg;
  const std::string v2_max = ReadText((dir + "/memory.max").c_str());
  if (!v2_max.empty()) {
    cg.limit = ParseCount(v2_max);  // "max": none
    cg.usage = ParseCount(ReadText((dir + "/memory.current").c_str())).value_or(0);
    cg.inactive_file = StatValue(ReadText((dir + "/memory.stat").c_str()), "inactive_file");
    return cg;
  }
  const std::string v1_limit = ReadText((dir + "/memory.limit_in_bytes").c_str());
  if (v1_limit.empty()) return std::nullopt;
  cg.limit = ParseCount(v1_limit);
  if (cg.limit && *cg.limit >= (uint64_t{1} << 62)) cg.limit.reset();  // v1's "unlimited"
  cg.usage = ParseCount(ReadText((dir + "/memory.usage_in_bytes").c_str())).value_or(0);
  cg.inactive_file = StatValue(ReadText((dir + "/memory.stat").c_str()), "total_inactive_file");
  return cg;
}

MemoryInfo ReadMemoryInfo() {
  const std::string text = ReadText("/proc/meminfo");
  MemoryInfo m{MeminfoBytes(text, "MemTotal"), MeminfoBytes(text, "MemAvailable"), std::nullopt};
  const std::string dir = MemoryCgroupDir(ReadText("/proc/self/cgroup"));
  if (dir.empty()) return m;
  std::optional<CgroupMemory> cg = ReadCgroupMemory(dir);
  // In a container the cgroup's own directory is often the mount's root.
  if (!cg) cg = ReadCgroupMemory(dir.find("/memory/") != std::string::npos ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup");
  if (!cg || !cg->limit) return m;
  m.cgroup_limit_bytes = cg->limit;
  const std::optional<uint64_t> left = CgroupAvailable(*cg);
  if (left && (!m.available_bytes || *left < *m.available_bytes)) m.available_bytes = left;
  return m;
}

}  // namespace trit::system
