// The /proc parsers behind `trit doctor`, on captured samples.
#include "system/system_info.h"

#include <gtest/gtest.h>

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

TEST(SystemInfoTest, ThisMachine) {
  const CpuInfo c = ReadCpuInfo();
  EXPECT_GE(c.logical_cpus, 1);
  EXPECT_GE(c.usable_cpus, 1);
  EXPECT_FALSE(c.arch.empty());
  EXPECT_TRUE(ReadMemoryInfo().total_bytes.has_value());
}

}  // namespace
}  // namespace trit::system
