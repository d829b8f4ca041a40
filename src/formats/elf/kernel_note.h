// The trit.kernel note of a device kernel (docs/PACKS.md, "The kernel
// note"): which op a compiled kernel computes and for what shape, written
// by the device toolchain into the kernel's ELF file so that a pack's plan
// can be checked against what each kernel was built for.
//
// An ELF note (any note section) with owner name "trit.kernel", type 1, and
// as descriptor UTF-8 text: space- or newline-separated key=value pairs,
// NUL padding allowed at the end. Required keys: op (a name), K and N (the
// weight matrix's columns and rows), M (the activation rows per launch);
// other keys are kept and ignored, so toolchains may add their own.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/elf/elf_reader.h"

namespace trit::elf {

inline constexpr const char* kKernelNoteName = "trit.kernel";
inline constexpr uint32_t kKernelNoteType = 1;

struct KernelNote {
  std::string op;
  int64_t k = 0, n = 0, m = 0;
  std::map<std::string, std::string> extra;  // keys beyond op, K, N, M
};

// The note's descriptor text parsed; errors name the key and what is wrong.
Expected<KernelNote> ParseKernelNote(std::span<const uint8_t> desc);

// The trit.kernel note among an ELF file's notes (ReadElfNotes): the one
// note, or kNotFound when there is none, or an error when there are several
// or it does not parse.
Expected<KernelNote> FindKernelNote(const std::vector<ElfNote>& notes);

// "op=matmul K=640 N=2048 M=64": the note's text as a toolchain writes it.
std::string KernelNoteText(const KernelNote& note);

}  // namespace trit::elf
