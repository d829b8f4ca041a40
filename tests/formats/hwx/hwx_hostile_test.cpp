// Damaged and hostile inputs: the readers return errors (naming what and
// where), never crash or read out of bounds (run under ASan/UBSan too).
#include <gtest/gtest.h>

#include <random>

#include "formats/hwx/ane_file.h"
#include "formats/hwx/hwx_file.h"
#include "formats/hwx/stab.h"
#include "hwx/hwx_test_util.h"

namespace trit::hwx {
namespace {

using testing::ReadBytes;
using testing::SourcePath;

void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(HwxStab, ParsesTensorAndTypeEntries) {
  std::optional<TensorStab> t =
      ParseTensorStab("image:t16=ar1;0;1;17=s4096n:ar1;0;64;18=s64c:ar1;0;1;19=s64h:ar1;0;77;20=s2w:5");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->name, "image");
  EXPECT_EQ(t->extent, (std::array<uint64_t, 4>{1, 64, 1, 77}));
  EXPECT_EQ(t->stride, (std::array<uint64_t, 4>{4096, 64, 64, 2}));
  EXPECT_EQ(t->type_id, 5);
  std::optional<TypeStab> ty = ParseTypeStab("float16:t5=r1;2;0");
  ASSERT_TRUE(ty.has_value());
  EXPECT_EQ(ty->name, "float16");
  EXPECT_EQ(ty->id, 5);
  EXPECT_FALSE(ParseTypeStab("image:t16=ar1;0;1;17=s4096n:ar1;0;64;18=s64c:ar1;0;1;19=s64h:ar1;0;1;20=s2w:5"));
  for (const char* bad : {"", ":t", "x:t1=ar1;0;1;2=s4n", "x:t1=ar1;0;1;2=s4c:ar1;0;1;3=s4c:ar1;0;1;4=s4h:ar1;0;1;5=s2w:5",
                          "x:t1=ar1;0;99999999999999999999;2=s4n:ar1;0;1;3=s4c:ar1;0;1;4=s4h:ar1;0;1;5=s2w:5",
                          "x:t1=ar1;0;1;2=sn:ar1;0;1;3=s4c:ar1;0;1;4=s4h:ar1;0;1;5=s2w:5", "void:t1=1"}) {
    EXPECT_FALSE(ParseTensorStab(bad).has_value()) << bad;
  }
}

TEST(HwxHostile, EveryTruncationIsAnError) {
  const std::vector<uint8_t> bytes = ReadBytes(SourcePath("tests/data/ane/concat.hwx"));
  ASSERT_TRUE(ReadHwx(bytes).ok());
  // Every cut inside the load commands and the task; the weights come last.
  for (size_t n = 0; n < 0x4580; n += (n < 0x1000 ? 1 : 7)) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    Expected<HwxFile> f = ReadHwx(cut);
    ASSERT_FALSE(f.ok()) << n;
    EXPECT_FALSE(f.status().message().empty());
  }
}

TEST(HwxHostile, NamedErrorsForBrokenFields) {
  const std::vector<uint8_t> good = ReadBytes(SourcePath("tests/data/ane/concat.hwx"));
  {
    std::vector<uint8_t> b = good;
    Put32(b, 0x14, 0xfffffff0);  // sizeofcmds
    Expected<HwxFile> f = ReadHwx(b);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.status().message().find("sizeofcmds"), std::string::npos) << f.status().message();
  }
  {
    // The first descriptor's next pointer points back at itself.
    std::vector<uint8_t> b = good;
    Put32(b, 0x4000 + 28, 0x10);
    Expected<HwxFile> f = ReadHwx(b);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.status().message().find("next pointer"), std::string::npos) << f.status().message();
  }
  {
    // A packet claiming 64 values at the end of the descriptor.
    std::vector<uint8_t> b = good;
    Put32(b, 0x4000 + 0x254, 0xfc017800);
    Expected<HwxFile> f = ReadHwx(b);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.status().message().find("run past the descriptor"), std::string::npos) << f.status().message();
  }
  {
    // Not an HWX at all.
    std::vector<uint8_t> b = good;
    b[3] = 0xfe;
    EXPECT_FALSE(ReadHwx(b).ok());
  }
}

// The thread record's count disagrees with the chain: reported by name, not fatal.
TEST(HwxHostile, InconsistencyIsReportedWithItsOffset) {
  std::vector<uint8_t> b = ReadBytes(SourcePath("tests/data/ane/concat.hwx"));
  Expected<HwxFile> good = ReadHwx(b);
  ASSERT_TRUE(good.ok());
  const uint64_t count_at = good->bar_offset + 0x80c;
  Put32(b, count_at, 3);
  Expected<HwxFile> f = ReadHwx(b);
  ASSERT_TRUE(f.ok());
  bool found = false;
  for (const Note& n : f->notes) {
    if (n.inconsistent && n.offset == count_at && n.what.find("3 descriptors") != std::string::npos) found = true;
  }
  EXPECT_TRUE(found);
}

TEST(HwxHostile, RandomMutationsNeverCrash) {
  const std::vector<uint8_t> good = ReadBytes(SourcePath("tests/data/ane/concat.hwx"));
  Expected<HwxFile> parsed = ReadHwx(good);
  ASSERT_TRUE(parsed.ok());
  Expected<AneConversion> ane = ConvertToAne(*parsed, good, SlotConvention::kBarTable);
  ASSERT_TRUE(ane.ok());
  std::mt19937 rng(1234);
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> b = good;
    std::vector<uint8_t> a = ane->bytes;
    for (int k = 0; k < 4; ++k) {
      // Mutate the header/load commands/task, where the structure lives.
      b[rng() % 0x4600] = static_cast<uint8_t>(rng());
      a[rng() % 0x1600] = static_cast<uint8_t>(rng());
    }
    Expected<HwxFile> f = ReadHwx(b);
    if (f.ok()) (void)ConvertToAne(*f, b, SlotConvention::kAnecc);
    (void)LooksLikeAne(a);
    (void)ReadAne(a);
  }
}

}  // namespace
}  // namespace trit::hwx
