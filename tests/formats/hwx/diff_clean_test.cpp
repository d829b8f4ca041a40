// diff and clean on the macOS 12 and 14 MUL (same op, two compilers).
#include <gtest/gtest.h>

#include <set>

#include "formats/hwx/clean.h"
#include "formats/hwx/diff.h"
#include "formats/hwx/hwx_file.h"
#include "formats/hwx/registers.h"
#include "hwx/hwx_test_util.h"

namespace trit::hwx {
namespace {

using testing::AneShared;
using testing::ReadBytes;

HwxFile Read(const std::vector<uint8_t>& bytes) {
  Expected<HwxFile> f = ReadHwx(bytes);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? std::move(*f) : HwxFile{};
}

std::set<std::string> Names(const std::vector<Difference>& diffs) {
  std::set<std::string> names;
  for (const Difference& d : diffs) names.insert(d.name);
  return names;
}

// The registers whose words differ between the two files' descriptors,
// found independently by comparing the packets' values word for word.
std::set<std::string> ExpectedMul12Vs14() {
  std::set<std::string> names = {"TD.Header[2]", "TD.Header[8]", "NE.KernelCfg", "NE.MACCfg", RegisterName(0x13840)};
  for (int i = 0; i < 16; ++i) {
    names.insert("KernelDMASrc.CoeffDMAConfig[" + std::to_string(i) + "]");
    names.insert("KernelDMASrc.CoeffBfrSize[" + std::to_string(i) + "]");
  }
  for (uint32_t a : {0x1f8c8u, 0x1f8ccu, 0x1f8d0u, 0x1f8d4u, 0x1f8e8u, 0x1f8ecu, 0x1f8f0u, 0x1f8f4u}) {
    names.insert(RegisterName(a));
  }
  return names;
}

TEST(HwxDiff, Mul12Vs14NamesExactlyTheDifferingRegisters) {
  const std::string p12 = AneShared("allbilly/mul.hwx"), p14 = AneShared("allbilly/mul_macos14.hwx");
  TRIT_SKIP_WITHOUT(p12);
  const HwxFile a = Read(ReadBytes(p12)), b = Read(ReadBytes(p14));
  const std::vector<Difference> diffs = DiffChains(a.descriptors, b.descriptors, {});
  EXPECT_EQ(diffs.size(), 45u);
  EXPECT_EQ(Names(diffs), ExpectedMul12Vs14());
  for (const Difference& d : diffs) {
    if (d.name == "NE.KernelCfg") {
      EXPECT_EQ(*d.a, 0u);
      EXPECT_EQ(*d.b, 0x80u);
      EXPECT_FALSE(d.fields.empty());
    }
  }
  EXPECT_TRUE(DiffChains(a.descriptors, a.descriptors, {}).empty());
}

// The compact layout leaves the coefficient base addresses and buffer sizes
// out: every register difference is "written by the old layout, not by the
// compact one". Counting unwritten as 0, what remains is header word 4 and
// macOS 14's CoeffBfrSize values (0x40), which macOS 26 no longer writes.
TEST(HwxDiff, OldVsCompactByAddress) {
  const std::string p14 = AneShared("allbilly/mul_macos14.hwx"), p26 = AneShared("allbilly/mul_macos26.hwx");
  TRIT_SKIP_WITHOUT(p14);
  const HwxFile a = Read(ReadBytes(p14)), b = Read(ReadBytes(p26));
  const std::vector<Difference> strict = DiffChains(a.descriptors, b.descriptors, {});
  ASSERT_FALSE(strict.empty());
  for (const Difference& d : strict) {
    if (d.header) continue;
    EXPECT_TRUE(d.a.has_value() && !d.b.has_value()) << d.name;
  }
  EXPECT_EQ(strict.size(), 1u + 32u);
  DiffOptions zero;
  zero.absent_as_zero = true;
  const std::vector<Difference> loose = DiffChains(a.descriptors, b.descriptors, zero);
  std::set<std::string> expected = {"TD.Header[4]"};
  for (int i = 0; i < 16; ++i) expected.insert("KernelDMASrc.CoeffBfrSize[" + std::to_string(i) + "]");
  EXPECT_EQ(Names(loose), expected);
}

TEST(HwxClean, CleanedMul14MatchesMul12InKernelDmaAndNe) {
  const std::string p12 = AneShared("allbilly/mul.hwx"), p14 = AneShared("allbilly/mul_macos14.hwx");
  TRIT_SKIP_WITHOUT(p12);
  const HwxFile a = Read(ReadBytes(p12));
  std::vector<uint8_t> bytes = ReadBytes(p14);
  const HwxFile b = Read(bytes);
  ASSERT_FALSE(UsesKernelDma(b.descriptors[0]));
  const std::vector<CleanChange> changes = PlanClean(b.descriptors);
  EXPECT_EQ(changes.size(), 16u + 16u + 8u + 2u);
  ApplyClean(changes, bytes);
  const HwxFile cleaned = Read(bytes);
  EXPECT_EQ(cleaned.descriptors[0].layout, Layout::kOld);
  EXPECT_EQ(cleaned.descriptors[0].size, b.descriptors[0].size);
  EXPECT_FALSE(HasIdleKernelDmaState(cleaned.descriptors[0]));
  const std::vector<Difference> diffs = DiffChains(a.descriptors, cleaned.descriptors, {});
  for (const Difference& d : diffs) {
    EXPECT_NE(BlockOf(d.address), "KernelDMASrc") << d.name;
    EXPECT_NE(BlockOf(d.address), "NE") << d.name;
  }
  EXPECT_EQ(Names(diffs), (std::set<std::string>{"TD.Header[2]", "TD.Header[8]", RegisterName(0x13840)}));
  // Cleaning again changes nothing; cleaning the macOS 12 file changes nothing.
  EXPECT_TRUE(PlanClean(cleaned.descriptors).empty());
  EXPECT_TRUE(PlanClean(a.descriptors).empty());
}

TEST(HwxClean, LeavesWeightFetchingOpsAlone) {
  const std::vector<uint8_t> bytes = ReadBytes(testing::SourcePath("tests/data/ane/conv.hwx"));
  const HwxFile f = Read(bytes);
  ASSERT_TRUE(UsesKernelDma(f.descriptors[0]));
  for (const CleanChange& c : PlanClean(f.descriptors)) EXPECT_NE(c.rule, "kernel-dma");
}

}  // namespace
}  // namespace trit::hwx
