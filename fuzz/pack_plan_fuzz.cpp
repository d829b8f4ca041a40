// libFuzzer entry point for plan.json, the description of an accelerator
// pack (formats/pack/plan.h): packs are copied between machines and teams,
// so their plans are untrusted text.
//
// Any input must parse or give an error, never crash. Promises checked: a
// parsed plan encodes to text that parses to the same plan, and each op's
// layer range expands to one tensor name per layer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "formats/pack/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit::pack;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trit::Expected<PackPlan> plan = ParsePlan(text);
  if (!plan.ok()) return 0;
  const std::string encoded = EncodePlan(*plan);
  trit::Expected<PackPlan> again = ParsePlan(encoded);
  TRIT_CHECK(again.ok());
  TRIT_CHECK(EncodePlan(*again) == encoded);
  TRIT_CHECK(IsPlainFileName(plan->model));
  for (const PlanOp& op : plan->ops) {
    if (!op.first_layer) continue;
    // Bound the expansion: a range may name 2^31 layers.
    if (*op.last_layer - *op.first_layer > 4096) continue;
    TRIT_CHECK(static_cast<int64_t>(op.TensorNames().size()) == *op.last_layer - *op.first_layer + 1);
  }
  return 0;
}
