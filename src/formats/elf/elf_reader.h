// ELF (32- and 64-bit, either byte order): the dynamic section (DT_NEEDED,
// DT_SONAME, DT_RPATH, DT_RUNPATH), the versions required from
// .gnu.version_r (highest GLIBC_, GLIBCXX_, CXXABI_ ...), and the dynamic
// symbols (defined = exported, undefined = imported); and the notes of the
// note sections (a device kernel's trit.kernel note, docs/PACKS.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/binfmt/image.h"

namespace trit::elf {

bool HasElfMagic(std::span<const uint8_t> bytes);

// Every table offset, count and string is checked against `bytes`; errors
// name the field and byte offset. A static executable (no dynamic section)
// reads as an image with no dependencies.
Expected<binfmt::Image> ReadElf(std::span<const uint8_t> bytes);

// One entry of an SHT_NOTE section.
struct ElfNote {
  std::string section;        // the section's name (".note.trit.kernel"), "" without a name table
  std::string name;           // the note's owner name ("trit.kernel", "GNU")
  uint32_t type = 0;
  std::vector<uint8_t> desc;  // the descriptor's bytes
};

// Every note of every note section, in file order. The header, the section
// table, the section name table and every note's sizes are checked against
// `bytes`; errors name the field, section and byte offset.
Expected<std::vector<ElfNote>> ReadElfNotes(std::span<const uint8_t> bytes);

}  // namespace trit::elf
