#include "formats/elf/elf_reader.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "formats/binfmt/binary_view.h"

namespace trit::elf {
namespace {

using binfmt::BinaryView;
using binfmt::ByteOrder;

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtInterp = 3;
constexpr uint32_t kShtDynsym = 11, kShtNote = 7;
constexpr int64_t kDtNull = 0, kDtNeeded = 1, kDtHash = 4, kDtStrtab = 5, kDtSymtab = 6, kDtStrsz = 10,
                  kDtSoname = 14, kDtRpath = 15, kDtRunpath = 29, kDtGnuHash = 0x6ffffef5,
                  kDtVerneed = 0x6ffffffe, kDtVerneedNum = 0x6fffffff;

struct Segment {
  uint32_t type = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0;
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0, addralign = 0;
};

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case 2: return "sparc";
    case 3: return "i386";
    case 8: return "mips";
    case 20: return "powerpc";
    case 21: return "powerpc64";
    case 22: return "s390";
    case 40: return "arm";
    case 43: return "sparcv9";
    case 62: return "x86-64";
    case 183: return "aarch64";
    case 243: return "riscv";
    case 258: return "loongarch";
    default: return fmt::format("machine {}", machine);
  }
}

class ElfParser {
 public:
  ElfParser(std::span<const uint8_t> bytes, bool is64, ByteOrder order) : v_(bytes, order), is64_(is64) {}

  Expected<binfmt::Image> Parse();
  Expected<std::vector<ElfNote>> Notes();

 private:
  // A word of the file's class: 4 bytes in ELF32, 8 in ELF64.
  Status Word(uint64_t offset, uint64_t* out, std::string_view what) const {
    if (is64_) return v_.Read<uint64_t>(offset, out, what);
    uint32_t w = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(offset, &w, what));
    *out = w;
    return Status::Ok();
  }
  uint64_t WordSize() const { return is64_ ? 8 : 4; }

  // The file offset of virtual address `addr` (through the PT_LOAD segments).
  Status AddrToOffset(uint64_t addr, std::string_view what, uint64_t* out) const {
    for (const Segment& s : segments_) {
      if (s.type == kPtLoad && addr >= s.vaddr && addr - s.vaddr < s.filesz) {
        *out = s.offset + (addr - s.vaddr);
        return Status::Ok();
      }
    }
    return Error(ErrorCode::kCorrupt, "{}: address {:#x} is in no loaded segment", what, addr);
  }

  Status ReadSegments();
  Status ReadSections();
  Status ReadDynamic(binfmt::Image* image);
  Status ReadVerneed(uint64_t offset, uint64_t count, binfmt::Image* image);
  Status CountSymbolsFromHash(uint64_t* count);
  Status ReadSymbols(uint64_t offset, uint64_t count, uint64_t entsize, uint64_t str_offset, uint64_t str_size,
                     binfmt::Image* image);

  BinaryView v_;
  bool is64_;
  std::vector<Segment> segments_;
  std::vector<Section> sections_;
  std::vector<std::pair<int64_t, uint64_t>> dynamic_;
  uint64_t strtab_offset_ = 0, strtab_size_ = 0;
  bool has_strtab_ = false;
  uint64_t hash_addr_ = 0, gnu_hash_addr_ = 0, symtab_addr_ = 0;
};

Status ElfParser::ReadSegments() {
  uint64_t phoff = 0;
  uint16_t phentsize = 0, phnum = 0;
  TRIT_RETURN_IF_ERROR(Word(is64_ ? 32 : 28, &phoff, "e_phoff"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(is64_ ? 54 : 42, &phentsize, "e_phentsize"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(is64_ ? 56 : 44, &phnum, "e_phnum"));
  if (phnum == 0) return Status::Ok();
  const uint64_t min_size = is64_ ? 56 : 32;
  if (phentsize < min_size) {
    return Error(ErrorCode::kCorrupt, "e_phentsize at byte {}: {} is smaller than a program header ({})",
                 is64_ ? 54 : 42, phentsize, min_size);
  }
  TRIT_RETURN_IF_ERROR(v_.Need(phoff, uint64_t{phentsize} * phnum, "program header table (e_phoff)"));
  for (uint64_t i = 0; i < phnum; ++i) {
    const uint64_t at = phoff + i * phentsize;
    Segment s;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &s.type, "p_type"));
    if (is64_) {
      TRIT_RETURN_IF_ERROR(Word(at + 8, &s.offset, "p_offset"));
      TRIT_RETURN_IF_ERROR(Word(at + 16, &s.vaddr, "p_vaddr"));
      TRIT_RETURN_IF_ERROR(Word(at + 32, &s.filesz, "p_filesz"));
    } else {
      TRIT_RETURN_IF_ERROR(Word(at + 4, &s.offset, "p_offset"));
      TRIT_RETURN_IF_ERROR(Word(at + 8, &s.vaddr, "p_vaddr"));
      TRIT_RETURN_IF_ERROR(Word(at + 16, &s.filesz, "p_filesz"));
    }
    segments_.push_back(s);
  }
  return Status::Ok();
}

Status ElfParser::ReadSections() {
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0;
  TRIT_RETURN_IF_ERROR(Word(is64_ ? 40 : 32, &shoff, "e_shoff"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(is64_ ? 58 : 46, &shentsize, "e_shentsize"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(is64_ ? 60 : 48, &shnum, "e_shnum"));
  if (shnum == 0 || shoff == 0) return Status::Ok();
  const uint64_t min_size = is64_ ? 64 : 40;
  if (shentsize < min_size) {
    return Error(ErrorCode::kCorrupt, "e_shentsize at byte {}: {} is smaller than a section header ({})",
                 is64_ ? 58 : 46, shentsize, min_size);
  }
  TRIT_RETURN_IF_ERROR(v_.Need(shoff, uint64_t{shentsize} * shnum, "section header table (e_shoff)"));
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * shentsize;
    const uint64_t w = WordSize();
    Section s;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &s.name, "sh_name"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 4, &s.type, "sh_type"));
    TRIT_RETURN_IF_ERROR(Word(at + 8 + 2 * w, &s.offset, "sh_offset"));
    TRIT_RETURN_IF_ERROR(Word(at + 8 + 3 * w, &s.size, "sh_size"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8 + 4 * w, &s.link, "sh_link"));
    TRIT_RETURN_IF_ERROR(Word(at + 16 + 4 * w, &s.addralign, "sh_addralign"));
    TRIT_RETURN_IF_ERROR(Word(at + 16 + 5 * w, &s.entsize, "sh_entsize"));
    sections_.push_back(s);
  }
  return Status::Ok();
}

Status ElfParser::ReadDynamic(binfmt::Image* image) {
  const Segment* dyn = nullptr;
  for (const Segment& s : segments_) {
    if (s.type == kPtDynamic) dyn = &s;
  }
  if (dyn == nullptr) return Status::Ok();
  TRIT_RETURN_IF_ERROR(v_.Need(dyn->offset, dyn->filesz, "PT_DYNAMIC segment"));
  const uint64_t entry = 2 * WordSize();
  uint64_t verneed_addr = 0, verneed_num = 0;
  for (uint64_t at = dyn->offset; at + entry <= dyn->offset + dyn->filesz; at += entry) {
    uint64_t tag = 0, val = 0;
    TRIT_RETURN_IF_ERROR(Word(at, &tag, "d_tag"));
    TRIT_RETURN_IF_ERROR(Word(at + WordSize(), &val, "d_val"));
    const int64_t stag = is64_ ? static_cast<int64_t>(tag) : static_cast<int64_t>(static_cast<int32_t>(tag));
    if (stag == kDtNull) break;
    switch (stag) {
      case kDtStrtab: {
        TRIT_RETURN_IF_ERROR(AddrToOffset(val, fmt::format("DT_STRTAB (dynamic entry at byte {})", at),
                                          &strtab_offset_));
        has_strtab_ = true;
        break;
      }
      case kDtStrsz: strtab_size_ = val; break;
      case kDtVerneed: verneed_addr = val; break;
      case kDtVerneedNum: verneed_num = val; break;
      case kDtHash: hash_addr_ = val; break;
      case kDtGnuHash: gnu_hash_addr_ = val; break;
      case kDtSymtab: symtab_addr_ = val; break;
      default: dynamic_.emplace_back(stag, val); break;
    }
  }
  bool needs_strings = verneed_num > 0;
  for (const auto& [tag, val] : dynamic_) {
    needs_strings |= tag == kDtNeeded || tag == kDtSoname || tag == kDtRpath || tag == kDtRunpath;
  }
  if (!needs_strings) return Status::Ok();
  if (!has_strtab_) return Error(ErrorCode::kCorrupt, "dynamic section at byte {}: no DT_STRTAB", dyn->offset);
  TRIT_RETURN_IF_ERROR(v_.Need(strtab_offset_, strtab_size_, "dynamic string table (DT_STRTAB + DT_STRSZ)"));
  const uint64_t str_end = strtab_offset_ + strtab_size_;
  for (const auto& [tag, val] : dynamic_) {
    if (tag != kDtNeeded && tag != kDtSoname && tag != kDtRpath && tag != kDtRunpath) continue;
    const char* name = tag == kDtNeeded ? "DT_NEEDED" : tag == kDtSoname ? "DT_SONAME" : tag == kDtRpath ? "DT_RPATH" : "DT_RUNPATH";
    if (val >= strtab_size_) {
      return Error(ErrorCode::kCorrupt, "{}: string offset {} is past the dynamic string table ({} bytes at byte {})",
                   name, val, strtab_size_, strtab_offset_);
    }
    std::string text;
    TRIT_RETURN_IF_ERROR(v_.ReadCString(strtab_offset_ + val, str_end, &text, name));
    if (tag == kDtNeeded) {
      image->deps.push_back({text, binfmt::DepKind::kNeeded});
    } else if (tag == kDtSoname) {
      image->soname = text;
    } else {
      // A colon-separated list; each entry is searched in order.
      size_t start = 0;
      while (start <= text.size()) {
        const size_t colon = std::min(text.find(':', start), text.size());
        if (colon > start) {
          image->search_paths.push_back({text.substr(start, colon - start),
                                         tag == kDtRpath ? binfmt::SearchPathKind::kRpath
                                                         : binfmt::SearchPathKind::kRunpath});
        }
        start = colon + 1;
      }
    }
  }
  if (verneed_num > 0) {
    uint64_t off = 0;
    TRIT_RETURN_IF_ERROR(AddrToOffset(verneed_addr, "DT_VERNEED", &off));
    TRIT_RETURN_IF_ERROR(ReadVerneed(off, verneed_num, image));
  }
  return Status::Ok();
}

// Elf_Verneed (16 bytes) entries, each with vn_cnt Elf_Vernaux (16 bytes);
// the same layout in ELF32 and ELF64. Names look like "GLIBC_2.34".
Status ElfParser::ReadVerneed(uint64_t offset, uint64_t count, binfmt::Image* image) {
  if (count > v_.size() / 16) {
    return Error(ErrorCode::kCorrupt, "DT_VERNEEDNUM: {} entries cannot fit in a {}-byte file", count, v_.size());
  }
  const uint64_t str_end = strtab_offset_ + strtab_size_;
  uint64_t at = offset;
  uint64_t n_aux_total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint16_t cnt = 0;
    uint32_t aux = 0, next = 0;
    TRIT_RETURN_IF_ERROR(v_.Need(at, 16, "Elf_Verneed"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(at + 2, &cnt, "vn_cnt"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &aux, "vn_aux"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 12, &next, "vn_next"));
    uint64_t aux_at = at + aux;
    for (uint16_t k = 0; k < cnt; ++k) {
      if (++n_aux_total > v_.size() / 16) {
        return Error(ErrorCode::kCorrupt, "Elf_Vernaux at byte {}: more entries than the file can hold", aux_at);
      }
      uint32_t name = 0, aux_next = 0;
      TRIT_RETURN_IF_ERROR(v_.Need(aux_at, 16, "Elf_Vernaux"));
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(aux_at + 8, &name, "vna_name"));
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(aux_at + 12, &aux_next, "vna_next"));
      if (name >= strtab_size_) {
        return Error(ErrorCode::kCorrupt, "vna_name at byte {}: string offset {} is past the string table ({} bytes)",
                     aux_at + 8, name, strtab_size_);
      }
      std::string version;
      TRIT_RETURN_IF_ERROR(v_.ReadCString(strtab_offset_ + name, str_end, &version, "vna_name"));
      const size_t underscore = version.rfind('_');
      if (underscore != std::string::npos && underscore > 0 && underscore + 1 < version.size()) {
        const std::string prefix = version.substr(0, underscore);
        const std::string number = version.substr(underscore + 1);
        auto it = image->max_versions.find(prefix);
        if (it == image->max_versions.end() || binfmt::CompareVersions(it->second, number) < 0) {
          image->max_versions[prefix] = number;
        }
      }
      if (aux_next == 0) break;
      aux_at += aux_next;
    }
    if (next == 0) break;
    at += next;
  }
  return Status::Ok();
}

// The number of dynamic symbols when there are no section headers: DT_HASH's
// nchain, or the end of the last DT_GNU_HASH chain.
Status ElfParser::CountSymbolsFromHash(uint64_t* count) {
  *count = 0;
  uint64_t off = 0;
  if (hash_addr_ != 0) {
    TRIT_RETURN_IF_ERROR(AddrToOffset(hash_addr_, "DT_HASH", &off));
    uint32_t nchain = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 4, &nchain, "DT_HASH nchain"));
    *count = nchain;
    return Status::Ok();
  }
  if (gnu_hash_addr_ == 0) return Status::Ok();
  TRIT_RETURN_IF_ERROR(AddrToOffset(gnu_hash_addr_, "DT_GNU_HASH", &off));
  uint32_t nbuckets = 0, symoffset = 0, bloom_size = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off, &nbuckets, "DT_GNU_HASH nbuckets"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 4, &symoffset, "DT_GNU_HASH symoffset"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(off + 8, &bloom_size, "DT_GNU_HASH bloom_size"));
  const uint64_t buckets = off + 16 + uint64_t{bloom_size} * WordSize();
  TRIT_RETURN_IF_ERROR(v_.Need(buckets, uint64_t{nbuckets} * 4, "DT_GNU_HASH buckets"));
  uint32_t max_bucket = 0;
  for (uint64_t i = 0; i < nbuckets; ++i) {
    uint32_t b = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(buckets + 4 * i, &b, "DT_GNU_HASH bucket"));
    max_bucket = std::max(max_bucket, b);
  }
  if (max_bucket < symoffset) {
    *count = symoffset;
    return Status::Ok();
  }
  const uint64_t chains = buckets + uint64_t{nbuckets} * 4;
  for (uint64_t idx = max_bucket;; ++idx) {
    uint32_t h = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(chains + 4 * (idx - symoffset), &h, "DT_GNU_HASH chain"));
    if (h & 1u) {
      *count = idx + 1;
      return Status::Ok();
    }
  }
}

Status ElfParser::ReadSymbols(uint64_t offset, uint64_t count, uint64_t entsize, uint64_t str_offset,
                              uint64_t str_size, binfmt::Image* image) {
  const uint64_t min_size = is64_ ? 24 : 16;
  if (entsize < min_size) {
    return Error(ErrorCode::kCorrupt, "dynamic symbol table at byte {}: entry size {} is below {}", offset, entsize,
                 min_size);
  }
  if (count > v_.size() / entsize) {
    return Error(ErrorCode::kCorrupt, "dynamic symbol table at byte {}: {} symbols cannot fit in a {}-byte file",
                 offset, count, v_.size());
  }
  TRIT_RETURN_IF_ERROR(v_.Need(offset, count * entsize, "dynamic symbol table"));
  TRIT_RETURN_IF_ERROR(v_.Need(str_offset, str_size, "dynamic symbol string table"));
  for (uint64_t i = 1; i < count; ++i) {  // entry 0 is the reserved null symbol
    const uint64_t at = offset + i * entsize;
    uint32_t name = 0;
    uint8_t info = 0, other = 0;
    uint16_t shndx = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &name, "st_name"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint8_t>(at + (is64_ ? 4 : 12), &info, "st_info"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint8_t>(at + (is64_ ? 5 : 13), &other, "st_other"));
    TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(at + (is64_ ? 6 : 14), &shndx, "st_shndx"));
    if (name == 0) continue;
    if (name >= str_size) {
      return Error(ErrorCode::kCorrupt, "st_name of symbol {} at byte {}: offset {} is past the string table ({} bytes)",
                   i, at, name, str_size);
    }
    std::string text;
    TRIT_RETURN_IF_ERROR(v_.ReadCString(str_offset + name, str_offset + str_size, &text, "st_name"));
    const uint8_t bind = info >> 4, type = info & 0xf;
    if (shndx == 0) {
      image->imported.push_back(std::move(text));
    } else if ((bind == 1 || bind == 2 || bind == 10) && type != 3 && type != 4 && ((other & 3) == 0 || (other & 3) == 3)) {
      image->exported.push_back(std::move(text));
    }
  }
  return Status::Ok();
}

Expected<binfmt::Image> ElfParser::Parse() {
  binfmt::Image image;
  image.format = binfmt::Format::kElf;
  image.bits = is64_ ? 64 : 32;
  image.big_endian = v_.order() == ByteOrder::kBig;
  uint16_t type = 0, machine = 0;
  TRIT_RETURN_IF_ERROR(v_.Need(0, is64_ ? 64 : 52, "ELF header"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(16, &type, "e_type"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(18, &machine, "e_machine"));
  image.arch = MachineName(machine);
  TRIT_RETURN_IF_ERROR(ReadSegments());
  TRIT_RETURN_IF_ERROR(ReadSections());
  bool interp = false;
  for (const Segment& s : segments_) interp |= s.type == kPtInterp;
  switch (type) {
    case 1: image.kind = "relocatable"; break;
    case 2: image.kind = "executable"; break;
    case 3: image.kind = interp ? "executable (PIE)" : "shared library"; break;
    case 4: image.kind = "core"; break;
    default: image.kind = fmt::format("type {}", type); break;
  }
  TRIT_RETURN_IF_ERROR(ReadDynamic(&image));
  // Dynamic symbols: from the SHT_DYNSYM section when there are section
  // headers, else through DT_SYMTAB and the hash table's count.
  for (size_t i = 0; i < sections_.size(); ++i) {
    const Section& s = sections_[i];
    if (s.type != kShtDynsym) continue;
    if (s.link >= sections_.size()) {
      return Error(ErrorCode::kCorrupt, "SHT_DYNSYM section {}: sh_link {} names no section ({} sections)", i, s.link,
                   sections_.size());
    }
    const Section& str = sections_[s.link];
    if (s.entsize == 0) return Error(ErrorCode::kCorrupt, "SHT_DYNSYM section {}: sh_entsize is 0", i);
    TRIT_RETURN_IF_ERROR(ReadSymbols(s.offset, s.size / s.entsize, s.entsize, str.offset, str.size, &image));
    return image;
  }
  if (symtab_addr_ != 0 && has_strtab_) {
    uint64_t count = 0, off = 0;
    TRIT_RETURN_IF_ERROR(CountSymbolsFromHash(&count));
    if (count > 0) {
      TRIT_RETURN_IF_ERROR(AddrToOffset(symtab_addr_, "DT_SYMTAB", &off));
      TRIT_RETURN_IF_ERROR(ReadSymbols(off, count, is64_ ? 24 : 16, strtab_offset_, strtab_size_, &image));
    }
  }
  return image;
}

// The notes of every SHT_NOTE section: each entry's namesz, descsz and
// type, then the name and the descriptor, each padded to the section's
// alignment (4, or 8 where the section says 8), all inside the section.
Expected<std::vector<ElfNote>> ElfParser::Notes() {
  TRIT_RETURN_IF_ERROR(v_.Need(0, is64_ ? 64 : 52, "ELF header"));
  TRIT_RETURN_IF_ERROR(ReadSections());
  uint16_t shstrndx = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint16_t>(is64_ ? 62 : 50, &shstrndx, "e_shstrndx"));
  const Section* names = nullptr;
  if (shstrndx != 0 && shstrndx < sections_.size()) {
    names = &sections_[shstrndx];
    TRIT_RETURN_IF_ERROR(v_.Need(names->offset, names->size, "section name table (e_shstrndx)"));
  } else if (shstrndx != 0) {
    return Error(ErrorCode::kCorrupt, "e_shstrndx: {} names no section ({} sections)", shstrndx, sections_.size());
  }
  std::vector<ElfNote> notes;
  for (size_t i = 0; i < sections_.size(); ++i) {
    const Section& sec = sections_[i];
    if (sec.type != kShtNote) continue;
    std::string section_name;
    if (names != nullptr) {
      TRIT_RETURN_IF_ERROR(v_.ReadCString(names->offset + sec.name, names->offset + names->size, &section_name,
                                          fmt::format("name of section {}", i)));
    }
    const std::string where = fmt::format("note section {} ({})", i, section_name);
    TRIT_RETURN_IF_ERROR(v_.Need(sec.offset, sec.size, where));
    const uint64_t align = sec.addralign == 8 ? 8 : 4;
    auto padded = [&](uint64_t n) { return (n + align - 1) / align * align; };
    const uint64_t end = sec.offset + sec.size;
    for (uint64_t at = sec.offset; at < end;) {
      if (end - at < 12) {
        return Error(ErrorCode::kCorrupt, "{}: {} bytes left at byte {}, less than a note header (12)", where,
                     end - at, at);
      }
      uint32_t namesz = 0, descsz = 0, type = 0;
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at, &namesz, "n_namesz"));
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 4, &descsz, "n_descsz"));
      TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(at + 8, &type, "n_type"));
      const uint64_t name_at = at + 12, desc_at = name_at + padded(namesz), next = desc_at + padded(descsz);
      if (next > end || next <= at) {
        return Error(ErrorCode::kCorrupt, "{}: the note at byte {} (n_namesz {}, n_descsz {}) runs past the section's end (byte {})",
                     where, at, namesz, descsz, end);
      }
      ElfNote note;
      note.section = section_name;
      note.type = type;
      if (namesz > 0) {
        // The name is NUL-terminated within n_namesz.
        TRIT_RETURN_IF_ERROR(v_.ReadCString(name_at, name_at + namesz, &note.name, fmt::format("{}: note name", where)));
      }
      const std::span<const uint8_t> all = v_.bytes();
      note.desc.assign(all.begin() + static_cast<ptrdiff_t>(desc_at), all.begin() + static_cast<ptrdiff_t>(desc_at + descsz));
      notes.push_back(std::move(note));
      at = next;
    }
  }
  return notes;
}

// ReadElf's checks of e_ident, then a parser of the file's class and order.
Expected<ElfParser> MakeParser(std::span<const uint8_t> bytes) {
  if (!HasElfMagic(bytes)) return Error(ErrorCode::kCorrupt, "ELF magic at byte 0: not \\x7fELF");
  if (bytes.size() < 16) {
    return Error(ErrorCode::kCorrupt, "truncated: e_ident at byte 0 needs 16 bytes, file has {}", bytes.size());
  }
  const uint8_t ei_class = bytes[4], ei_data = bytes[5];
  if (ei_class != 1 && ei_class != 2) {
    return Error(ErrorCode::kCorrupt, "EI_CLASS at byte 4: {} is neither 1 (32-bit) nor 2 (64-bit)", ei_class);
  }
  if (ei_data != 1 && ei_data != 2) {
    return Error(ErrorCode::kCorrupt, "EI_DATA at byte 5: {} is neither 1 (little-endian) nor 2 (big-endian)",
                 ei_data);
  }
  return ElfParser(bytes, ei_class == 2, ei_data == 1 ? ByteOrder::kLittle : ByteOrder::kBig);
}

}  // namespace

bool HasElfMagic(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
}

Expected<binfmt::Image> ReadElf(std::span<const uint8_t> bytes) {
  Expected<ElfParser> parser = MakeParser(bytes);
  if (!parser.ok()) return parser.status();
  return parser->Parse();
}

Expected<std::vector<ElfNote>> ReadElfNotes(std::span<const uint8_t> bytes) {
  Expected<ElfParser> parser = MakeParser(bytes);
  if (!parser.ok()) return parser.status();
  return parser->Notes();
}

}  // namespace trit::elf
