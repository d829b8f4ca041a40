#include "formats/hwx/descriptor.h"

#include <fmt/format.h>

namespace trit::hwx {

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kOld: return "old";
    case Layout::kCompact: return "compact";
    case Layout::kOther: return "other";
  }
  return "?";
}

namespace {

constexpr uint32_t kOldSize = 0x274, kOldFirstPacket = 0xf401f800, kCompactFirstPacket = 0x4401f800;

uint32_t Bits(uint32_t word, int lo, int width) { return (word >> lo) & ((1u << width) - 1u); }

}  // namespace

uint32_t NextSizeWords(const Descriptor& d) { return Bits(d.header[1], 16, 9); }
uint32_t NextPointer(const Descriptor& d) { return d.header[7]; }
bool EndOfNetwork(const Descriptor& d) { return Bits(d.header[0], 25, 1) != 0; }

BaseSelectors SelectorsOf(const Descriptor& d) {
  // Word 8: RBase0 [0:5) RBE0 5, RBase1 [6:11) RBE1 11, WBase [12:17) WBE 17.
  // Word 9: KBase0..3 at 6-bit steps, each followed by its enable bit.
  BaseSelectors s;
  const uint32_t w8 = d.header[8], w9 = d.header[9];
  for (int i = 0; i < 2; ++i) {
    if (Bits(w8, 6 * i + 5, 1)) s.reads.push_back(Bits(w8, 6 * i, 5));
  }
  if (Bits(w8, 17, 1)) s.writes.push_back(Bits(w8, 12, 5));
  for (int i = 0; i < 4; ++i) {
    if (Bits(w9, 6 * i + 5, 1)) s.kernels.push_back(Bits(w9, 6 * i, 5));
  }
  return s;
}

Expected<Descriptor> ParseDescriptor(const binfmt::BinaryView& v, uint64_t offset, uint32_t size) {
  if (size < kHeaderWords * 4 || size % 4 != 0) {
    return Error(ErrorCode::kCorrupt, "task descriptor at byte {}: size {:#x} is not a multiple of 4 of at least {:#x}",
                 offset, size, kHeaderWords * 4);
  }
  TRIT_RETURN_IF_ERROR(v.Need(offset, size, "task descriptor"));
  Descriptor d;
  d.offset = offset;
  d.size = size;
  for (uint32_t i = 0; i < kHeaderWords; ++i) {
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(offset + 4 * i, &d.header[i], "task descriptor header"));
  }
  const uint64_t end = offset + size;
  uint64_t at = offset + kHeaderWords * 4;
  while (at < end) {
    uint32_t word = 0;
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(at, &word, "register packet header"));
    Packet p{word & 0x03ffffffu, (word >> 26) + 1, at};
    if (uint64_t{p.count} * 4 > end - at - 4) {
      return Error(ErrorCode::kCorrupt,
                   "register packet at byte {} (header {:#010x}): {} values run past the descriptor's end at byte {}", at,
                   word, p.count, end);
    }
    for (uint32_t k = 0; k < p.count; ++k) {
      RegisterWrite w{p.address + 4 * k, 0, at + 4 + 4ull * k};
      TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(w.offset, &w.value, "register value"));
      d.writes.push_back(w);
    }
    d.packets.push_back(p);
    at += 4 + 4ull * p.count;
  }
  uint32_t first = 0;
  if (!d.packets.empty()) TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(d.packets[0].offset, &first, "first packet"));
  if (size == kOldSize && first == kOldFirstPacket) {
    d.layout = Layout::kOld;
  } else if (first == kCompactFirstPacket) {
    d.layout = Layout::kCompact;
  }
  return d;
}

Expected<std::vector<Descriptor>> ParseChain(const binfmt::BinaryView& v, uint64_t task_offset, uint64_t task_size,
                                             uint32_t first_size) {
  TRIT_RETURN_IF_ERROR(v.Need(task_offset, task_size, "task (__TEXT,__text)"));
  std::vector<Descriptor> chain;
  uint64_t at = 0;
  uint32_t size = first_size;
  while (true) {
    if (size > task_size || at > task_size - size) {
      return Error(ErrorCode::kCorrupt,
                   "task descriptor {} at byte {}: {:#x} bytes run past the task ({:#x} bytes at byte {})", chain.size(),
                   task_offset + at, size, task_size, task_offset);
    }
    Expected<Descriptor> d = ParseDescriptor(v, task_offset + at, size);
    if (!d.ok()) return d.status().WithContext(fmt::format("task descriptor {}", chain.size()));
    chain.push_back(std::move(*d));
    const Descriptor& last = chain.back();
    const uint32_t next = NextPointer(last);
    if (next == 0) break;
    if (next < at + size) {
      return Error(ErrorCode::kCorrupt,
                   "task descriptor {} at byte {}: next pointer (header word 7) {:#x} points back into the chain",
                   chain.size() - 1, last.offset, next);
    }
    at = next;
    size = (NextSizeWords(last) + 1) * 4;
  }
  return chain;
}

}  // namespace trit::hwx
