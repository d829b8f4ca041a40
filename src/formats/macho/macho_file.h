// The structure of one thin Mach-O image, bounds-checked: the header, the
// load commands, 64-bit segments with their sections, and the symbol table.
// Shared by the dependency reader (macho_reader.h, `trit bundle`) and the
// Apple Neural Engine reader (formats/hwx, `trit hwx`), whose .hwx files are
// Mach-O images with the magic 0xbeefface. Offsets in error messages are from
// the start of the file (`base` is where the image starts in it).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/binfmt/binary_view.h"

namespace trit::macho {

constexpr uint32_t kMagic32 = 0xfeedface, kMagic64 = 0xfeedfacf, kMagicHwx = 0xbeefface;
constexpr uint32_t kLcSymtab = 0x2, kLcThread = 0x4, kLcUnixThread = 0x5, kLcLoadFvmlib = 0x6, kLcIdent = 0x8,
                   kLcSegment64 = 0x19;

struct Header {
  uint32_t magic = 0;  // as read in the image's byte order
  uint32_t cputype = 0, cpusubtype = 0, filetype = 0, ncmds = 0, sizeofcmds = 0, flags = 0;
  bool is64 = true;
  bool hwx = false;               // magic 0xbeefface (Apple Neural Engine)
  uint64_t commands_offset = 0;   // 32 (64-bit) or 28 (32-bit)
};

struct LoadCommand {
  uint32_t cmd = 0;
  uint32_t size = 0;    // cmdsize, >= 8, inside sizeofcmds
  uint64_t offset = 0;  // of the command in the view
};

struct Section {
  std::string segname, sectname;
  uint64_t addr = 0, size = 0;
  uint32_t offset = 0, align = 0, flags = 0;
  uint64_t header_offset = 0;  // of the section_64 record
};

struct Segment {
  std::string name;
  uint64_t vmaddr = 0, vmsize = 0, fileoff = 0, filesize = 0;
  uint32_t maxprot = 0, initprot = 0, flags = 0;
  uint64_t command_offset = 0;
  std::vector<Section> sections;
};

struct SymtabCommand {
  uint32_t symoff = 0, nsyms = 0, stroff = 0, strsize = 0;
};

struct Symbol {
  std::string name;  // empty when the caller's filter skipped it
  uint8_t type = 0, sect = 0;
  uint16_t desc = 0;
  uint64_t value = 0;
  uint64_t offset = 0;  // of the nlist entry
};

// A view of `bytes` in the byte order its thin magic says (0xfeedface,
// 0xfeedfacf or 0xbeefface, either order); an error for any other magic.
Expected<binfmt::BinaryView> ThinView(std::span<const uint8_t> bytes, uint64_t base);

Expected<Header> ReadHeader(const binfmt::BinaryView& v);

// Every load command, each checked to lie inside sizeofcmds.
Expected<std::vector<LoadCommand>> ReadLoadCommands(const binfmt::BinaryView& v, const Header& header, uint64_t base);

// LC_SEGMENT_64 and its section_64 records (their count checked against cmdsize).
Expected<Segment> ReadSegment64(const binfmt::BinaryView& v, const LoadCommand& command, uint64_t base);

Expected<SymtabCommand> ReadSymtabCommand(const binfmt::BinaryView& v, const LoadCommand& command, uint64_t base);

// The nlist entries of the symbol table. Names are read (and checked) only
// for the entries `want_name(type, value)` accepts; all when it is empty.
using SymbolFilter = std::function<bool(uint8_t type, uint64_t value)>;
Expected<std::vector<Symbol>> ReadSymbols(const binfmt::BinaryView& v, const SymtabCommand& symtab, bool is64,
                                          uint64_t base, const SymbolFilter& want_name = {});

}  // namespace trit::macho
