#include "formats/macho/macho_reader.h"

#include <fmt/format.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "formats/binfmt/binary_view.h"
#include "formats/macho/macho_file.h"

namespace trit::macho {
namespace {

using binfmt::BinaryView;
using binfmt::ByteOrder;

constexpr uint32_t kFatMagic = 0xcafebabe, kFatMagic64 = 0xcafebabf;
// Java class files (same magic) have a major version >= 45 where nfat_arch would be,
// so a count below 20 (the bound file(1) uses) tells them apart.
constexpr uint32_t kMaxFatArchs = 19;
constexpr uint32_t kLcReqDyld = 0x80000000;
constexpr uint32_t kLcLoadDylib = 0xc, kLcIdDylib = 0xd, kLcLoadWeakDylib = 0x18 | kLcReqDyld,
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
  SymtabCommand symtab_;
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
  // Only external, non-debugging entries: undefined ones (N_UNDF with value 0,
  // not a common symbol) are imports; N_SECT, N_INDR, N_ABS are exports.
  auto classify = [with_exports](uint8_t type, uint64_t value) {
    if ((type & 0xe0) != 0 || (type & 0x01) == 0) return 0;
    const uint8_t kind = type & 0x0e;
    if (kind == 0 && value == 0) return 1;
    if (with_exports && (kind == 0x0e || kind == 0x0a || kind == 0x02)) return 2;
    return 0;
  };
  Expected<std::vector<Symbol>> symbols =
      ReadSymbols(v_, symtab_, is64_, base_, [&](uint8_t type, uint64_t value) { return classify(type, value) != 0; });
  if (!symbols.ok()) return symbols.status();
  for (Symbol& sym : *symbols) {
    const int kind = classify(sym.type, sym.value);
    if (kind != 0) (kind == 1 ? image->imported : image->exported).push_back(std::move(sym.name));
  }
  return Status::Ok();
}

Expected<binfmt::Image> ThinParser::Parse() {
  binfmt::Image image;
  image.format = binfmt::Format::kMachO;
  Expected<Header> header = ReadHeader(v_);
  if (!header.ok()) return header.status();
  is64_ = header->is64;
  image.bits = is64_ ? 64 : 32;
  image.big_endian = v_.order() == ByteOrder::kBig;
  image.arch = header->hwx ? fmt::format("ane (hwx, cputype {:#x})", header->cputype) : CpuName(header->cputype);
  image.kind = FileTypeName(header->filetype);
  Expected<std::vector<LoadCommand>> commands = ReadLoadCommands(v_, *header, base_);
  if (!commands.ok()) return commands.status();
  uint64_t trie_off = 0, trie_size = 0;
  for (const LoadCommand& lc : *commands) {
    const uint32_t cmd = lc.cmd, cmdsize = lc.size;
    const uint64_t at = lc.offset;
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
        Expected<SymtabCommand> st = ReadSymtabCommand(v_, lc, base_);
        if (!st.ok()) return st.status();
        symtab_ = *st;
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
  }
  if (trie_size > 0) {
    Status s = ReadExportTrie(trie_off, trie_size, &image);
    if (!s.ok()) return s;
  }
  TRIT_RETURN_IF_ERROR(ReadSymtab(&image, /*with_exports=*/trie_size == 0));
  return image;
}

Expected<binfmt::Image> ReadThin(std::span<const uint8_t> bytes, uint64_t base) {
  Expected<BinaryView> view = ThinView(bytes, base);
  if (!view.ok()) return view.status();
  ThinParser parser(*view, base);
  return parser.Parse();
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
