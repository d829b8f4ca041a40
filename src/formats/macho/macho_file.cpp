#include "formats/macho/macho_file.h"

#include <fmt/format.h>

namespace trit::macho {

using binfmt::BinaryView;
using binfmt::ByteOrder;

namespace {

bool IsThin(uint32_t magic) { return magic == kMagic32 || magic == kMagic64 || magic == kMagicHwx; }

// A fixed-size name field (segname, sectname): up to 16 bytes, NUL-padded.
std::string FixedName(const BinaryView& v, uint64_t at) {
  std::string name;
  for (uint64_t i = 0; i < 16; ++i) {
    const uint8_t c = v.bytes()[at + i];
    if (c == 0) break;
    name.push_back(static_cast<char>(c));
  }
  return name;
}

}  // namespace

Expected<BinaryView> ThinView(std::span<const uint8_t> bytes, uint64_t base) {
  if (bytes.size() < 4) {
    return Error(ErrorCode::kCorrupt, "truncated: Mach-O magic at byte {} needs 4 bytes, slice has {}", base,
                 bytes.size());
  }
  uint32_t le = 0, be = 0;
  TRIT_RETURN_IF_ERROR(BinaryView(bytes, ByteOrder::kLittle).Read<uint32_t>(0, &le, "Mach-O magic"));
  if (IsThin(le)) return BinaryView(bytes, ByteOrder::kLittle);
  TRIT_RETURN_IF_ERROR(BinaryView(bytes, ByteOrder::kBig).Read<uint32_t>(0, &be, "Mach-O magic"));
  if (IsThin(be)) return BinaryView(bytes, ByteOrder::kBig);
  return Error(ErrorCode::kCorrupt, "Mach-O magic at byte {}: {:#010x} is not a Mach-O header", base, le);
}

Expected<Header> ReadHeader(const BinaryView& v) {
  Header h;
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(0, &h.magic, "Mach-O magic"));
  if (!IsThin(h.magic)) return Error(ErrorCode::kCorrupt, "Mach-O magic at byte 0: {:#010x} is not thin", h.magic);
  h.hwx = h.magic == kMagicHwx;
  h.is64 = h.magic == kMagic64 || h.hwx;
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(4, &h.cputype, "cputype"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(8, &h.cpusubtype, "cpusubtype"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(12, &h.filetype, "filetype"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(16, &h.ncmds, "ncmds"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(20, &h.sizeofcmds, "sizeofcmds"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(24, &h.flags, "flags"));
  h.commands_offset = h.is64 ? 32 : 28;
  return h;
}

Expected<std::vector<LoadCommand>> ReadLoadCommands(const BinaryView& v, const Header& header, uint64_t base) {
  const uint64_t first = header.commands_offset;
  TRIT_RETURN_IF_ERROR(v.Need(first, header.sizeofcmds, "load commands (sizeofcmds)"));
  const uint64_t end = first + header.sizeofcmds;
  std::vector<LoadCommand> commands;
  uint64_t at = first;
  for (uint32_t i = 0; i < header.ncmds; ++i) {
    if (at + 8 > end) {
      return Error(ErrorCode::kCorrupt, "load command {} at byte {}: past sizeofcmds ({} bytes of commands)", i,
                   base + at, header.sizeofcmds);
    }
    LoadCommand c;
    c.offset = at;
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at, &c.cmd, "cmd"));
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at + 4, &c.size, "cmdsize"));
    if (c.size < 8 || c.size > end - at) {
      return Error(ErrorCode::kCorrupt, "cmdsize of load command {} at byte {}: {} is below 8 or past sizeofcmds", i,
                   base + at + 4, c.size);
    }
    commands.push_back(c);
    at += c.size;
  }
  return commands;
}

Expected<Segment> ReadSegment64(const BinaryView& v, const LoadCommand& c, uint64_t base) {
  constexpr uint64_t kSegmentSize = 72, kSectionSize = 80;
  if (c.size < kSegmentSize) {
    return Error(ErrorCode::kCorrupt, "LC_SEGMENT_64 at byte {}: cmdsize {} < {}", base + c.offset, c.size, kSegmentSize);
  }
  Segment s;
  s.command_offset = c.offset;
  s.name = FixedName(v, c.offset + 8);
  uint32_t nsects = 0;
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(c.offset + 24, &s.vmaddr, "segment vmaddr"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(c.offset + 32, &s.vmsize, "segment vmsize"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(c.offset + 40, &s.fileoff, "segment fileoff"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(c.offset + 48, &s.filesize, "segment filesize"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 56, &s.maxprot, "segment maxprot"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 60, &s.initprot, "segment initprot"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 64, &nsects, "segment nsects"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 68, &s.flags, "segment flags"));
  if (nsects > (c.size - kSegmentSize) / kSectionSize) {
    return Error(ErrorCode::kCorrupt, "LC_SEGMENT_64 '{}' at byte {}: {} sections do not fit in cmdsize {}",
                 binfmt::Printable(s.name), base + c.offset, nsects, c.size);
  }
  for (uint32_t i = 0; i < nsects; ++i) {
    const uint64_t at = c.offset + kSegmentSize + i * kSectionSize;
    Section sec;
    sec.header_offset = at;
    sec.sectname = FixedName(v, at);
    sec.segname = FixedName(v, at + 16);
    TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(at + 32, &sec.addr, "section addr"));
    TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(at + 40, &sec.size, "section size"));
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at + 48, &sec.offset, "section offset"));
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at + 52, &sec.align, "section align"));
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at + 64, &sec.flags, "section flags"));
    s.sections.push_back(std::move(sec));
  }
  return s;
}

Expected<SymtabCommand> ReadSymtabCommand(const BinaryView& v, const LoadCommand& c, uint64_t base) {
  if (c.size < 24) return Error(ErrorCode::kCorrupt, "LC_SYMTAB at byte {}: cmdsize {} < 24", base + c.offset, c.size);
  SymtabCommand s;
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 8, &s.symoff, "symoff"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 12, &s.nsyms, "nsyms"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 16, &s.stroff, "stroff"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(c.offset + 20, &s.strsize, "strsize"));
  return s;
}

Expected<std::vector<Symbol>> ReadSymbols(const BinaryView& v, const SymtabCommand& st, bool is64, uint64_t base,
                                          const SymbolFilter& want_name) {
  const uint64_t entry = is64 ? 16 : 12;
  TRIT_RETURN_IF_ERROR(v.Need(st.symoff, uint64_t{st.nsyms} * entry, "symbol table (LC_SYMTAB symoff, nsyms)"));
  TRIT_RETURN_IF_ERROR(v.Need(st.stroff, st.strsize, "string table (LC_SYMTAB stroff, strsize)"));
  std::vector<Symbol> symbols;
  symbols.reserve(st.nsyms);
  for (uint64_t i = 0; i < st.nsyms; ++i) {
    const uint64_t at = st.symoff + i * entry;
    Symbol sym;
    sym.offset = at;
    uint32_t strx = 0;
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at, &strx, "n_strx"));
    TRIT_RETURN_IF_ERROR(v.Read<uint8_t>(at + 4, &sym.type, "n_type"));
    TRIT_RETURN_IF_ERROR(v.Read<uint8_t>(at + 5, &sym.sect, "n_sect"));
    TRIT_RETURN_IF_ERROR(v.Read<uint16_t>(at + 6, &sym.desc, "n_desc"));
    if (is64) {
      TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(at + 8, &sym.value, "n_value"));
    } else {
      uint32_t v32 = 0;
      TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at + 8, &v32, "n_value"));
      sym.value = v32;
    }
    if (!want_name || want_name(sym.type, sym.value)) {
      if (strx >= st.strsize) {
        return Error(ErrorCode::kCorrupt, "n_strx of symbol {} at byte {}: {} is past the string table ({} bytes)", i,
                     base + at, strx, st.strsize);
      }
      TRIT_RETURN_IF_ERROR(
          v.ReadCString(uint64_t{st.stroff} + strx, uint64_t{st.stroff} + st.strsize, &sym.name, "n_strx"));
    }
    symbols.push_back(std::move(sym));
  }
  return symbols;
}

}  // namespace trit::macho
