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

MemoryInfo ReadMemoryInfo() {
  const std::string text = ReadText("/proc/meminfo");
  return {MeminfoBytes(text, "MemTotal"), MeminfoBytes(text, "MemAvailable")};
}

}  // namespace trit::system
