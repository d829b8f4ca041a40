#include "kernels/kernel_set.h"

#include <gtest/gtest.h>

namespace trit::kernels {
namespace {

TEST(KernelSet, NamesRoundTrip) {
  for (KernelSet s : {KernelSet::kOptimized, KernelSet::kReference}) {
    std::optional<KernelSet> parsed = ParseKernelSet(KernelSetName(s));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_FALSE(ParseKernelSet("fast").has_value());
  EXPECT_FALSE(ParseKernelSet("").has_value());
}

TEST(KernelSet, EverySetHasEveryEntryPoint) {
  for (KernelSet s : {KernelSet::kOptimized, KernelSet::kReference}) {
    EXPECT_NE(OpsFor(s).matmul, nullptr);
    EXPECT_NE(OpsFor(s).matmul_many, nullptr);
    EXPECT_NE(OpsFor(s).attend, nullptr);
  }
}

}  // namespace
}  // namespace trit::kernels
