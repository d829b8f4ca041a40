// The machine-memory probes (system/machine_memory.h): a bandwidth reading
// and the peak resident memory. Never asserts a speed.
#include "system/machine_memory.h"

#include <gtest/gtest.h>

#include <vector>

namespace trit::system {
namespace {

TEST(MachineMemoryTest, BandwidthOfASmallBufferIsPositive) {
  for (int threads : {1, 2, 3}) {
    BandwidthOptions o;
    o.n_threads = threads;
    o.n_bytes = 4 << 20;
    o.n_passes = 2;
    Expected<double> bw = MeasureReadBandwidth(o);
    ASSERT_TRUE(bw.ok()) << bw.status().message();
    EXPECT_GT(*bw, 0.0) << threads;
  }
  BandwidthOptions bad;
  bad.n_threads = 0;
  EXPECT_FALSE(MeasureReadBandwidth(bad).ok());
  EXPECT_GE(DefaultBandwidthBufferBytes(), uint64_t{512} << 20);
}

TEST(MachineMemoryTest, PeakRssCoversWhatWasTouched) {
  std::vector<char> block(64 << 20, 1);
  EXPECT_GE(PeakRssBytes(), block.size());
}

}  // namespace
}  // namespace trit::system
