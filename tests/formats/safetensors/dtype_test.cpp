// The dtype table (formats/safetensors/dtype.h): names read back, sizes per
// element, and byte counts that refuse overflow and part-bytes.
#include "formats/safetensors/dtype.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

namespace trit::safetensors {
namespace {

TEST(SafetensorsDtype, EveryNameParsesBackToItsDtype) {
  std::set<std::string_view> names;
  for (Dtype d : AllDtypes()) {
    EXPECT_EQ(ParseDtype(DtypeName(d)), d) << DtypeName(d);
    EXPECT_TRUE(names.insert(DtypeName(d)).second) << DtypeName(d) << " twice";
  }
  EXPECT_EQ(names.size(), 22u);
  EXPECT_EQ(ParseDtype("f32"), std::nullopt);
  EXPECT_EQ(ParseDtype("F32 "), std::nullopt);
  EXPECT_EQ(ParseDtype(""), std::nullopt);
}

TEST(SafetensorsDtype, SizesAreTheReferenceImplementations) {
  EXPECT_EQ(DtypeBits(Dtype::kBool), 8u);
  EXPECT_EQ(DtypeBits(Dtype::kF4), 4u);
  EXPECT_EQ(DtypeBits(Dtype::kF6E3M2), 6u);
  EXPECT_EQ(DtypeBits(Dtype::kF8E4M3), 8u);
  EXPECT_EQ(DtypeBits(Dtype::kBF16), 16u);
  EXPECT_EQ(DtypeBits(Dtype::kF16), 16u);
  EXPECT_EQ(DtypeBits(Dtype::kF32), 32u);
  EXPECT_EQ(DtypeBits(Dtype::kC64), 64u);
  EXPECT_EQ(DtypeBits(Dtype::kI64), 64u);
  EXPECT_EQ(DtypeName(Dtype::kF8E4M3Fnuz), "F8_E4M3FNUZ");
}

TEST(SafetensorsDtype, BytesAreWholeAndDoNotOverflow) {
  EXPECT_EQ(DtypeBytes(Dtype::kF32, 6), 24u);
  EXPECT_EQ(DtypeBytes(Dtype::kF32, 0), 0u);
  EXPECT_EQ(DtypeBytes(Dtype::kF4, 4), 2u);
  EXPECT_EQ(DtypeBytes(Dtype::kF4, 3), std::nullopt);
  EXPECT_EQ(DtypeBytes(Dtype::kF6E2M3, 4), 3u);
  EXPECT_EQ(DtypeBytes(Dtype::kF6E2M3, 2), std::nullopt);
  EXPECT_EQ(DtypeBytes(Dtype::kU8, std::numeric_limits<uint64_t>::max() / 8), std::numeric_limits<uint64_t>::max() / 8);
  EXPECT_EQ(DtypeBytes(Dtype::kU8, std::numeric_limits<uint64_t>::max()), std::nullopt);
  EXPECT_EQ(DtypeBytes(Dtype::kF64, uint64_t{1} << 58), std::nullopt);
}

}  // namespace
}  // namespace trit::safetensors
