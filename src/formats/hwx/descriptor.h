// ANE task descriptors: a 10-word header (next-descriptor size and pointer,
// base-address selectors), then register-write packets, each a header word
// ((n - 1) << 26) | address followed by n values for the registers at
// address, address + 4, ... Decoded generically into (address, value) pairs:
// no register is ever located by its offset in the file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/binfmt/binary_view.h"

namespace trit::hwx {

constexpr uint32_t kHeaderWords = 10;

enum class Layout {
  kOld,      // H13 as macOS 11-14 compilers write it: 0x274 bytes, first packet 0xf401f800
  kCompact,  // macOS 26: first packet 0x4401f800, zero runs left out
  kOther,    // anything else (decoded the same way; reported by name)
};
std::string_view LayoutName(Layout layout);  // "old", "compact", "other"

struct RegisterWrite {
  uint32_t address = 0;
  uint32_t value = 0;
  uint64_t offset = 0;  // of the value in the file
};

struct Packet {
  uint32_t address = 0;
  uint32_t count = 0;
  uint64_t offset = 0;  // of the packet header word
};

struct Descriptor {
  uint64_t offset = 0;  // of the descriptor in the file
  uint32_t size = 0;    // bytes
  std::array<uint32_t, kHeaderWords> header{};
  std::vector<Packet> packets;
  std::vector<RegisterWrite> writes;  // in file order
  Layout layout = Layout::kOther;
};

// Base-address selectors of the header (words 8 and 9): which BAR table
// entries the descriptor reads (2), writes (1), and fetches kernels from (4).
struct BaseSelectors {
  std::vector<uint32_t> reads, writes, kernels;
};
BaseSelectors SelectorsOf(const Descriptor& d);

// Words of the header: words - 1 of the next descriptor, its offset from the
// start of the task, end of network.
uint32_t NextSizeWords(const Descriptor& d);  // header word 1, bits 16..24
uint32_t NextPointer(const Descriptor& d);     // header word 7
bool EndOfNetwork(const Descriptor& d);        // header word 0, bit 25

// One descriptor of `size` bytes at `offset` of `v`.
Expected<Descriptor> ParseDescriptor(const binfmt::BinaryView& v, uint64_t offset, uint32_t size);

// The chain that starts at `task_offset` (a region of `task_size` bytes):
// the first descriptor is `first_size` bytes; each next one is where its
// predecessor's next pointer says (relative to the task start), with the
// size its next-size field says. Pointers must move forward and stay in the
// region, so a hostile chain cannot loop.
Expected<std::vector<Descriptor>> ParseChain(const binfmt::BinaryView& v, uint64_t task_offset, uint64_t task_size,
                                             uint32_t first_size);

}  // namespace trit::hwx
