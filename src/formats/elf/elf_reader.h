// ELF (32- and 64-bit, either byte order): the dynamic section (DT_NEEDED,
// DT_SONAME, DT_RPATH, DT_RUNPATH), the versions required from
// .gnu.version_r (highest GLIBC_, GLIBCXX_, CXXABI_ ...), and the dynamic
// symbols (defined = exported, undefined = imported).
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "formats/binfmt/image.h"

namespace trit::elf {

bool HasElfMagic(std::span<const uint8_t> bytes);

// Every table offset, count and string is checked against `bytes`; errors
// name the field and byte offset. A static executable (no dynamic section)
// reads as an image with no dependencies.
Expected<binfmt::Image> ReadElf(std::span<const uint8_t> bytes);

}  // namespace trit::elf
