// Mach-O: thin files (64- and 32-bit, either byte order, and Apple Neural
// Engine .hwx files, whose magic 0xbeefface marks a 64-bit layout) and
// fat/universal files (one image per slice). Reads LC_LOAD_DYLIB,
// LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB (and the lazy/upward variants as
// plain loads), LC_ID_DYLIB, LC_RPATH, exported symbols from the export trie
// (LC_DYLD_INFO[_ONLY] or LC_DYLD_EXPORTS_TRIE) or else the symbol table, and
// undefined external symbols from the symbol table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "formats/binfmt/image.h"

namespace trit::macho {

// Thin Mach-O or HWX magic in either byte order, or a universal header whose
// architecture count is plausible (0xcafebabe is also Java's class magic; a
// class file's version makes the count far larger).
bool HasMachOMagic(std::span<const uint8_t> bytes);

Expected<std::vector<binfmt::Image>> ReadMachO(std::span<const uint8_t> bytes);

}  // namespace trit::macho
