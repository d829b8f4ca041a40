#include "formats/pe/pe_reader.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "formats/binfmt/binary_view.h"

namespace trit::pe {
namespace {

using binfmt::BinaryView;
using binfmt::ByteOrder;

constexpr uint32_t kDirExport = 0, kDirImport = 1, kDirDelayImport = 13;

struct SectionEntry {
  uint32_t vaddr = 0, vsize = 0, raw_size = 0, raw_offset = 0;
};

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case 0x14c: return "i386";
    case 0x8664: return "x86-64";
    case 0xaa64: return "arm64";
    case 0x1c4: return "arm";
    default: return fmt::format("machine {:#x}", machine);
  }
}

class PeParser {
 public:
  explicit PeParser(std::span<const uint8_t> bytes) : v_(bytes, ByteOrder::kLittle) {}
  Expected<binfmt::Image> Parse();

 private:
  // The file offset of `rva` and the end of the section bytes holding it.
  Status RvaToOffset(uint64_t rva, std::string_view what, uint64_t* offset, uint64_t* limit) const {
    for (const SectionEntry& s : sections_) {
      if (rva >= s.vaddr && rva - s.vaddr < s.raw_size) {
        *offset = uint64_t{s.raw_offset} + (rva - s.vaddr);
        *limit = std::min<uint64_t>(uint64_t{s.raw_offset} + s.raw_size, v_.size());
        return Status::Ok();
      }
    }
    if (rva < size_of_headers_ && rva < v_.size()) {
      *offset = rva;
      *limit = std::min<uint64_t>(size_of_headers_, v_.size());
      return Status::Ok();
    }
    return Error(ErrorCode::kCorrupt, "{}: RVA {:#x} is in no section's file data", what, rva);
  }
  Status StringAtRva(uint64_t rva, std::string_view what, std::string* out) const {
    uint64_t off = 0, limit = 0;
    TRIT_RETURN_IF_ERROR(RvaToOffset(rva, what, &off, &limit));
    return v_.ReadCString(off, limit, out, what);
  }
  // Names (or "DLL:#ordinal") of a zero-terminated thunk array at `rva`.
  Status ReadThunks(uint64_t rva, const std::string& dll, std::string_view what, binfmt::Image* image) const;
  Status ReadImports(uint32_t rva, binfmt::Image* image) const;
  Status ReadDelayImports(uint32_t rva, binfmt::Image* image) const;
  Status ReadExports(uint32_t rva, binfmt::Image* image) const;

  BinaryView v_;
  bool plus_ = false;  // PE32+
  uint64_t image_base_ = 0;
  uint32_t size_of_headers_ = 0;
  std::vector<SectionEntry> sections_;
  mutable uint64_t n_thunks_ = 0;
};

Status PeParser::ReadThunks(uint64_t rva, const std::string& dll, std::string_view what, binfmt::Image* image) const {
  uint64_t off = 0, limit = 0;
  TRIT_RETURN_IF_ERROR(RvaToOffset(rva, what, &off, &limit));
  const uint64_t width = plus_ ? 8 : 4;
  for (uint64_t at = off;; at += width) {
    if (at + width > limit) {
      return Error(ErrorCode::kCorrupt, "{} of '{}' at byte {}: no terminating zero entry before byte {}", what,
                   binfmt::Printable(dll), off, limit);
    }
    uint64_t thunk = 0;
    if (plus_) {
      TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(at, &thunk, what));
    } else {
      uint32_t t32 = 0;
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &t32, what));
      thunk = t32;
    }
    if (thunk == 0) return Status::Ok();
    // Descriptors may share thunk arrays; bound the total so a hostile file
    // cannot make the list grow quadratically.
    if (++n_thunks_ > v_.size() / width) {
      return Error(ErrorCode::kCorrupt, "{} at byte {}: more import entries than the file can hold", what, at);
    }
    const uint64_t ordinal_flag = plus_ ? (uint64_t{1} << 63) : (uint64_t{1} << 31);
    if (thunk & ordinal_flag) {
      image->imported.push_back(fmt::format("{}:#{}", dll, thunk & 0xffff));
    } else {
      std::string name;
      TRIT_RETURN_IF_ERROR(StringAtRva((thunk & 0x7fffffff) + 2, fmt::format("import name (thunk at byte {})", at), &name));
      image->imported.push_back(std::move(name));
    }
  }
}

// IMAGE_IMPORT_DESCRIPTOR: 20 bytes, ended by an all-zero one.
Status PeParser::ReadImports(uint32_t rva, binfmt::Image* image) const {
  uint64_t off = 0, limit = 0;
  TRIT_RETURN_IF_ERROR(RvaToOffset(rva, "import directory", &off, &limit));
  for (uint64_t at = off;; at += 20) {
    TRIT_RETURN_IF_ERROR(v_.Need(at, 20, "IMAGE_IMPORT_DESCRIPTOR"));
    uint32_t lookup = 0, name = 0, first_thunk = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &lookup, "OriginalFirstThunk"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 12, &name, "import Name"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 16, &first_thunk, "FirstThunk"));
    if (name == 0 && lookup == 0 && first_thunk == 0) return Status::Ok();
    std::string dll;
    TRIT_RETURN_IF_ERROR(StringAtRva(name, fmt::format("import Name (descriptor at byte {})", at), &dll));
    image->deps.push_back({dll, binfmt::DepKind::kNeeded});
    TRIT_RETURN_IF_ERROR(ReadThunks(lookup != 0 ? lookup : first_thunk, dll, "import lookup table", image));
  }
}

// ImgDelayDescr: 32 bytes, ended by one whose DllNameRVA is zero. Attribute
// bit 0 clear means the old (VC6) form that stores VAs instead of RVAs.
Status PeParser::ReadDelayImports(uint32_t rva, binfmt::Image* image) const {
  uint64_t off = 0, limit = 0;
  TRIT_RETURN_IF_ERROR(RvaToOffset(rva, "delay-import directory", &off, &limit));
  for (uint64_t at = off;; at += 32) {
    TRIT_RETURN_IF_ERROR(v_.Need(at, 32, "ImgDelayDescr"));
    uint32_t attributes = 0, name = 0, int_rva = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &attributes, "delay Attributes"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 4, &name, "DllNameRVA"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 16, &int_rva, "ImportNameTableRVA"));
    if (name == 0) return Status::Ok();
    const uint64_t bias = (attributes & 1) ? 0 : image_base_;
    if (name < bias || (int_rva != 0 && int_rva < bias)) {
      return Error(ErrorCode::kCorrupt, "ImgDelayDescr at byte {}: VA below the image base {:#x}", at, image_base_);
    }
    std::string dll;
    TRIT_RETURN_IF_ERROR(StringAtRva(name - bias, fmt::format("DllNameRVA (descriptor at byte {})", at), &dll));
    image->deps.push_back({dll, binfmt::DepKind::kDelay});
    if (int_rva != 0) TRIT_RETURN_IF_ERROR(ReadThunks(int_rva - bias, dll, "delay import name table", image));
  }
}

// IMAGE_EXPORT_DIRECTORY: 40 bytes; names are RVAs in AddressOfNames.
Status PeParser::ReadExports(uint32_t rva, binfmt::Image* image) const {
  uint64_t off = 0, limit = 0;
  TRIT_RETURN_IF_ERROR(RvaToOffset(rva, "export directory", &off, &limit));
  TRIT_RETURN_IF_ERROR(v_.Need(off, 40, "IMAGE_EXPORT_DIRECTORY"));
  uint32_t name = 0, n_names = 0, names_rva = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 12, &name, "export Name"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 24, &n_names, "NumberOfNames"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 32, &names_rva, "AddressOfNames"));
  if (name != 0) TRIT_RETURN_IF_ERROR(StringAtRva(name, "export Name", &image->soname));
  if (n_names == 0) return Status::Ok();
  uint64_t names_off = 0, names_limit = 0;
  TRIT_RETURN_IF_ERROR(RvaToOffset(names_rva, "AddressOfNames", &names_off, &names_limit));
  if (uint64_t{n_names} * 4 > names_limit - names_off) {
    return Error(ErrorCode::kCorrupt, "NumberOfNames at byte {}: {} names run past their section (byte {})", off + 24,
                 n_names, names_limit);
  }
  for (uint64_t i = 0; i < n_names; ++i) {
    uint32_t name_rva = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(names_off + 4 * i, &name_rva, "AddressOfNames entry"));
    std::string text;
    TRIT_RETURN_IF_ERROR(StringAtRva(name_rva, fmt::format("export name {}", i), &text));
    image->exported.push_back(std::move(text));
  }
  return Status::Ok();
}

Expected<binfmt::Image> PeParser::Parse() {
  binfmt::Image image;
  image.format = binfmt::Format::kPe;
  uint32_t pe_offset = 0, signature = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(0x3c, &pe_offset, "e_lfanew"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(pe_offset, &signature, "PE signature (e_lfanew)"));
  if (signature != 0x00004550) {
    return Error(ErrorCode::kCorrupt, "PE signature at byte {}: not PE\\0\\0 (an MS-DOS program?)", pe_offset);
  }
  const uint64_t coff = uint64_t{pe_offset} + 4;
  uint16_t machine = 0, n_sections = 0, opt_size = 0, characteristics = 0, magic = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(coff, &machine, "Machine"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(coff + 2, &n_sections, "NumberOfSections"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(coff + 16, &opt_size, "SizeOfOptionalHeader"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(coff + 18, &characteristics, "Characteristics"));
  image.arch = MachineName(machine);
  image.kind = (characteristics & 0x2000) ? "dll" : (characteristics & 0x0002) ? "executable" : "object";
  const uint64_t opt = coff + 20;
  if (opt_size == 0) return image;  // an object file: no imports to read
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(opt, &magic, "optional header Magic"));
  if (magic != 0x10b && magic != 0x20b) {
    return Error(ErrorCode::kCorrupt, "optional header Magic at byte {}: {:#x} is neither PE32 (0x10b) nor PE32+ (0x20b)",
                 opt, magic);
  }
  plus_ = magic == 0x20b;
  image.bits = plus_ ? 64 : 32;
  if (plus_) {
    TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(opt + 24, &image_base_, "ImageBase"));
  } else {
    uint32_t base = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(opt + 28, &base, "ImageBase"));
    image_base_ = base;
  }
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(opt + 60, &size_of_headers_, "SizeOfHeaders"));
  uint32_t n_dirs = 0;
  const uint64_t n_dirs_at = opt + (plus_ ? 108 : 92);
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(n_dirs_at, &n_dirs, "NumberOfRvaAndSizes"));
  const uint64_t dirs_at = n_dirs_at + 4;
  if (dirs_at + uint64_t{std::min<uint32_t>(n_dirs, 16)} * 8 > opt + opt_size) {
    return Error(ErrorCode::kCorrupt, "NumberOfRvaAndSizes at byte {}: {} directories overrun the optional header ({} bytes)",
                 n_dirs_at, n_dirs, opt_size);
  }
  const uint64_t sections_at = opt + opt_size;
  TRIT_RETURN_IF_ERROR(v_.Need(sections_at, uint64_t{n_sections} * 40, "section table"));
  for (uint64_t i = 0; i < n_sections; ++i) {
    const uint64_t at = sections_at + 40 * i;
    SectionEntry s;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &s.vsize, "VirtualSize"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 12, &s.vaddr, "VirtualAddress"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 16, &s.raw_size, "SizeOfRawData"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 20, &s.raw_offset, "PointerToRawData"));
    // Bytes past VirtualSize are padding, not part of the section's data.
    if (s.vsize != 0 && s.vsize < s.raw_size) s.raw_size = s.vsize;
    sections_.push_back(s);
  }
  auto dir = [&](uint32_t index, uint32_t* rva) -> Status {
    *rva = 0;
    if (index >= n_dirs) return Status::Ok();
    return v_.Read<uint32_t>(dirs_at + 8 * index, rva, "data directory VirtualAddress");
  };
  uint32_t rva = 0;
  TRIT_RETURN_IF_ERROR(dir(kDirImport, &rva));
  if (rva != 0) TRIT_RETURN_IF_ERROR(ReadImports(rva, &image));
  TRIT_RETURN_IF_ERROR(dir(kDirDelayImport, &rva));
  if (rva != 0) TRIT_RETURN_IF_ERROR(ReadDelayImports(rva, &image));
  TRIT_RETURN_IF_ERROR(dir(kDirExport, &rva));
  if (rva != 0) TRIT_RETURN_IF_ERROR(ReadExports(rva, &image));
  return image;
}

}  // namespace

bool HasPeMagic(std::span<const uint8_t> bytes) { return bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z'; }

Expected<binfmt::Image> ReadPe(std::span<const uint8_t> bytes) {
  if (!HasPeMagic(bytes)) return Error(ErrorCode::kCorrupt, "MZ magic at byte 0: missing");
  PeParser parser(bytes);
  return parser.Parse();
}

}  // namespace trit::pe
