// libFuzzer target: arbitrary bytes through the macho reader must give images
// or an error, never a crash, leak or hang. Seeds: fuzz/smoke.sh builds them
// with tests/formats/binfmt/make_fixtures.sh.
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/macho/macho_reader.h"
#include "binfmt_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto result = trit::macho::ReadMachO(bytes);
  if (result.ok()) {
    for (const auto& image : *result) TouchImage(image);
  }
  return 0;
}
