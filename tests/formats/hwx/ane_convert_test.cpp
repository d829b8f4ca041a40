// HWX -> .ane against the reference converter's outputs (eiln/anecc, in the
// shared data), and the .ane reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "formats/hwx/ane_file.h"
#include "formats/hwx/hwx_file.h"
#include "hwx/hwx_test_util.h"

namespace trit::hwx {
namespace {

using testing::AneShared;
using testing::ReadBytes;

struct Converted {
  HwxFile hwx;
  AneConversion ane;
};

Converted Convert(const std::string& path, SlotConvention convention) {
  const std::vector<uint8_t> bytes = ReadBytes(path);
  Expected<HwxFile> f = ReadHwx(bytes);
  EXPECT_TRUE(f.ok()) << f.status().message();
  if (!f.ok()) return {};
  Expected<AneConversion> c = ConvertToAne(*f, bytes, convention);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return {std::move(*f), c.ok() ? std::move(*c) : AneConversion{}};
}

// Every pair of allbilly/: the HWX puts outputs first in its BAR table, so
// trit's slots and the reference converter's agree and the bytes are equal
// with and without --anecc-compat.
TEST(AneConvert, ByteIdenticalToReferenceForEveryPair) {
  const std::string root = AneShared("allbilly");
  TRIT_SKIP_WITHOUT(root);
  for (const std::string name : {"mul", "tinygrad/concat", "tinygrad/conv", "tinygrad/gemm", "tinygrad/relu",
                                 "tinygrad/sum"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> reference = ReadBytes(root + "/" + name + ".ane");
    ASSERT_FALSE(reference.empty());
    const Converted ours = Convert(root + "/" + name + ".hwx", SlotConvention::kBarTable);
    EXPECT_TRUE(ours.ane.matches_anecc);
    EXPECT_TRUE(ours.ane.bytes == reference);
    const Converted compat = Convert(root + "/" + name + ".hwx", SlotConvention::kAnecc);
    EXPECT_TRUE(compat.ane.bytes == reference);
  }
}

std::vector<uint8_t> Header(const std::vector<uint8_t>& ane) {
  return std::vector<uint8_t>(ane.begin(), ane.begin() + std::min<size_t>(ane.size(), kAneHeaderSize));
}

// macOS 14 orders its BAR table inputs first: trit keeps the slots its
// descriptors address and says so; --anecc-compat reproduces the reference
// layout (whose header is then the macOS 12 MUL's, the same op).
TEST(AneConvert, InputsFirstHwxFollowsItsBarTable) {
  const std::string p12 = AneShared("allbilly/mul.ane"), p14 = AneShared("allbilly/mul_macos14.hwx");
  TRIT_SKIP_WITHOUT(p12);
  const Converted ours = Convert(p14, SlotConvention::kBarTable);
  EXPECT_FALSE(ours.ane.matches_anecc);
  EXPECT_EQ(ours.ane.slots, (std::vector<int>{4, 5, 6}));        // image, image2, probs
  EXPECT_EQ(ours.ane.anecc_slots, (std::vector<int>{5, 6, 4}));  // outputs first
  const Converted compat = Convert(p14, SlotConvention::kAnecc);
  EXPECT_TRUE(Header(compat.ane.bytes) == Header(ReadBytes(p12)));
  // The payload is the macOS 14 descriptor, as read.
  Expected<AneFile> back = ReadAne(ours.ane.bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(std::equal(back->descriptors[0].writes.begin(), back->descriptors[0].writes.end(),
                         ours.hwx.descriptors[0].writes.begin(), [](const RegisterWrite& x, const RegisterWrite& y) {
                           return x.address == y.address && x.value == y.value;
                         }));
}

// The compact MUL converts with its real descriptor size, and its .ane
// describes the same tensors (tiles and NCHW per role) as the old MUL's.
TEST(AneConvert, CompactMulDescribesTheSameTensors) {
  const std::string p12 = AneShared("allbilly/mul.ane"), p26 = AneShared("allbilly/mul_macos26.hwx");
  TRIT_SKIP_WITHOUT(p12);
  for (SlotConvention convention : {SlotConvention::kBarTable, SlotConvention::kAnecc}) {
    const Converted c = Convert(p26, convention);
    Expected<AneFile> ours = ReadAne(c.ane.bytes);
    ASSERT_TRUE(ours.ok()) << ours.status().message();
    const std::vector<uint8_t> ref_bytes = ReadBytes(p12);
    Expected<AneFile> ref = ReadAne(ref_bytes);
    ASSERT_TRUE(ref.ok()) << ref.status().message();
    EXPECT_EQ(ours->header.td_size, 0x1f8u);
    EXPECT_EQ(ours->header.tsk_size, 0x1f8u);
    EXPECT_EQ(ours->header.size, 0x4200u);
    EXPECT_EQ(ours->header.td_count, 1u);
    ASSERT_EQ(ours->descriptors.size(), 1u);
    EXPECT_EQ(ours->descriptors[0].layout, Layout::kCompact);
    EXPECT_EQ(ours->header.src_count, ref->header.src_count);
    EXPECT_EQ(ours->header.dst_count, ref->header.dst_count);
    // Per buffer of the HWX: the slot's tiles and nchw equal the reference's
    // entry for the same role and position.
    const std::vector<int>& slots = convention == SlotConvention::kAnecc ? c.ane.anecc_slots : c.ane.slots;
    for (size_t i = 0; i < c.hwx.buffers.size(); ++i) {
      const int ref_slot = c.ane.anecc_slots[i];
      EXPECT_EQ(ours->header.tiles[slots[i]], ref->header.tiles[ref_slot]) << c.hwx.buffers[i].name;
      EXPECT_EQ(ours->header.nchw[slots[i]], ref->header.nchw[ref_slot]) << c.hwx.buffers[i].name;
    }
    if (convention == SlotConvention::kAnecc) {
      EXPECT_EQ(ours->header.tiles, ref->header.tiles);
      EXPECT_EQ(ours->header.nchw, ref->header.nchw);
    }
  }
}

TEST(AneFile, ReadsTheReferenceFiles) {
  const std::string path = AneShared("allbilly/tinygrad/concat.ane");
  TRIT_SKIP_WITHOUT(path);
  const std::vector<uint8_t> bytes = ReadBytes(path);
  ASSERT_TRUE(LooksLikeAne(bytes));
  Expected<AneFile> f = ReadAne(bytes);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->header.td_count, 2u);
  ASSERT_EQ(f->descriptors.size(), 2u);
  EXPECT_EQ(f->descriptors[1].offset, kAneHeaderSize + 0x300);
  EXPECT_EQ(f->header.tiles[4], 65u);
}

TEST(AneFile, ConvertedTinygradFileReadsBack) {
  const std::vector<uint8_t> bytes = ReadBytes(testing::SourcePath("tests/data/ane/concat.hwx"));
  Expected<HwxFile> f = ReadHwx(bytes);
  ASSERT_TRUE(f.ok());
  Expected<AneConversion> c = ConvertToAne(*f, bytes, SlotConvention::kBarTable);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Expected<AneFile> back = ReadAne(c->bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->header.src_count, 2u);
  EXPECT_EQ(back->header.dst_count, 1u);
  EXPECT_EQ(back->header.tiles[4], 65u);  // output, 0x104000 bytes
  EXPECT_EQ(back->header.nchw[4], (std::array<uint64_t, 6>{1, 16400, 1, 1, 64, 64}));
  ASSERT_EQ(back->descriptors.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(back->descriptors[k].writes.size(), f->descriptors[k].writes.size());
}

}  // namespace
}  // namespace trit::hwx
