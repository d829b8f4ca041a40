// libFuzzer entry point for the device lock's record reader
// (system/device_lock.h): lock files live in a directory every process that
// drives a device writes to, so their bytes are untrusted. Also device names.
//
// Any input must decode or give an error, never crash. Promises checked: a
// decoded record encodes and decodes to the same holder, and describes
// itself; a valid device name is a plain file name.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/check.h"
#include "system/device_lock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit::system;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (trit::Expected<LockHolder> h = DecodeLockRecord(text); h.ok()) {
    TRIT_CHECK(h->pid > 0 && h->child_pid >= 0 && h->started_unix >= 0);
    trit::Expected<LockHolder> again = DecodeLockRecord(EncodeLockRecord(*h));
    TRIT_CHECK(again.ok());
    TRIT_CHECK(again->pid == h->pid && again->child_pid == h->child_pid && again->started_unix == h->started_unix);
    // Text that is not UTF-8 is replaced when encoded, so only valid text round-trips byte for byte.
    TRIT_CHECK(!DescribeHolder(*h).empty());
  }
  if (CheckDeviceName(text).ok()) {
    TRIT_CHECK(text.find('/') == std::string::npos && text[0] != '.' && text.size() <= 64);
  }
  return 0;
}
