// Quantization error on real weights: token_embd.weight of the bundled
// models/stories260K.gguf (all F32, GGUF v3), read straight from the file so
// this test does not depend on the GGUF reader. Layout facts (from the file's
// header): the tensor is F32, ne = (64, 512), at offset 0 of the data
// section, which starts at byte 14176 (header ends at 14152, aligned to 32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/half.h"
#include "quant/types.h"
#include "quant_test_util.h"
#include "test_paths.h"

namespace trit::quant {
namespace {

constexpr std::streamoff kDataOffset = 14176;
constexpr int64_t kElements = 64 * 512;

std::vector<float> LoadTokenEmbeddings() {
  std::ifstream in(trit::testing::BundledModelPath(), std::ios::binary);
  EXPECT_TRUE(in.good()) << trit::testing::BundledModelPath();
  char header[8];
  in.read(header, sizeof header);
  EXPECT_EQ(std::memcmp(header, "GGUF", 4), 0);
  uint32_t version;
  std::memcpy(&version, header + 4, 4);
  EXPECT_EQ(version, 3u);
  std::vector<float> x(kElements);
  in.seekg(kDataOffset);
  in.read(reinterpret_cast<char*>(x.data()), kElements * 4);
  EXPECT_TRUE(in.good()) << "file shorter than the tensor";
  return x;
}

TEST(RealTensorTest, TokenEmbeddingsLookSane) {
  const auto x = LoadTokenEmbeddings();
  // The first two values, as stored (bytes 50 e9 96 be, 64 d8 0f 3f).
  EXPECT_EQ(x[0], trit::BitsToFloat(0xbe96e950u));
  EXPECT_EQ(x[1], trit::BitsToFloat(0x3f0fd864u));
  double sum2 = 0.0;
  for (float v : x) {
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_LT(std::fabs(v), 100.0f);
    sum2 += static_cast<double>(v) * v;
  }
  const double rms = std::sqrt(sum2 / kElements);
  EXPECT_GT(rms, 0.05);
  EXPECT_LT(rms, 5.0);
}

struct RealBound {
  GgmlType type;
  double bound;
};

// Measured relative RMSE on this tensor, plus ~15% margin (values in
// docs/QUANT_FORMATS.md). The tensor's rows have 64 elements, so the K- and
// ternary formats (256 per block) run over the flat data, as if rows were 256 long.
constexpr RealBound kRealBounds[] = {
    {GgmlType::kF32, 0.0},      {GgmlType::kF16, 2.4e-4},  {GgmlType::kBF16, 1.95e-3},
    {GgmlType::kQ8_0, 6.4e-3},  {GgmlType::kQ5_0, 5.1e-2}, {GgmlType::kQ5_1, 4.5e-2},
    {GgmlType::kQ4_0, 9.9e-2},  {GgmlType::kQ4_1, 0.101},  {GgmlType::kQ6_K, 2.0e-2},
    {GgmlType::kQ5_K, 4.35e-2}, {GgmlType::kQ4_K, 9.0e-2}, {GgmlType::kTQ2_0, 0.74},
    {GgmlType::kTQ1_0, 0.74},   {GgmlType::kIQ4_NL, 9.1e-2}, {GgmlType::kIQ4_XS, 9.2e-2},
    {GgmlType::kMXFP4, 0.133},
};

TEST(RealTensorTest, QuantizationErrorOnRealWeights) {
  const auto x = LoadTokenEmbeddings();
  for (const RealBound& b : kRealBounds) {
    const TypeInfo& t = GetType(b.type);
    const auto y = testing::RoundTrip(t, x);
    ASSERT_TRUE(testing::AllFinite(y)) << t.name;
    const double rmse = testing::RelativeRmse(x, y);
    std::printf("  %-6s relative RMSE %.6f\n", std::string(t.name).c_str(), rmse);
    EXPECT_LE(rmse, b.bound) << t.name;
  }
}

}  // namespace
}  // namespace trit::quant
