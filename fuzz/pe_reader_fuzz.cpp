// libFuzzer target: arbitrary bytes through the pe reader must give images
// or an error, never a crash, leak or hang. Seeds: fuzz/smoke.sh builds them
// with tests/formats/binfmt/make_fixtures.sh.
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/pe/pe_reader.h"
#include "binfmt_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto result = trit::pe::ReadPe(bytes);
  if (result.ok()) {
    TouchImage(*result);
  }
  return 0;
}
