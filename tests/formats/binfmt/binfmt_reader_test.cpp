// The ELF, PE and Mach-O readers on real binaries: trit's own build, the
// system's libraries and the fixtures built by make_fixtures.sh (gcc, mingw-w64,
// clang + ld.lld / ld64.lld), plus every truncation and many corruptions of
// them (an error or a result, never a crash: run under ASan/UBSan too).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "formats/binfmt/read_image.h"
#include "formats/binfmt/fixture_files.h"
#include "test_paths.h"

namespace trit::binfmt {
namespace {

namespace fs = std::filesystem;

using testing::Fixture;
using testing::ReadAll;

// The images of `path`; the test skips when a fixture's toolchain was missing.
std::vector<Image> Read(const std::string& path) {
  std::vector<uint8_t> bytes = ReadAll(path);
  Expected<std::vector<Image>> images = ReadImages(bytes);
  EXPECT_TRUE(images.ok()) << path << ": " << images.status().message();
  return images.ok() ? *images : std::vector<Image>();
}

#define SKIP_UNLESS_FIXTURE(rel)                                                                  \
  do {                                                                                            \
    if (!fs::exists(Fixture(rel))) GTEST_SKIP() << "fixture " << rel << " not built (see .skipped)"; \
  } while (0)

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<std::string> DepNames(const Image& image, DepKind kind) {
  std::vector<std::string> out;
  for (const Dependency& d : image.deps) {
    if (d.kind == kind) out.push_back(d.name);
  }
  return out;
}

TEST(VersionCompare, Numeric) {
  EXPECT_LT(CompareVersions("2.9", "2.34"), 0);
  EXPECT_GT(CompareVersions("2.34", "2.3.4"), 0);
  EXPECT_EQ(CompareVersions("2.17", "2.17"), 0);
  EXPECT_LT(CompareVersions("2.17", "2.17.1"), 0);
}

TEST(ElfReader, OwnSystemLibstdcxx) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (!fs::exists(lib)) GTEST_SKIP() << lib << " absent";
  const std::vector<Image> images = Read(lib);
  ASSERT_EQ(images.size(), 1u);
  const Image& im = images[0];
  EXPECT_EQ(im.format, Format::kElf);
  EXPECT_EQ(im.bits, 64);
  EXPECT_FALSE(im.big_endian);
  EXPECT_EQ(im.soname, "libstdc++.so.6");
  EXPECT_TRUE(Has(DepNames(im, DepKind::kNeeded), "libc.so.6"));
  EXPECT_TRUE(im.max_versions.count("GLIBC"));
  EXPECT_TRUE(Has(im.exported, "_ZNSt9exceptionD2Ev"));
  EXPECT_TRUE(Has(im.imported, "malloc"));
  EXPECT_FALSE(Has(im.exported, "malloc"));
}

TEST(ElfReader, FixtureRunpathNeededAndSoname) {
  SKIP_UNLESS_FIXTURE("elf/good/bin/app");
  const std::vector<Image> app = Read(Fixture("elf/good/bin/app"));
  ASSERT_EQ(app.size(), 1u);
  EXPECT_TRUE(Has(DepNames(app[0], DepKind::kNeeded), "libengine.so"));
  ASSERT_EQ(app[0].search_paths.size(), 1u);
  EXPECT_EQ(app[0].search_paths[0].path, "$ORIGIN/../lib");
  EXPECT_EQ(app[0].search_paths[0].kind, SearchPathKind::kRunpath);
  EXPECT_TRUE(Has(app[0].imported, "engine_run"));
  const std::vector<Image> lib = Read(Fixture("elf/good/lib/libengine.so"));
  ASSERT_EQ(lib.size(), 1u);
  EXPECT_EQ(lib[0].soname, "libengine.so");
  EXPECT_EQ(lib[0].kind, "shared library");
  EXPECT_TRUE(Has(lib[0].exported, "engine_run"));
  EXPECT_TRUE(lib[0].max_versions.count("GLIBCXX") || Has(DepNames(lib[0], DepKind::kNeeded), "libstdc++.so.6"));
  const std::vector<Image> abs = Read(Fixture("elf/absrpath/lib/libabs.so"));
  ASSERT_EQ(abs.size(), 1u);
  ASSERT_EQ(abs[0].search_paths.size(), 2u);  // "/opt/trit/lib:$ORIGIN", split
  EXPECT_EQ(abs[0].search_paths[0].path, "/opt/trit/lib");
  EXPECT_EQ(abs[0].search_paths[1].path, "$ORIGIN");
}

TEST(ElfReader, BigEndian32WithRpathAndVersionNeeds) {
  SKIP_UNLESS_FIXTURE("elf/be32/libbe.so");
  const std::vector<Image> im = Read(Fixture("elf/be32/libbe.so"));
  ASSERT_EQ(im.size(), 1u);
  EXPECT_EQ(im[0].bits, 32);
  EXPECT_TRUE(im[0].big_endian);
  EXPECT_EQ(im[0].arch, "powerpc");
  EXPECT_EQ(im[0].soname, "libbe.so");
  EXPECT_EQ(DepNames(im[0], DepKind::kNeeded), std::vector<std::string>{"libvers.so"});
  ASSERT_EQ(im[0].search_paths.size(), 1u);
  EXPECT_EQ(im[0].search_paths[0].kind, SearchPathKind::kRpath);
  EXPECT_EQ(im[0].search_paths[0].path, "$ORIGIN/deps");
  EXPECT_EQ(im[0].max_versions.at("GLIBC"), "2.99");
  EXPECT_TRUE(Has(im[0].exported, "be_entry"));
  EXPECT_TRUE(Has(im[0].imported, "versioned"));
}

TEST(PeReader, ImportsDelayImportsExports) {
  SKIP_UNLESS_FIXTURE("pe/app/app.exe");
  const std::vector<Image> app = Read(Fixture("pe/app/app.exe"));
  ASSERT_EQ(app.size(), 1u);
  EXPECT_EQ(app[0].format, Format::kPe);
  EXPECT_EQ(app[0].bits, 64);
  EXPECT_EQ(app[0].kind, "executable");
  EXPECT_TRUE(Has(DepNames(app[0], DepKind::kNeeded), "engine.dll"));
  EXPECT_TRUE(Has(DepNames(app[0], DepKind::kNeeded), "KERNEL32.dll"));
  EXPECT_EQ(DepNames(app[0], DepKind::kDelay), std::vector<std::string>{"plugin.dll"});
  EXPECT_FALSE(Has(DepNames(app[0], DepKind::kNeeded), "plugin.dll"));
  EXPECT_TRUE(Has(app[0].imported, "engine_run"));
  EXPECT_TRUE(Has(app[0].imported, "plugin_init"));  // through the delay import name table
  const std::vector<Image> dll = Read(Fixture("pe/app/engine.dll"));
  ASSERT_EQ(dll.size(), 1u);
  EXPECT_EQ(dll[0].kind, "dll");
  EXPECT_EQ(dll[0].soname, "engine.dll");
  EXPECT_TRUE(Has(dll[0].exported, "engine_run"));
  EXPECT_TRUE(Has(dll[0].exported, "engine_stop"));
}

TEST(PeReader, Pe32) {
  SKIP_UNLESS_FIXTURE("pe/pe32.dll");
  const std::vector<Image> dll = Read(Fixture("pe/pe32.dll"));
  ASSERT_EQ(dll.size(), 1u);
  EXPECT_EQ(dll[0].bits, 32);
  EXPECT_EQ(dll[0].arch, "i386");
  EXPECT_EQ(DepNames(dll[0], DepKind::kNeeded), std::vector<std::string>{"KERNEL32.dll"});
  EXPECT_TRUE(Has(dll[0].imported, "GetTickCount"));
  EXPECT_TRUE(Has(dll[0].exported, "ticks32"));
}

TEST(MachOReader, ExecutableAndDylib) {
  SKIP_UNLESS_FIXTURE("macho/bundle/bin/app");
  const std::vector<Image> app = Read(Fixture("macho/bundle/bin/app"));
  ASSERT_EQ(app.size(), 1u);
  EXPECT_EQ(app[0].format, Format::kMachO);
  EXPECT_EQ(app[0].arch, "arm64");
  EXPECT_EQ(app[0].kind, "executable");
  EXPECT_TRUE(Has(DepNames(app[0], DepKind::kNeeded), "@rpath/libfoo.dylib"));
  EXPECT_TRUE(Has(DepNames(app[0], DepKind::kNeeded), "/usr/lib/libSystem.B.dylib"));
  EXPECT_EQ(DepNames(app[0], DepKind::kWeak), std::vector<std::string>{"@rpath/libweak.dylib"});
  ASSERT_EQ(app[0].search_paths.size(), 2u);
  EXPECT_EQ(app[0].search_paths[0].path, "@loader_path/../lib");
  EXPECT_EQ(app[0].search_paths[1].path, "/opt/abs/lib");
  EXPECT_TRUE(Has(app[0].imported, "_foo"));
  EXPECT_TRUE(Has(app[0].exported, "_main"));
  const std::vector<Image> lib = Read(Fixture("macho/bundle/lib/libfoo.dylib"));
  ASSERT_EQ(lib.size(), 1u);
  EXPECT_EQ(lib[0].soname, "@rpath/libfoo.dylib");
  EXPECT_EQ(DepNames(lib[0], DepKind::kReexport), std::vector<std::string>{"@loader_path/libbar.dylib"});
  EXPECT_TRUE(Has(lib[0].exported, "_foo"));  // from the export trie
  EXPECT_TRUE(Has(lib[0].exported, "_foo_extra"));
}

TEST(MachOReader, Universal) {
  SKIP_UNLESS_FIXTURE("macho/libfoo_universal.dylib");
  const std::vector<Image> im = Read(Fixture("macho/libfoo_universal.dylib"));
  ASSERT_EQ(im.size(), 2u);
  std::vector<std::string> arches = {im[0].arch, im[1].arch};
  std::sort(arches.begin(), arches.end());
  EXPECT_EQ(arches, (std::vector<std::string>{"arm64", "x86_64"}));
  for (const Image& i : im) EXPECT_TRUE(Has(i.exported, "_foo"));
}

// The Apple Neural Engine's .hwx files: Mach-O with magic 0xbeefface.
TEST(MachOReader, AneHwxFilesParseOrFailClearly) {
  const std::string dir = testing::SharedDataPath("ane");
  if (dir.empty()) GTEST_SKIP() << "shared data ane/ absent (../shared/data/ane)";
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".hwx") continue;
    ++n;
    const std::vector<uint8_t> bytes = ReadAll(e.path().string());
    ASSERT_TRUE(LooksLikeBinary(bytes)) << e.path();
    Expected<std::vector<Image>> images = ReadImages(bytes);
    if (images.ok()) {
      ASSERT_EQ(images->size(), 1u);
      EXPECT_NE((*images)[0].arch.find("hwx"), std::string::npos);
    } else {
      EXPECT_FALSE(images.status().message().empty()) << e.path();
    }
  }
  EXPECT_GT(n, 0);
}

TEST(Readers, RejectNonBinaries) {
  const std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_FALSE(LooksLikeBinary(text));
  EXPECT_EQ(ReadImages(text).status().code(), ErrorCode::kUnsupported);
  // Java class files share 0xcafebabe with universal Mach-O.
  const std::vector<uint8_t> java = {0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x3d};
  EXPECT_FALSE(LooksLikeBinary(java));
}

TEST(Readers, ErrorsNameFieldAndOffset) {
  SKIP_UNLESS_FIXTURE("elf/good/lib/libengine.so");
  std::vector<uint8_t> elf = ReadAll(Fixture("elf/good/lib/libengine.so"));
  elf.resize(40);
  Expected<std::vector<Image>> r = ReadImages(elf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "truncated: ELF header at byte 0 needs 64 bytes, file has 40");
  std::vector<uint8_t> bad_class = ReadAll(Fixture("elf/good/lib/libengine.so"));
  bad_class[4] = 7;
  EXPECT_EQ(ReadImages(bad_class).status().message(), "EI_CLASS at byte 4: 7 is neither 1 (32-bit) nor 2 (64-bit)");
}

// Every prefix (sampled) and byte corruptions of every fixture: a result or
// an error, never a crash or a hang (ASan/UBSan catch out-of-bounds reads).
TEST(Readers, HostileCopiesNeverCrash) {
  std::vector<std::string> files;
  if (fs::exists(TRIT_BINFMT_FIXTURES)) {
    for (const auto& e : fs::recursive_directory_iterator(TRIT_BINFMT_FIXTURES)) {
      if (e.is_regular_file() && LooksLikeBinary(ReadAll(e.path().string()))) files.push_back(e.path().string());
    }
  }
  if (files.empty()) GTEST_SKIP() << "no fixtures built";
  uint32_t rng = 12345;
  auto next = [&] { return rng = rng * 1664525u + 1013904223u; };
  int n_errors = 0;
  for (const std::string& f : files) {
    const std::vector<uint8_t> bytes = ReadAll(f);
    const size_t step = std::max<size_t>(1, bytes.size() / 300);
    for (size_t len = 0; len < bytes.size(); len += step) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(len));
      Expected<std::vector<Image>> r = ReadImages(cut);
      if (!r.ok()) {
        ++n_errors;
        EXPECT_FALSE(r.status().message().empty());
      }
    }
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<uint8_t> bad = bytes;
      const size_t limit = std::min<size_t>(bad.size(), 8192);  // headers and tables live early
      for (int k = 0; k < 4; ++k) bad[next() % limit] = static_cast<uint8_t>(next());
      Expected<std::vector<Image>> r = ReadImages(bad);
      n_errors += r.ok() ? 0 : 1;
    }
  }
  EXPECT_GT(n_errors, 0);
}

}  // namespace
}  // namespace trit::binfmt
