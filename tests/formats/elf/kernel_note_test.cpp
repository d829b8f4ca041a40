// ELF notes (elf::ReadElfNotes) and the trit.kernel note of device kernels
// (elf/kernel_note.h) on shared objects built by gcc in make_fixtures.sh
// carrying the note as a toolchain writes it, on every truncation of one
// (an error or notes, never a crash: ASan/UBSan too), and on note texts
// that break each rule.
#include "formats/elf/kernel_note.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/binfmt/fixture_files.h"

namespace trit::elf {
namespace {

namespace fs = std::filesystem;

using testing::Fixture;
using testing::ReadAll;

std::span<const uint8_t> Bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

TEST(ElfNotes, AKernelBuiltByTheHostToolchainCarriesItsNote) {
  const std::string path = Fixture("elf/kernels/full_i8_matmul_K640_N2048.elf");
  if (!fs::exists(path)) GTEST_SKIP() << "fixture not built (see .skipped)";
  Expected<std::vector<ElfNote>> notes = ReadElfNotes(ReadAll(path));
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  bool build_id = false;
  for (const ElfNote& n : *notes) build_id |= n.name == "GNU" && n.section == ".note.gnu.build-id";
  EXPECT_TRUE(build_id) << "the linker's own note is read too";
  Expected<KernelNote> k = FindKernelNote(*notes);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->op, "matmul");
  EXPECT_EQ(k->k, 640);
  EXPECT_EQ(k->n, 2048);
  EXPECT_EQ(k->m, 64);
  EXPECT_EQ(KernelNoteText(*k), "op=matmul K=640 N=2048 M=64");

  Expected<std::vector<ElfNote>> head = ReadElfNotes(ReadAll(Fixture("elf/kernels/SEALED-lmhead.elf")));
  ASSERT_TRUE(head.ok());
  Expected<KernelNote> lm = FindKernelNote(*head);
  ASSERT_TRUE(lm.ok());
  EXPECT_EQ(lm->n, 262144);
  EXPECT_EQ(lm->m, 1);

  Expected<std::vector<ElfNote>> plain = ReadElfNotes(ReadAll(Fixture("elf/kernels/no_note.elf")));
  ASSERT_TRUE(plain.ok());
  Expected<KernelNote> none = FindKernelNote(*plain);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.status().message().find("no trit.kernel note"), std::string::npos);
}

TEST(ElfNotes, TruncatedOrCorruptKernelsGiveErrorsNotCrashes) {
  const std::string path = Fixture("elf/kernels/full_i8_matmul_K640_N2048.elf");
  if (!fs::exists(path)) GTEST_SKIP() << "fixture not built (see .skipped)";
  const std::vector<uint8_t> bytes = ReadAll(path);
  for (size_t n = 0; n < bytes.size(); n += 7) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    (void)ReadElfNotes(cut);  // an error or notes
  }
  EXPECT_FALSE(ReadElfNotes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 40)).ok());
  // Every note size field set huge: each is refused by name.
  Expected<std::vector<ElfNote>> notes = ReadElfNotes(bytes);
  ASSERT_TRUE(notes.ok());
  size_t refused = 0;
  for (size_t at = 0; at + 4 <= bytes.size(); ++at) {
    // The trit.kernel note's header: namesz 12, descsz 28, type 1.
    if (bytes[at] == 12 && bytes[at + 1] == 0 && bytes[at + 4] == 28 && bytes[at + 8] == 1 && at + 12 < bytes.size() &&
        bytes[at + 12] == 't') {
      std::vector<uint8_t> bad = bytes;
      bad[at + 7] = 0x7f;  // n_descsz far past the section
      Expected<std::vector<ElfNote>> r = ReadElfNotes(bad);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find("runs past the section's end"), std::string::npos) << r.status().message();
      ++refused;
    }
  }
  EXPECT_EQ(refused, 1u);
}

TEST(KernelNoteText, EachRuleBrokenIsNamed) {
  struct Case {
    std::string text;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"op=matmul K=640 N=2048", "no M="},
           {"K=1 N=2 M=3", "no op="},
           {"op=matmul K=640 N=2048 M=0", "M=0 is not a positive integer"},
           {"op=matmul K=-640 N=2048 M=4", "K=-640 is not a positive integer"},
           {"op=matmul K=64x N=2048 M=4", "K=64x is not a positive integer"},
           {"op=matmul K=640 K=641 N=2048 M=4", "K given twice"},
           {"op=matmul K=640 N=2048 M=4 junk", "'junk' is not key=value"},
           {"op= K=1 N=1 M=1", "op= is empty"},
           {std::string("op=matmul\0K=1 N=1 M=1", 21), "NUL byte"},
       }) {
    const Expected<KernelNote> k = ParseKernelNote(Bytes(c.text));
    ASSERT_FALSE(k.ok()) << c.text;
    EXPECT_NE(k.status().message().find(c.error), std::string::npos) << c.text << ": " << k.status().message();
  }
  // Newlines, trailing NULs and a toolchain's own keys are fine.
  const std::string ok = std::string("op=matmul\nK=640 N=2048\tM=8 xdna.tile=4x4\0\0", 43);
  Expected<KernelNote> k = ParseKernelNote(Bytes(ok));
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->m, 8);
  EXPECT_EQ(k->extra.at("xdna.tile"), "4x4");
  EXPECT_EQ(KernelNoteText(*k), "op=matmul K=640 N=2048 M=8 xdna.tile=4x4");
}

TEST(KernelNoteText, TwoKernelNotesOrTheWrongTypeAreRefused) {
  ElfNote a;
  a.section = ".note.trit.kernel";
  a.name = kKernelNoteName;
  a.type = kKernelNoteType;
  const std::string text = "op=matmul K=1 N=2 M=3";
  a.desc.assign(text.begin(), text.end());
  ElfNote b = a;
  b.section = ".note.other";
  Expected<KernelNote> two = FindKernelNote({a, b});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("two trit.kernel notes"), std::string::npos);
  b.type = 2;
  Expected<KernelNote> typed = FindKernelNote({b});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("of type 2"), std::string::npos);
  EXPECT_TRUE(FindKernelNote({a}).ok());
}

}  // namespace
}  // namespace trit::elf
