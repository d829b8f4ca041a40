// The /proc parsers behind `trit doctor`, on captured samples.
#include "system/system_info.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace trit::system {
namespace {

constexpr const char* kX86Cpuinfo =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
    "flags\t\t: fpu vme sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512bw avx512vl avx512_vnni\n\n"
    "processor\t: 1\nmodel name\t: ignored second\nflags\t\t: fpu\n";

constexpr const char* kArmCpuinfo =
    "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp "
    "asimddp sve i8mm bf16\nCPU implementer\t: 0x41\n";

TEST(SystemInfoTest, CpuModelIsTheFirstModelName) {
  EXPECT_EQ(CpuModelFromCpuinfo(kX86Cpuinfo), "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz");
  EXPECT_EQ(CpuModelFromCpuinfo(kArmCpuinfo), "");
}

TEST(SystemInfoTest, SimdFeaturesInTableOrder) {
  EXPECT_EQ(SimdFeaturesFromCpuinfo(kX86Cpuinfo),
            (std::vector<std::string>{"sse4_1", "sse4_2", "avx", "f16c", "fma", "avx2", "avx512f", "avx512bw", "avx512vl",
                                      "avx512_vnni"}));
  EXPECT_EQ(SimdFeaturesFromCpuinfo(kArmCpuinfo),
            (std::vector<std::string>{"asimd", "asimddp", "asimdhp", "i8mm", "bf16", "sve"}));
  EXPECT_TRUE(SimdFeaturesFromCpuinfo("processor : 0\n").empty());
}

TEST(SystemInfoTest, MeminfoInBytes) {
  const char* meminfo = "MemTotal:       32768000 kB\nMemFree:  100 kB\nMemAvailable:   16000000 kB\nHugePages_Total: 0\n";
  EXPECT_EQ(MeminfoBytes(meminfo, "MemTotal"), uint64_t{32768000} * 1024);
  EXPECT_EQ(MeminfoBytes(meminfo, "MemAvailable"), uint64_t{16000000} * 1024);
  EXPECT_EQ(MeminfoBytes(meminfo, "HugePages_Total"), std::nullopt);  // not in kB
  EXPECT_EQ(MeminfoBytes(meminfo, "SwapTotal"), std::nullopt);
}

TEST(SystemInfoTest, MemoryCgroupDirFromProcSelfCgroup) {
  // cgroup v1: the memory controller's line, under <root>/memory.
  EXPECT_EQ(MemoryCgroupDir("9:name=systemd:/\n4:memory:/process_api/3ea\n0::/\n", "/r"), "/r/memory/process_api/3ea");
  EXPECT_EQ(MemoryCgroupDir("5:cpu,memory,pids:/a/b\n"), "/sys/fs/cgroup/memory/a/b");
  // cgroup v2: the unified line.
  EXPECT_EQ(MemoryCgroupDir("0::/user.slice/run-1.scope\n", "/r"), "/r/user.slice/run-1.scope");
  EXPECT_EQ(MemoryCgroupDir("", "/r"), "");
  EXPECT_EQ(MemoryCgroupDir("garbage\n3:cpu:/x\n", "/r"), "");
}

TEST(SystemInfoTest, CgroupAvailableCountsInactiveFilePagesFree) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  EXPECT_EQ(CgroupAvailable({.limit = 1024 * kMiB, .usage = 1000 * kMiB, .inactive_file = 600 * kMiB}), 624 * kMiB);
  EXPECT_EQ(CgroupAvailable({.limit = 1024 * kMiB, .usage = 2000 * kMiB, .inactive_file = 0}), 0u);
  EXPECT_EQ(CgroupAvailable({.limit = 1024 * kMiB, .usage = 10 * kMiB, .inactive_file = 50 * kMiB}), 1024 * kMiB);
  EXPECT_EQ(CgroupAvailable({.limit = std::nullopt, .usage = 1, .inactive_file = 0}), std::nullopt);
}

// A cgroup directory as v1 and as v2 write it.
TEST(SystemInfoTest, ReadsCgroupFilesOfBothVersions) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("trit-cgroup-" + std::to_string(getpid()));
  const auto write = [&](const char* name, const char* text) { std::ofstream(dir / name) << text; };
  std::filesystem::create_directories(dir / "v1");
  std::filesystem::create_directories(dir / "v2");
  write("v1/memory.limit_in_bytes", "2147483648\n");
  write("v1/memory.usage_in_bytes", "1073741824\n");
  write("v1/memory.stat", "cache 5\ninactive_file 7\ntotal_inactive_file 536870912\n");
  write("v2/memory.max", "max\n");
  write("v2/memory.current", "4096\n");
  write("v2/memory.stat", "anon 1\ninactive_file 100\n");
  const std::optional<CgroupMemory> v1 = ReadCgroupMemory((dir / "v1").string());
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->limit, uint64_t{2147483648});
  EXPECT_EQ(v1->usage, uint64_t{1073741824});
  EXPECT_EQ(v1->inactive_file, uint64_t{536870912});
  const std::optional<CgroupMemory> v2 = ReadCgroupMemory((dir / "v2").string());
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->limit, std::nullopt);
  EXPECT_EQ(v2->usage, 4096u);
  EXPECT_EQ(v2->inactive_file, 100u);
  write("v1/memory.limit_in_bytes", "9223372036854771712\n");  // v1's unlimited
  EXPECT_EQ(ReadCgroupMemory((dir / "v1").string())->limit, std::nullopt);
  EXPECT_EQ(ReadCgroupMemory((dir / "none").string()), std::nullopt);
  std::filesystem::remove_all(dir);
}

TEST(SystemInfoTest, ThisMachine) {
  const CpuInfo c = ReadCpuInfo();
  EXPECT_GE(c.logical_cpus, 1);
  EXPECT_GE(c.usable_cpus, 1);
  EXPECT_FALSE(c.arch.empty());
  EXPECT_TRUE(ReadMemoryInfo().total_bytes.has_value());
}

}  // namespace
}  // namespace trit::system
