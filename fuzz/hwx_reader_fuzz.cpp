// libFuzzer target: arbitrary bytes through the ANE readers (formats/hwx on
// top of formats/macho's structure parsing) must give a file or an error,
// never a crash, leak or hang; what is read is then converted, cleaned and
// diffed, so every offset those steps trust has been checked by the reader.
// Seeds: the .hwx and .ane files of the shared data and tests/data/ane.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/hwx/ane_file.h"
#include "formats/hwx/clean.h"
#include "formats/hwx/diff.h"
#include "formats/hwx/hwx_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto hwx = trit::hwx::ReadHwx(bytes);
  if (hwx.ok()) {
    for (auto convention : {trit::hwx::SlotConvention::kBarTable, trit::hwx::SlotConvention::kAnecc}) {
      auto ane = trit::hwx::ConvertToAne(*hwx, bytes, convention);
      if (ane.ok()) {
        auto back = trit::hwx::ReadAne(ane->bytes);
        if (!back.ok()) __builtin_trap();  // what trit writes, trit must read
      }
    }
    std::vector<uint8_t> copy(bytes.begin(), bytes.end());
    trit::hwx::ApplyClean(trit::hwx::PlanClean(hwx->descriptors), copy);
    (void)trit::hwx::DiffChains(hwx->descriptors, hwx->descriptors, {});
  }
  if (trit::hwx::LooksLikeAne(bytes)) {
    auto ane = trit::hwx::ReadAne(bytes);
    if (ane.ok()) (void)trit::hwx::DiffChains(ane->descriptors, ane->descriptors, {});
  }
  return 0;
}
