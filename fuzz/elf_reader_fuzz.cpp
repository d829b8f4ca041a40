// libFuzzer target: arbitrary bytes through the elf reader must give images
// or an error, never a crash, leak or hang; the same for its notes and the
// trit.kernel note of device kernels (a note that parses prints as text that
// parses to the same op, K, N and M). Seeds: fuzz/smoke.sh builds them with
// tests/formats/binfmt/make_fixtures.sh (device kernels with notes included).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/check.h"
#include "binfmt_fuzz.h"
#include "formats/elf/elf_reader.h"
#include "formats/elf/kernel_note.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto result = trit::elf::ReadElf(bytes);
  if (result.ok()) {
    TouchImage(*result);
  }
  auto notes = trit::elf::ReadElfNotes(bytes);
  if (notes.ok()) {
    auto kernel = trit::elf::FindKernelNote(*notes);
    if (kernel.ok()) {
      const std::string text = trit::elf::KernelNoteText(*kernel);
      auto again = trit::elf::ParseKernelNote({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
      TRIT_CHECK(again.ok() && again->op == kernel->op && again->k == kernel->k && again->n == kernel->n &&
                 again->m == kernel->m);
    }
  }
  return 0;
}
