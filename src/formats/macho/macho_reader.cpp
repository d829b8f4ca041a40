#include "formats/macho/macho_reader.h"

#include <fmt/format.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "formats/binfmt/binary_view.h"

namespace trit::macho {
namespace {

using binfmt::BinaryView;
using binfmt::ByteOrder;

constexpr uint32_t kMagic32 = 0xfeedface, kMagic64 = 0xfeedfacf, kMagicHwx = 0xbeefface;
constexpr uint32_t kFatMagic = 0xcafebabe, kFatMagic64 = 0xcafebabf;
// Java class files (same magic) have a major version >= 45 where nfat_arch would be,
// so a count below 20 (the bound file(1) uses) tells them apart.
constexpr uint32_t kMaxFatArchs = 19;
constexpr uint32_t kLcReqDyld = 0x80000000;
constexpr uint32_t kLcSymtab = 0x2, kLcLoadDylib = 0xc, kLcIdDylib = 0xd, kLcLoadWeakDylib = 0x18 | kLcReqDyld,
                   kLcRpath = 0x1c | kLcReqDyld, kLcReexportDylib = 0x1f | kLcReqDyld, kLcLazyLoadDylib = 0x20,
                   kLcDyldInfo = 0x22, kLcDyldInfoOnly = 0x22 | kLcReqDyld, kLcLoadUpwardDylib = 0x23 | kLcReqDyld,
                   kLcDyldExportsTrie = 0x33 | kLcReqDyld;

std::string CpuName(uint32_t cputype) {
  switch (cputype) {
    case 7: return "i386";
    case 0x01000007: return "x86_64";
    case 12: return "arm";
    case 0x0100000c: return "arm64";
    case 0x0200000c: return "arm64_32";
    case 18: return "ppc";
    case 0x01000012: return "ppc64";
    default: return fmt::format("cputype {:#x}", cputype);
  }
}

std::string FileTypeName(uint32_t filetype) {
  switch (filetype) {
    case 1: return "object";
    case 2: return "executable";
    case 6: return "dylib";
    case 7: return "dylinker";
    case 8: return "bundle";
    case 9: return "dylib stub";
    case 10: return "dSYM";
    default: return fmt::format("filetype {}", filetype);
  }
}

// ULEB128 at `*at` inside [.., limit); advances `*at`.
Status ReadUleb(const BinaryView& v, uint64_t* at, uint64_t limit, uint64_t* out, std::string_view what) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (*at >= limit) return Error(ErrorCode::kCorrupt, "{}: ULEB128 at byte {} runs past its table", what, *at);
    if (shift > 63) return Error(ErrorCode::kCorrupt, "{}: ULEB128 at byte {} is longer than 64 bits", what, *at);
    uint8_t byte = 0;
    TRIT_RETURN_IF_ERROR(v.Read<uint8_t>(*at, &byte, what));
    ++*at;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  *out = value;
  return Status::Ok();
}

class ThinParser {
 public:
  ThinParser(BinaryView v, uint64_t base) : v_(v), base_(base) {}
  Expected<binfmt::Image> Parse();

 private:
  // Offsets in messages are from the start of the file, not of the slice.
  uint64_t At(uint64_t local) const { return base_ + local; }
  Status CommandString(uint64_t cmd_at, uint32_t cmdsize, std::string_view what, std::string* out) const;
  Status ReadExportTrie(uint64_t offset, uint64_t size, binfmt::Image* image) const;
  Status ReadSymtab(binfmt::Image* image, bool with_exports) const;

  BinaryView v_;
  uint64_t base_;
  bool is64_ = true;
  uint32_t symoff_ = 0, nsyms_ = 0, stroff_ = 0, strsize_ = 0;
  bool has_symtab_ = false;
};

// An lc_str: a uint32 offset at byte 8 of the command, to a NUL-terminated
// string inside the command.
Status ThinParser::CommandString(uint64_t cmd_at, uint32_t cmdsize, std::string_view what, std::string* out) const {
  uint32_t offset = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(cmd_at + 8, &offset, what));
  if (offset < 12 || offset >= cmdsize) {
    return Error(ErrorCode::kCorrupt, "{} at byte {}: string offset {} is outside the command ({} bytes)", what,
                 At(cmd_at), offset, cmdsize);
  }
  Status s = v_.ReadCString(cmd_at + offset, cmd_at + cmdsize, out, what);
  return s.ok() ? s : s.WithContext(fmt::format("load command at byte {}", At(cmd_at)));
}

// The export trie: each node is a ULEB128 terminal size, terminal info (a
// symbol ends here), a child count, then (edge label, ULEB128 child offset)
// pairs. Each node is visited once, so a cyclic trie cannot loop.
Status ThinParser::ReadExportTrie(uint64_t offset, uint64_t size, binfmt::Image* image) const {
  TRIT_RETURN_IF_ERROR(v_.Need(offset, size, "export trie"));
  if (size == 0) return Status::Ok();
  const uint64_t end = offset + size;
  std::unordered_set<uint64_t> visited;
  std::vector<std::pair<uint64_t, std::string>> stack = {{0, std::string()}};
  while (!stack.empty()) {
    auto [node, prefix] = std::move(stack.back());
    stack.pop_back();
    if (!visited.insert(node).second) continue;
    uint64_t at = offset + node;
    if (node >= size) {
      return Error(ErrorCode::kCorrupt, "export trie: child offset {} is past the trie ({} bytes at byte {})", node,
                   size, At(offset));
    }
    uint64_t terminal = 0;
    TRIT_RETURN_IF_ERROR(ReadUleb(v_, &at, end, &terminal, "export trie terminal size"));
    if (terminal > end - at) {
      return Error(ErrorCode::kCorrupt, "export trie node at byte {}: terminal size {} runs past the trie", At(at),
                   terminal);
    }
    if (terminal > 0) image->exported.push_back(prefix);
    at += terminal;
    uint8_t n_children = 0;
    TRIT_RETURN_IF_ERROR(v_.Need(at, 1, "export trie child count"));
    if (at >= end) return Error(ErrorCode::kCorrupt, "export trie: child count at byte {} is past the trie", At(at));
    TRIT_RETURN_IF_ERROR(v_.Read<uint8_t>(at, &n_children, "export trie child count"));
    ++at;
    for (uint8_t i = 0; i < n_children; ++i) {
      std::string label;
      TRIT_RETURN_IF_ERROR(v_.ReadCString(at, end, &label, "export trie edge label"));
      at += label.size() + 1;
      uint64_t child = 0;
      TRIT_RETURN_IF_ERROR(ReadUleb(v_, &at, end, &child, "export trie child offset"));
      if (prefix.size() + label.size() > 4096) {
        return Error(ErrorCode::kCorrupt, "export trie at byte {}: a symbol name longer than 4096 bytes", At(at));
      }
      stack.emplace_back(child, prefix + label);
    }
  }
  return Status::Ok();
}

Status ThinParser::ReadSymtab(binfmt::Image* image, bool with_exports) const {
  if (!has_symtab_) return Status::Ok();
  const uint64_t entry = is64_ ? 16 : 12;
  TRIT_RETURN_IF_ERROR(v_.Need(symoff_, uint64_t{nsyms_} * entry, "symbol table (LC_SYMTAB symoff, nsyms)"));
  TRIT_RETURN_IF_ERROR(v_.Need(stroff_, strsize_, "string table (LC_SYMTAB stroff, strsize)"));
  for (uint64_t i = 0; i < nsyms_; ++i) {
    const uint64_t at = symoff_ + i * entry;
    uint32_t strx = 0;
    uint8_t type = 0;
    uint64_t value = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &strx, "n_strx"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint8_t>(at + 4, &type, "n_type"));
    if (is64_) {
      TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(at + 8, &value, "n_value"));
    } else {
      uint32_t v32 = 0;
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &v32, "n_value"));
      value = v32;
    }
    if ((type & 0xe0) != 0 || (type & 0x01) == 0) continue;  // debugging entry, or not external
    const uint8_t kind = type & 0x0e;
    const bool undefined = kind == 0 && value == 0;  // N_UNDF with value 0 (not a common symbol)
    const bool defined = kind == 0x0e || kind == 0x0a || kind == 0x02;  // N_SECT, N_INDR, N_ABS
    if (!undefined && !(with_exports && defined)) continue;
    if (strx >= strsize_) {
      return Error(ErrorCode::kCorrupt, "n_strx of symbol {} at byte {}: {} is past the string table ({} bytes)", i,
                   At(at), strx, strsize_);
    }
    std::string name;
    TRIT_RETURN_IF_ERROR(v_.ReadCString(uint64_t{stroff_} + strx, uint64_t{stroff_} + strsize_, &name, "n_strx"));
    (undefined ? image->imported : image->exported).push_back(std::move(name));
  }
  return Status::Ok();
}

Expected<binfmt::Image> ThinParser::Parse() {
  binfmt::Image image;
  image.format = binfmt::Format::kMachO;
  uint32_t magic_le = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(0, &magic_le, "Mach-O magic"));
  // The view's order was chosen by the caller from the magic.
  const bool hwx = magic_le == kMagicHwx;
  is64_ = magic_le == kMagic64 || hwx;
  image.bits = is64_ ? 64 : 32;
  image.big_endian = v_.order() == ByteOrder::kBig;
  uint32_t cputype = 0, filetype = 0, ncmds = 0, sizeofcmds = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(4, &cputype, "cputype"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(12, &filetype, "filetype"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(16, &ncmds, "ncmds"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(20, &sizeofcmds, "sizeofcmds"));
  image.arch = hwx ? fmt::format("ane (hwx, cputype {:#x})", cputype) : CpuName(cputype);
  image.kind = FileTypeName(filetype);
  const uint64_t first = is64_ ? 32 : 28;
  TRIT_RETURN_IF_ERROR(v_.Need(first, sizeofcmds, "load commands (sizeofcmds)"));
  const uint64_t cmds_end = first + sizeofcmds;
  uint64_t trie_off = 0, trie_size = 0;
  uint64_t at = first;
  for (uint32_t i = 0; i < ncmds; ++i) {
    uint32_t cmd = 0, cmdsize = 0;
    if (at + 8 > cmds_end) {
      return Error(ErrorCode::kCorrupt, "load command {} at byte {}: past sizeofcmds ({} bytes of commands)", i, At(at),
                   sizeofcmds);
    }
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &cmd, "cmd"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 4, &cmdsize, "cmdsize"));
    if (cmdsize < 8 || cmdsize > cmds_end - at) {
      return Error(ErrorCode::kCorrupt, "cmdsize of load command {} at byte {}: {} is below 8 or past sizeofcmds", i,
                   At(at + 4), cmdsize);
    }
    switch (cmd) {
      case kLcLoadDylib:
      case kLcLoadWeakDylib:
      case kLcReexportDylib:
      case kLcLazyLoadDylib:
      case kLcLoadUpwardDylib: {
        std::string name;
        TRIT_RETURN_IF_ERROR(CommandString(at, cmdsize, "dylib name", &name));
        const binfmt::DepKind kind = cmd == kLcLoadWeakDylib   ? binfmt::DepKind::kWeak
                                     : cmd == kLcReexportDylib ? binfmt::DepKind::kReexport
                                                               : binfmt::DepKind::kNeeded;
        image.deps.push_back({std::move(name), kind});
        break;
      }
      case kLcIdDylib: TRIT_RETURN_IF_ERROR(CommandString(at, cmdsize, "LC_ID_DYLIB name", &image.soname)); break;
      case kLcRpath: {
        std::string path;
        TRIT_RETURN_IF_ERROR(CommandString(at, cmdsize, "LC_RPATH path", &path));
        image.search_paths.push_back({std::move(path), binfmt::SearchPathKind::kRpath});
        break;
      }
      case kLcSymtab: {
        TRIT_RETURN_IF_ERROR(v_.Need(at, 24, "LC_SYMTAB"));
        if (cmdsize < 24) return Error(ErrorCode::kCorrupt, "LC_SYMTAB at byte {}: cmdsize {} < 24", At(at), cmdsize);
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &symoff_, "symoff"));
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 12, &nsyms_, "nsyms"));
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 16, &stroff_, "stroff"));
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 20, &strsize_, "strsize"));
        has_symtab_ = true;
        break;
      }
      case kLcDyldInfo:
      case kLcDyldInfoOnly: {
        if (cmdsize < 48) return Error(ErrorCode::kCorrupt, "LC_DYLD_INFO at byte {}: cmdsize {} < 48", At(at), cmdsize);
        uint32_t off = 0, size = 0;
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 40, &off, "export_off"));
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 44, &size, "export_size"));
        if (size > 0) trie_off = off, trie_size = size;
        break;
      }
      case kLcDyldExportsTrie: {
        if (cmdsize < 16) {
          return Error(ErrorCode::kCorrupt, "LC_DYLD_EXPORTS_TRIE at byte {}: cmdsize {} < 16", At(at), cmdsize);
        }
        uint32_t off = 0, size = 0;
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &off, "dataoff"));
        TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 12, &size, "datasize"));
        if (size > 0) trie_off = off, trie_size = size;
        break;
      }
      default: break;
    }
    at += cmdsize;
  }
  if (trie_size > 0) {
    Status s = ReadExportTrie(trie_off, trie_size, &image);
    if (!s.ok()) return s;
  }
  TRIT_RETURN_IF_ERROR(ReadSymtab(&image, /*with_exports=*/trie_size == 0));
  return image;
}

Expected<binfmt::Image> ReadThin(std::span<const uint8_t> bytes, uint64_t base) {
  if (bytes.size() < 4) {
    return Error(ErrorCode::kCorrupt, "truncated: Mach-O magic at byte {} needs 4 bytes, slice has {}", base,
                 bytes.size());
  }
  uint32_t le = 0;
  TRIT_RETURN_IF_ERROR(BinaryView(bytes, ByteOrder::kLittle).Read<uint32_t>(0, &le, "Mach-O magic"));
  ByteOrder order = ByteOrder::kLittle;
  if (le != kMagic32 && le != kMagic64 && le != kMagicHwx) {
    uint32_t be = 0;
    TRIT_RETURN_IF_ERROR(BinaryView(bytes, ByteOrder::kBig).Read<uint32_t>(0, &be, "Mach-O magic"));
    if (be != kMagic32 && be != kMagic64 && be != kMagicHwx) {
      return Error(ErrorCode::kCorrupt, "Mach-O magic at byte {}: {:#010x} is not a Mach-O header", base, le);
    }
    order = ByteOrder::kBig;
  }
  ThinParser parser(BinaryView(bytes, order), base);
  Expected<binfmt::Image> image = parser.Parse();
  return image;
}

bool IsThinMagic(uint32_t le) {
  const uint32_t be = __builtin_bswap32(le);
  for (uint32_t m : {kMagic32, kMagic64, kMagicHwx}) {
    if (le == m || be == m) return true;
  }
  return false;
}

}  // namespace

bool HasMachOMagic(std::span<const uint8_t> bytes) {
  BinaryView be(bytes, ByteOrder::kBig);
  uint32_t magic = 0, n = 0;
  if (!be.Read<uint32_t>(0, &magic, "magic").ok()) return false;
  if (magic == kFatMagic || magic == kFatMagic64) {
    return be.Read<uint32_t>(4, &n, "nfat_arch").ok() && n > 0 && n <= kMaxFatArchs;
  }
  return IsThinMagic(__builtin_bswap32(magic));
}

Expected<std::vector<binfmt::Image>> ReadMachO(std::span<const uint8_t> bytes) {
  BinaryView be(bytes, ByteOrder::kBig);
  uint32_t magic = 0;
  TRIT_RETURN_IF_ERROR(be.Read<uint32_t>(0, &magic, "Mach-O magic"));
  std::vector<binfmt::Image> images;
  if (magic != kFatMagic && magic != kFatMagic64) {
    Expected<binfmt::Image> image = ReadThin(bytes, 0);
    if (!image.ok()) return image.status();
    images.push_back(std::move(*image));
    return images;
  }
  // Universal header: big-endian fat_arch (20 bytes) or fat_arch_64 (32 bytes) entries.
  const bool fat64 = magic == kFatMagic64;
  uint32_t n_arch = 0;
  TRIT_RETURN_IF_ERROR(be.Read<uint32_t>(4, &n_arch, "nfat_arch"));
  if (n_arch == 0 || n_arch > kMaxFatArchs) {
    return Error(ErrorCode::kCorrupt, "nfat_arch at byte 4: {} (expected 1..{})", n_arch, kMaxFatArchs);
  }
  const uint64_t entry = fat64 ? 32 : 20;
  for (uint64_t i = 0; i < n_arch; ++i) {
    const uint64_t at = 8 + i * entry;
    uint64_t offset = 0, size = 0;
    if (fat64) {
      TRIT_RETURN_IF_ERROR(be.Read<uint64_t>(at + 8, &offset, "fat_arch_64 offset"));
      TRIT_RETURN_IF_ERROR(be.Read<uint64_t>(at + 16, &size, "fat_arch_64 size"));
    } else {
      uint32_t o = 0, s = 0;
      TRIT_RETURN_IF_ERROR(be.Read<uint32_t>(at + 8, &o, "fat_arch offset"));
      TRIT_RETURN_IF_ERROR(be.Read<uint32_t>(at + 12, &s, "fat_arch size"));
      offset = o, size = s;
    }
    if (Status s = be.Need(offset, size, fmt::format("slice {} (fat_arch at byte {})", i, at)); !s.ok()) return s;
    if (offset < 8 + n_arch * entry) {
      return Error(ErrorCode::kCorrupt, "slice {} (fat_arch at byte {}): offset {} overlaps the universal header", i, at,
                   offset);
    }
    Expected<binfmt::Image> image = ReadThin(bytes.subspan(offset, size), offset);
    if (!image.ok()) return image.status().WithContext(fmt::format("slice {}", i));
    images.push_back(std::move(*image));
  }
  return images;
}

}  // namespace trit::macho
