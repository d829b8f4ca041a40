// ReadHwx: the Mach-O structure comes from formats/macho; this file gives the
// ANE meaning to its parts and cross-checks them against each other.
#include <fmt/format.h>

#include <map>

#include "base/checked_math.h"
#include "formats/hwx/hwx_file.h"
#include "formats/macho/macho_file.h"

namespace trit::hwx {

using binfmt::BinaryView;

std::string_view BufferRoleName(BufferRole role) {
  switch (role) {
    case BufferRole::kInput: return "input";
    case BufferRole::kOutput: return "output";
    case BufferRole::kIntermediate: return "intermediate";
    case BufferRole::kUnknown: return "unknown";
  }
  return "?";
}

std::string GenerationName(uint32_t cpusubtype) {
  // Only the values seen in files or stated by public parsers with a device
  // to match; anything else is reported as unknown rather than guessed.
  switch (cpusubtype) {
    case 4: return "H13 (A14, M1)";
    case 7: return "H16 (M4)";
    default: return std::string();
  }
}

bool HasHwxMagic(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && bytes[0] == 0xce && bytes[1] == 0xfa && bytes[2] == 0xef && bytes[3] == 0xbe;
}

namespace {

constexpr uint32_t kCpuTypeAne = 0x80;
constexpr uint32_t kThreadFlavorTask = 1;
constexpr uint64_t kThreadRecordOffset = 0x800;  // task record inside the flavor-1 state
constexpr uint32_t kLcBufferName = 0x40;         // newer compilers' per-buffer name record (inferred)

class Reader {
 public:
  explicit Reader(BinaryView v) : v_(v) {}
  Expected<HwxFile> Read();

 private:
  void Note(uint64_t offset, std::string what) { f_.notes.push_back({offset, std::move(what), true}); }
  void NotDecoded(uint64_t offset, std::string what) { f_.notes.push_back({offset, std::move(what), false}); }
  Status ReadThread(const macho::LoadCommand& c);
  Status ReadIdent(const macho::LoadCommand& c);
  Status ReadBufferName(const macho::LoadCommand& c, uint64_t name_field, uint64_t address_field, bool address64);
  Status TextSegment(const macho::Segment& s);
  void BufferSegment(const macho::Segment& s);
  Status Symbols(const std::vector<macho::Symbol>& symbols);
  void CrossCheck();

  BinaryView v_;
  HwxFile f_;
  bool have_task_state_ = false, have_text_ = false;
  uint64_t record_task_address_ = 0, record_address_offset_ = 0;
  std::map<uint64_t, std::string> name_records_;  // buffer address -> name (LC_LOADFVMLIB / 0x40)
};

Status Reader::ReadThread(const macho::LoadCommand& c) {
  uint32_t flavor = 0, count = 0;
  if (c.size < 16) return Error(ErrorCode::kCorrupt, "LC_THREAD at byte {}: cmdsize {} < 16", c.offset, c.size);
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(c.offset + 8, &flavor, "LC_THREAD flavor"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(c.offset + 12, &count, "LC_THREAD count"));
  if (uint64_t{count} * 4 > c.size - 16) {
    return Error(ErrorCode::kCorrupt, "LC_THREAD at byte {}: state of {} words does not fit in cmdsize {}", c.offset,
                 count, c.size);
  }
  if (flavor != kThreadFlavorTask) {
    NotDecoded(c.offset, fmt::format("LC_THREAD flavor {} ({} words): per-buffer state, not decoded", flavor, count));
    return Status::Ok();
  }
  if (have_task_state_) {
    NotDecoded(c.offset, "a second LC_THREAD flavor 1 (task state): ignored, the first one is used");
    return Status::Ok();
  }
  const uint64_t state = c.offset + 16;
  if (uint64_t{count} * 4 < kThreadRecordOffset + 16) {
    return Error(ErrorCode::kCorrupt, "LC_THREAD flavor 1 at byte {}: {} words, too short for the task record at +{:#x}",
                 c.offset, count, kThreadRecordOffset);
  }
  have_task_state_ = true;
  f_.bar_offset = state;
  for (int i = 0; i < kBarCount; ++i) {
    TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(state + 8ull * i, &f_.bar[i], "BAR table entry"));
  }
  uint64_t task_address = 0;
  uint32_t words_minus_one = 0;
  const uint64_t record = state + kThreadRecordOffset;
  TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(record, &task_address, "thread record task address"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(record + 8, &words_minus_one, "thread record descriptor words - 1"));
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(record + 12, &f_.record_count, "thread record descriptor count"));
  f_.record_words = words_minus_one + 1;
  if (f_.record_words > (1u << 20)) {
    return Error(ErrorCode::kCorrupt, "thread record at byte {}: descriptor size of {} words is implausible",
                 record + 8, f_.record_words);
  }
  record_task_address_ = task_address;  // checked against __TEXT,__text once both are read
  record_address_offset_ = record;
  return Status::Ok();
}

Status Reader::ReadIdent(const macho::LoadCommand& c) {
  // NUL-separated text; the compiler is the line naming "zin_ane_compiler".
  std::string text;
  for (uint64_t i = c.offset + 8; i < c.offset + c.size; ++i) text.push_back(static_cast<char>(v_.bytes()[i]));
  size_t at = text.find("zin_ane_compiler");
  if (at == std::string::npos) {
    Note(c.offset, "LC_IDENT names no zin_ane_compiler version");
    return Status::Ok();
  }
  const size_t end = text.find_first_of(std::string("\n\0", 2), at);
  f_.compiler = binfmt::Printable(text.substr(at, end == std::string::npos ? std::string::npos : end - at), 80);
  return Status::Ok();
}

// A load command naming one buffer: an lc_str at `name_field`, the buffer's
// address at `address_field`. LC_LOADFVMLIB (0x6) is the Mach-O fvmlib
// command (name, minor version, header address); 0x40 is what newer
// compilers write instead (name offset 0x18, 64-bit address at +16: inferred).
Status Reader::ReadBufferName(const macho::LoadCommand& c, uint64_t name_field, uint64_t address_field, bool address64) {
  if (c.size < address_field + (address64 ? 8 : 4)) {
    Note(c.offset, fmt::format("load command {:#x} ({} bytes): too short for a buffer name record", c.cmd, c.size));
    return Status::Ok();
  }
  uint32_t name_offset = 0;
  uint64_t address = 0;
  TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(c.offset + name_field, &name_offset, "buffer name offset"));
  if (address64) {
    TRIT_RETURN_IF_ERROR(v_.Read<uint64_t>(c.offset + address_field, &address, "buffer address"));
  } else {
    uint32_t a32 = 0;
    TRIT_RETURN_IF_ERROR(v_.Read<uint32_t>(c.offset + address_field, &a32, "buffer address"));
    address = a32;
  }
  std::string name;
  if (name_offset < 8 || name_offset >= c.size ||
      !v_.ReadCString(c.offset + name_offset, c.offset + c.size, &name, "buffer name").ok()) {
    Note(c.offset, fmt::format("load command {:#x}: buffer name offset {} is not a string inside the command", c.cmd,
                               name_offset));
    return Status::Ok();
  }
  name_records_[address] = name;
  return Status::Ok();
}

Status Reader::TextSegment(const macho::Segment& s) {
  const macho::Section* text = nullptr;
  const macho::Section* weights = nullptr;
  for (const macho::Section& sec : s.sections) {
    if (sec.sectname == "__text") {
      text = &sec;
    } else if (sec.sectname == "__const") {
      weights = &sec;
    } else {
      NotDecoded(sec.header_offset, fmt::format("section __TEXT,{}: not decoded", binfmt::Printable(sec.sectname)));
    }
  }
  if (text == nullptr) return Error(ErrorCode::kCorrupt, "__TEXT segment at byte {} has no __text section", s.command_offset);
  have_text_ = true;
  f_.task_offset = text->offset;
  f_.task_size = text->size;
  TRIT_RETURN_IF_ERROR(v_.Need(text->offset, text->size, "task (__TEXT,__text offset, size)"));
  f_.task_address = text->addr;
  if (weights != nullptr) {
    f_.weights_address = weights->addr;
    f_.weights_offset = weights->offset;
    f_.weights_size = weights->size;
    TRIT_RETURN_IF_ERROR(v_.Need(weights->offset, weights->size, "weights (__TEXT,__const offset, size)"));
    const uint64_t expected = text->addr + ((text->size + 15) & ~uint64_t{15});
    if (weights->addr != expected) {
      Note(weights->header_offset, fmt::format("weights at {:#x}, expected task address + round_up(task size, 16) = {:#x}",
                                               weights->addr, expected));
    }
    if (weights->offset != text->offset + (weights->addr - text->addr)) {
      Note(weights->header_offset, "weights are not at the same distance from the task in the file as in memory");
    }
  }
  return Status::Ok();
}

void Reader::BufferSegment(const macho::Segment& s) {
  Buffer b;
  b.address = s.vmaddr;
  b.size = s.vmsize;
  b.command_offset = s.command_offset;
  if (!s.sections.empty()) b.data_size = s.sections[0].size;
  // The protection pair tells input from output (what the reference
  // converter also keys on): read-only in, write-only out, both intermediate.
  if (s.maxprot == 1 && s.initprot == 1) {
    b.role = BufferRole::kInput;
  } else if (s.maxprot == 2 && s.initprot == 2) {
    b.role = BufferRole::kOutput;
  } else if (s.maxprot == 3 && s.initprot == 3) {
    b.role = BufferRole::kIntermediate;
  } else {
    Note(s.command_offset, fmt::format("__FVMLIB segment at {:#x}: protection {}/{} is neither input (1/1), output "
                                       "(2/2) nor intermediate (3/3)",
                                       s.vmaddr, s.maxprot, s.initprot));
  }
  f_.buffers.push_back(std::move(b));
}

Status Reader::Symbols(const std::vector<macho::Symbol>& symbols) {
  std::map<int, std::string> types;
  std::map<std::string, uint64_t> sect_symbols;  // external N_SECT name -> address
  std::vector<std::pair<TensorStab, const macho::Symbol*>> stabs;
  for (const macho::Symbol& sym : symbols) {
    if ((sym.type & 0xe0) == 0) {
      if ((sym.type & 0x0e) == 0x0e && (sym.type & 0x01) != 0) sect_symbols[sym.name] = sym.value;
      continue;
    }
    if (std::optional<TypeStab> t = ParseTypeStab(sym.name)) {
      types[t->id] = t->name;
    } else if (std::optional<TensorStab> t = ParseTensorStab(sym.name)) {
      stabs.emplace_back(std::move(*t), &sym);
    }
  }
  // Buffer names: the external symbol at the buffer's address, else a name record.
  for (Buffer& b : f_.buffers) {
    for (const auto& [name, address] : sect_symbols) {
      if (address == b.address) b.name = name;
    }
    auto rec = name_records_.find(b.address);
    if (b.name.empty() && rec != name_records_.end()) b.name = rec->second;
    if (b.name.empty()) {
      b.name = fmt::format("buffer@{:#x}", b.address);
      Note(b.command_offset, fmt::format("buffer at {:#x}: no symbol or name record names it", b.address));
    } else if (rec != name_records_.end() && rec->second != b.name &&
               rec->second + "@output" != b.name) {
      Note(b.command_offset, fmt::format("buffer at {:#x}: symbol '{}' but name record '{}'", b.address,
                                         binfmt::Printable(b.name), binfmt::Printable(rec->second)));
    }
  }
  for (auto& [stab, sym] : stabs) {
    const bool global = sym->type == 0x20;  // N_GSYM
    Buffer* match = nullptr;
    for (Buffer& b : f_.buffers) {
      if (b.name == stab.name) match = &b;
    }
    // Names with '/' are compiler aliases and internal L2 buffers, never model tensors.
    if (stab.name.find('/') != std::string::npos || !global) {
      f_.aliases.push_back({stab.name, sym->offset});
      continue;
    }
    if (match == nullptr) {
      Note(sym->offset, fmt::format("N_GSYM '{}': no buffer of that name", binfmt::Printable(stab.name)));
      continue;
    }
    if (match->shape.has_value()) {
      Note(sym->offset, fmt::format("N_GSYM '{}': a second shape for the same buffer, ignored", binfmt::Printable(stab.name)));
      continue;
    }
    auto type = types.find(stab.type_id);
    if (type != types.end()) {
      match->type_name = type->second;
    } else {
      Note(sym->offset, fmt::format("N_GSYM '{}': element type id {} is not defined by any N_LSYM entry",
                                    binfmt::Printable(stab.name), stab.type_id));
    }
    const std::optional<uint64_t> bytes = CheckedMul(stab.extent[0], stab.stride[0]);
    if (!bytes || *bytes > match->size) {
      Note(sym->offset, fmt::format("N_GSYM '{}': {} x {} bytes do not fit the buffer's {:#x} bytes",
                                    binfmt::Printable(stab.name), stab.extent[0], stab.stride[0], match->size));
    }
    match->shape = std::move(stab);
  }
  for (const Buffer& b : f_.buffers) {
    if (!b.shape) Note(b.command_offset, fmt::format("buffer '{}': no N_GSYM entry gives its shape", binfmt::Printable(b.name)));
  }
  return Status::Ok();
}

void Reader::CrossCheck() {
  if (record_task_address_ != f_.task_address) {
    Note(record_address_offset_, fmt::format("thread record names task address {:#x}, __TEXT,__text is at {:#x}",
                                             record_task_address_, f_.task_address));
  }
  for (Buffer& b : f_.buffers) {
    for (int i = 0; i < kBarCount; ++i) {
      if (f_.bar[i] == b.address) b.bar = i;
    }
    if (b.bar < 0) {
      Note(b.command_offset, fmt::format("buffer '{}' at {:#x} is not in the BAR table", binfmt::Printable(b.name), b.address));
    }
  }
  if (f_.descriptors.size() != f_.record_count) {
    Note(f_.bar_offset + kThreadRecordOffset + 12,
         fmt::format("thread record says {} descriptors, the chain has {}", f_.record_count, f_.descriptors.size()));
  }
  if (!f_.descriptors.empty()) {
    const Descriptor& last = f_.descriptors.back();
    if (last.offset + last.size != f_.task_offset + f_.task_size) {
      Note(last.offset, fmt::format("the chain ends at byte {:#x}, __TEXT,__text at {:#x}", last.offset + last.size,
                                    f_.task_offset + f_.task_size));
    }
    if (!EndOfNetwork(last)) Note(last.offset, "the last descriptor does not set end-of-network (header word 0, bit 25)");
  }
  for (size_t k = 0; k < f_.descriptors.size(); ++k) {
    const Descriptor& d = f_.descriptors[k];
    const BaseSelectors s = SelectorsOf(d);
    auto check = [&](const std::vector<uint32_t>& sel, std::string_view what) {
      for (uint32_t i : sel) {
        if (f_.bar[i] == 0) {
          Note(d.offset + 32, fmt::format("descriptor {}: {} selects BAR {}, which is empty", k, what, i));
        }
      }
    };
    check(s.reads, "a read base (RBase)");
    check(s.writes, "the write base (WBase)");
    check(s.kernels, "a kernel base (KBase)");
    if (d.layout == Layout::kOther) {
      Note(d.offset, fmt::format("descriptor {}: layout is neither old (0x274 bytes, first packet 0xf401f800) nor "
                                 "compact (first packet 0x4401f800); decoded packet by packet",
                                 k));
    }
  }
}

Expected<HwxFile> Reader::Read() {
  Expected<macho::Header> h = macho::ReadHeader(v_);
  if (!h.ok()) return h.status();
  if (!h->hwx) return Error(ErrorCode::kCorrupt, "not an HWX file: magic {:#010x} at byte 0 (expected 0xbeefface)", h->magic);
  f_.cputype = h->cputype;
  f_.cpusubtype = h->cpusubtype;
  f_.generation = GenerationName(h->cpusubtype);
  if (h->cputype != kCpuTypeAne) Note(4, fmt::format("cputype {:#x}, expected 0x80 (ANE)", h->cputype));
  if (f_.generation.empty()) Note(8, fmt::format("cpusubtype {}: unknown ANE generation", h->cpusubtype));
  Expected<std::vector<macho::LoadCommand>> commands = macho::ReadLoadCommands(v_, *h, 0);
  if (!commands.ok()) return commands.status();
  std::optional<macho::SymtabCommand> symtab;
  for (const macho::LoadCommand& c : *commands) {
    switch (c.cmd) {
      case macho::kLcSegment64: {
        Expected<macho::Segment> s = macho::ReadSegment64(v_, c, 0);
        if (!s.ok()) return s.status();
        if (s->name == "__TEXT") {
          TRIT_RETURN_IF_ERROR(TextSegment(*s));
        } else if (s->name == "__FVMLIB") {
          BufferSegment(*s);
        } else if (s->name == "__DEBUG") {
          NotDecoded(c.offset, "segment __DEBUG (newer compilers' debug info): not decoded");
        } else if (s->name != "__PAGEZERO") {
          NotDecoded(c.offset, fmt::format("segment '{}': not decoded", binfmt::Printable(s->name)));
        }
        break;
      }
      case macho::kLcSymtab: {
        Expected<macho::SymtabCommand> st = macho::ReadSymtabCommand(v_, c, 0);
        if (!st.ok()) return st.status();
        symtab = *st;
        break;
      }
      case macho::kLcThread:
      case macho::kLcUnixThread: TRIT_RETURN_IF_ERROR(ReadThread(c)); break;
      case macho::kLcIdent: TRIT_RETURN_IF_ERROR(ReadIdent(c)); break;
      case macho::kLcLoadFvmlib: TRIT_RETURN_IF_ERROR(ReadBufferName(c, 8, 16, false)); break;
      case kLcBufferName: TRIT_RETURN_IF_ERROR(ReadBufferName(c, 8, 16, true)); break;
      default: NotDecoded(c.offset, fmt::format("load command {:#x} ({} bytes): not decoded", c.cmd, c.size)); break;
    }
  }
  if (!have_text_) return Error(ErrorCode::kCorrupt, "no __TEXT segment with a __text section (the task descriptors)");
  if (!have_task_state_) {
    return Error(ErrorCode::kCorrupt, "no LC_THREAD flavor 1 (the BAR table and the descriptor size and count)");
  }
  Expected<std::vector<Descriptor>> chain = ParseChain(v_, f_.task_offset, f_.task_size, f_.record_words * 4);
  if (!chain.ok()) return chain.status();
  f_.descriptors = std::move(*chain);
  std::vector<macho::Symbol> symbols;
  if (symtab) {
    Expected<std::vector<macho::Symbol>> read = macho::ReadSymbols(v_, *symtab, true, 0);
    if (!read.ok()) return read.status();
    symbols = std::move(*read);
  } else {
    Note(0, "no LC_SYMTAB: buffer names and shapes are unknown");
  }
  TRIT_RETURN_IF_ERROR(Symbols(symbols));
  CrossCheck();
  return std::move(f_);
}

}  // namespace

Expected<HwxFile> ReadHwx(std::span<const uint8_t> bytes) {
  Expected<BinaryView> v = macho::ThinView(bytes, 0);
  if (!v.ok()) return v.status();
  if (v->order() != binfmt::ByteOrder::kLittle) {
    return Error(ErrorCode::kUnsupported, "big-endian HWX: every known ANE file is little-endian");
  }
  Reader r(*v);
  return r.Read();
}

}  // namespace trit::hwx
