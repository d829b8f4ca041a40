// Apple Neural Engine compiled files (.hwx): a Mach-O image with the magic
// 0xbeefface whose __TEXT,__text holds a chain of task descriptors, whose
// __TEXT,__const holds the weights, with one __FVMLIB segment per I/O buffer
// and an LC_THREAD whose state starts with the table of 32 buffer addresses
// (the BAR table). See docs/HWX.md for what is known and what is inferred.
//
// ReadHwx checks every offset and size against the file; what it does not
// understand or finds inconsistent is listed in `notes` by name and byte
// offset, never guessed silently. Structural damage it cannot read past
// (truncated tables, a chain that runs off the task) is an error.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/hwx/descriptor.h"
#include "formats/hwx/stab.h"

namespace trit::hwx {

constexpr int kBarCount = 32;

enum class BufferRole { kInput, kOutput, kIntermediate, kUnknown };
std::string_view BufferRoleName(BufferRole role);  // "input", "output", "intermediate", "unknown"

struct Buffer {
  std::string name;
  BufferRole role = BufferRole::kUnknown;
  int bar = -1;            // index in the BAR table, -1 when absent
  uint64_t address = 0;    // segment vmaddr
  uint64_t size = 0;       // segment vmsize (what the driver allocates)
  uint64_t data_size = 0;  // its section's size (the tensor's bytes)
  uint64_t command_offset = 0;
  std::optional<TensorStab> shape;  // from the N_GSYM entry of the same name
  std::string type_name;            // element type ("float16"), "" when unknown
};

// A stab that describes a buffer-shaped thing that is not a tensor of the
// model: compiler aliases ("probs/src") and internal L2 buffers.
struct Alias {
  std::string name;
  uint64_t offset = 0;  // of the nlist entry
};

struct Note {
  uint64_t offset = 0;
  std::string what;
  // true: something unknown or inconsistent (a value, a cross-check);
  // false: a part that is understood to be there but is not decoded.
  bool inconsistent = true;
};

struct HwxFile {
  uint32_t cputype = 0, cpusubtype = 0;
  std::string generation;  // "H13", "H16", or "unknown"
  std::string compiler;    // "zin_ane_compiler v5.4.1" (LC_IDENT), "" when absent
  uint64_t task_address = 0, task_offset = 0, task_size = 0;
  uint64_t weights_address = 0, weights_offset = 0, weights_size = 0;
  std::array<uint64_t, kBarCount> bar{};
  uint64_t bar_offset = 0;                 // of the BAR table in the file
  uint32_t record_words = 0;               // first descriptor size in words, from the thread record
  uint32_t record_count = 0;               // descriptor count, from the thread record
  std::vector<Descriptor> descriptors;
  std::vector<Buffer> buffers;             // in load-command order
  std::vector<Alias> aliases;
  std::vector<Note> notes;
};

bool HasHwxMagic(std::span<const uint8_t> bytes);

Expected<HwxFile> ReadHwx(std::span<const uint8_t> bytes);

// "H13 (A14, M1)" etc. from the cpusubtype; empty when unknown.
std::string GenerationName(uint32_t cpusubtype);

}  // namespace trit::hwx
