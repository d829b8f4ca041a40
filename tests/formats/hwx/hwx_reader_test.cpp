// The HWX reader on every real file: tinygrad's ops (tests/data/ane, MIT) and
// the shared reference files (three compiler generations of one MUL).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "formats/hwx/clean.h"
#include "formats/hwx/hwx_file.h"
#include "formats/hwx/registers.h"
#include "hwx/hwx_test_util.h"

namespace trit::hwx {
namespace {

using testing::AneShared;
using testing::ReadBytes;
using testing::SourcePath;

HwxFile MustRead(const std::string& path) {
  const std::vector<uint8_t> bytes = ReadBytes(path);
  Expected<HwxFile> f = ReadHwx(bytes);
  EXPECT_TRUE(f.ok()) << path << ": " << f.status().message();
  return f.ok() ? std::move(*f) : HwxFile{};
}

std::vector<std::string> InconsistentNotes(const HwxFile& f) {
  std::vector<std::string> out;
  for (const Note& n : f.notes) {
    if (n.inconsistent) out.push_back(n.what);
  }
  return out;
}

TEST(HwxReader, ChainedConcatFromTinygrad) {
  const HwxFile f = MustRead(SourcePath("tests/data/ane/concat.hwx"));
  EXPECT_EQ(f.generation, "H13 (A14, M1)");
  EXPECT_EQ(f.compiler, "zin_ane_compiler v4.2.1");
  ASSERT_EQ(f.descriptors.size(), 2u);
  EXPECT_EQ(f.record_count, 2u);
  EXPECT_EQ(f.descriptors[0].size, 0x274u);
  EXPECT_EQ(f.descriptors[1].offset - f.descriptors[0].offset, 0x300u);  // header word 7 of the first
  EXPECT_EQ(f.descriptors[1].layout, Layout::kOld);
  EXPECT_TRUE(EndOfNetwork(f.descriptors[1]));
  EXPECT_FALSE(EndOfNetwork(f.descriptors[0]));
  EXPECT_EQ(f.weights_size, 0x4000u);
  EXPECT_EQ(f.weights_address, f.task_address + 0x580);
  ASSERT_EQ(f.buffers.size(), 3u);
  EXPECT_EQ(f.buffers[0].name, "input_1");
  EXPECT_EQ(f.buffers[0].role, BufferRole::kInput);
  EXPECT_EQ(f.buffers[0].bar, 5);
  EXPECT_EQ(f.buffers[2].name, "output@output");
  EXPECT_EQ(f.buffers[2].role, BufferRole::kOutput);
  EXPECT_EQ(f.buffers[2].bar, 4);
  ASSERT_TRUE(f.buffers[2].shape.has_value());
  EXPECT_EQ(f.buffers[2].shape->extent, (std::array<uint64_t, 4>{1, 16400, 1, 1}));
  EXPECT_EQ(f.buffers[2].shape->stride, (std::array<uint64_t, 4>{1049600, 64, 64, 2}));
  EXPECT_EQ(f.buffers[2].type_name, "float16");
  EXPECT_TRUE(InconsistentNotes(f).empty());
  // Selectors of the second descriptor: it reads BAR 5 (input_1) and writes BAR 4.
  const BaseSelectors s = SelectorsOf(f.descriptors[1]);
  EXPECT_EQ(s.reads, (std::vector<uint32_t>{5}));
  EXPECT_EQ(s.writes, (std::vector<uint32_t>{4}));
}

TEST(HwxReader, ConvFetchesWeights) {
  const HwxFile f = MustRead(SourcePath("tests/data/ane/conv.hwx"));
  ASSERT_EQ(f.descriptors.size(), 1u);
  EXPECT_TRUE(UsesKernelDma(f.descriptors[0]));
  EXPECT_FALSE(HasIdleKernelDmaState(f.descriptors[0]));
  EXPECT_EQ(f.weights_size, 0xc0u);
}

// Every HWX of the shared data reads with nothing inconsistent, and every
// old-layout descriptor has the packet structure tools/gen_ane_registers.py
// assumes when it maps aneregs.json's offsets to addresses.
TEST(HwxReader, EveryHwxInSharedData) {
  const std::string root = testing::SharedDataPath("ane");
  TRIT_SKIP_WITHOUT(root);
  const std::vector<std::pair<uint32_t, uint32_t>> old_packets = {
      {0x1f800, 62}, {0x0, 16}, {0x13800, 28}, {0x4800, 18}, {0x8800, 4}, {0xc800, 5}, {0x17800, 7}};
  int n_files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || path.find(".hwx") == std::string::npos) continue;
    ++n_files;
    SCOPED_TRACE(path);
    const HwxFile f = MustRead(path);
    EXPECT_TRUE(InconsistentNotes(f).empty()) << InconsistentNotes(f).front();
    EXPECT_EQ(f.descriptors.size(), f.record_count);
    EXPECT_EQ(f.descriptors.front().size, f.record_words * 4);
    EXPECT_FALSE(f.compiler.empty());
    for (const Buffer& b : f.buffers) {
      EXPECT_GE(b.bar, 4) << b.name;
      EXPECT_TRUE(b.shape.has_value()) << b.name;
      EXPECT_EQ(b.type_name, "float16") << b.name;
    }
    for (const Descriptor& d : f.descriptors) {
      if (d.layout != Layout::kOld) continue;
      std::vector<std::pair<uint32_t, uint32_t>> packets;
      for (const Packet& p : d.packets) packets.emplace_back(p.address, p.count);
      EXPECT_EQ(packets, old_packets);
    }
  }
  EXPECT_GE(n_files, 20);
}

TEST(HwxReader, ThreeMulGenerations) {
  const std::string p12 = AneShared("allbilly/mul.hwx"), p14 = AneShared("allbilly/mul_macos14.hwx"),
                    p26 = AneShared("allbilly/mul_macos26.hwx");
  TRIT_SKIP_WITHOUT(p12);
  const HwxFile f12 = MustRead(p12), f14 = MustRead(p14), f26 = MustRead(p26);
  EXPECT_EQ(f12.compiler, "zin_ane_compiler v5.4.1");
  EXPECT_EQ(f14.compiler, "zin_ane_compiler v7.6.4");
  EXPECT_EQ(f26.compiler, "zin_ane_compiler v9.509.0");
  ASSERT_EQ(f12.descriptors.size(), 1u);
  ASSERT_EQ(f14.descriptors.size(), 1u);
  ASSERT_EQ(f26.descriptors.size(), 1u);
  // old / old with extra kernel-DMA state / compact
  EXPECT_EQ(f12.descriptors[0].layout, Layout::kOld);
  EXPECT_FALSE(HasIdleKernelDmaState(f12.descriptors[0]));
  EXPECT_EQ(f14.descriptors[0].layout, Layout::kOld);
  EXPECT_TRUE(HasIdleKernelDmaState(f14.descriptors[0]));
  EXPECT_EQ(f26.descriptors[0].layout, Layout::kCompact);
  EXPECT_EQ(f26.descriptors[0].size, 0x1f8u);
  EXPECT_EQ(f26.weights_address, f26.task_address + 0x200);
  // The macOS 26 file: exactly the three real tensors; its alias and L2
  // buffers are listed apart.
  std::vector<std::string> names;
  for (const Buffer& b : f26.buffers) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"image", "image2", "probs"}));
  std::set<std::string> aliases;
  for (const Alias& a : f26.aliases) aliases.insert(a.name);
  EXPECT_TRUE(aliases.count("probs/src"));
  EXPECT_EQ(aliases.size(), 4u);
  // Outputs first (macOS 12) vs inputs first (14, 26) in the BAR table.
  EXPECT_EQ(f12.buffers[2].bar, 4);
  EXPECT_EQ(f14.buffers[2].bar, 6);
  EXPECT_EQ(f26.buffers[2].bar, 6);
  for (const HwxFile* f : {&f12, &f14, &f26}) {
    for (const Buffer& b : f->buffers) {
      EXPECT_EQ(b.shape->extent, (std::array<uint64_t, 4>{1, 64, 1, 1}));
      EXPECT_EQ(b.shape->stride, (std::array<uint64_t, 4>{4096, 64, 64, 2}));
    }
  }
}

TEST(HwxRegisters, NamesAndFields) {
  EXPECT_EQ(RegisterName(0xc800), "NE.KernelCfg");
  EXPECT_EQ(RegisterName(0xc804), "NE.MACCfg");
  EXPECT_EQ(RegisterName(0x1f808), "KernelDMASrc.CoeffDMAConfig[0]");
  EXPECT_EQ(RegisterName(0x1f8c8), "unknown@0x1f8c8");
  EXPECT_EQ(RegisterName(0x8800), "unknown@0x8800");
  EXPECT_EQ(BlockOf(0x1f8c8), "KernelDMASrc");
  EXPECT_EQ(BlockOf(0x8800), "");
  const RegisterInfo* w8 = FindH13HeaderWord(8);
  ASSERT_NE(w8, nullptr);
  // 0x249a5: reads BAR 5 and 6, writes BAR 4 (macOS 12 MUL).
  std::vector<FieldValue> fields = DecodeFields(w8, 0x249a5);
  auto get = [&](const std::string& name) {
    for (const FieldValue& f : fields) {
      if (f.name == name) return f.value;
    }
    return 0xffffffffu;
  };
  EXPECT_EQ(get("RBase0"), 5u);
  EXPECT_EQ(get("RBase1"), 6u);
  EXPECT_EQ(get("WBase"), 4u);
  EXPECT_EQ(get("WBE"), 1u);
  // Bits no field names come back as "unnamed".
  fields = DecodeFields(FindH13Register(0xc800), 0xffffffffu);
  EXPECT_EQ(fields.back().name, "unnamed");
  EXPECT_EQ(DecodeFields(nullptr, 0x5).size(), 1u);
  // Every table is sorted (binary search).
  for (auto table : {H13Registers(), H13HeaderWords()}) {
    EXPECT_TRUE(std::is_sorted(table.begin(), table.end(),
                               [](const RegisterInfo& a, const RegisterInfo& b) { return a.address < b.address; }));
  }
}

}  // namespace
}  // namespace trit::hwx
