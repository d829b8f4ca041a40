#include "quant/types.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace trit::quant {
namespace {

struct Expected {
  uint32_t id;
  const char* name;
  int64_t block_size;
  int64_t type_size;
};

// Transcribed from ggml-common.h (block structs) and ggml.c (type_traits):
// e.g. q4_K = 2 fp16 + 12 scale bytes + 128 nibble bytes = 144.
constexpr Expected kGgml[] = {
    {0, "f32", 1, 4},          {1, "f16", 1, 2},          {2, "q4_0", 32, 18},
    {3, "q4_1", 32, 20},       {6, "q5_0", 32, 22},       {7, "q5_1", 32, 24},
    {8, "q8_0", 32, 34},       {9, "q8_1", 32, 36},       {10, "q2_K", 256, 84},
    {11, "q3_K", 256, 110},    {12, "q4_K", 256, 144},    {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},    {15, "q8_K", 256, 292},    {16, "iq2_xxs", 256, 66},
    {17, "iq2_xs", 256, 74},   {18, "iq3_xxs", 256, 98},  {19, "iq1_s", 256, 50},
    {20, "iq4_nl", 32, 18},    {21, "iq3_s", 256, 110},   {22, "iq2_s", 256, 82},
    {23, "iq4_xs", 256, 136},  {24, "i8", 1, 1},          {25, "i16", 1, 2},
    {26, "i32", 1, 4},         {27, "i64", 1, 8},         {28, "f64", 1, 8},
    {29, "iq1_m", 256, 56},    {30, "bf16", 1, 2},        {34, "tq1_0", 256, 54},
    {35, "tq2_0", 256, 66},    {36, "i2_s", 128, 32},     {39, "mxfp4", 32, 17},
};
// i2_s is bitnet.cpp's (its fork's ggml.c says block 1, size 1 and
// special-cases ggml_nbytes to n / 4 + 32): the same bytes, described here as
// 128-value blocks of 32 bytes plus a 32-byte tensor trailer.

TEST(TypesTest, TableMatchesGgmlExactly) {
  ASSERT_EQ(AllTypes().size(), std::size(kGgml));
  for (size_t i = 0; i < std::size(kGgml); ++i) {
    const TypeInfo& t = AllTypes()[i];
    SCOPED_TRACE(kGgml[i].name);
    EXPECT_EQ(static_cast<uint32_t>(t.type), kGgml[i].id);
    EXPECT_EQ(t.name, kGgml[i].name);
    EXPECT_EQ(t.block_size, kGgml[i].block_size);
    EXPECT_EQ(t.type_size, kGgml[i].type_size);
  }
}

TEST(TypesTest, FindTypeById) {
  for (const Expected& e : kGgml) {
    const TypeInfo* t = FindType(e.id);
    ASSERT_NE(t, nullptr) << e.name;
    EXPECT_EQ(t->name, e.name);
    EXPECT_EQ(&GetType(t->type), t);
  }
  // Ids ggml removed (4, 5: q4_2, q4_3; 31..33: q4_0_4_4 ...) or never had.
  for (uint32_t id : {4u, 5u, 31u, 32u, 33u, 37u, 38u, 40u, 1000u, 0xffffffffu}) {
    EXPECT_EQ(FindType(id), nullptr) << id;
  }
}

TEST(TypesTest, TensorBytesAddTheTrailer) {
  EXPECT_EQ(*TensorBytes(GetType(GgmlType::kI2_S), 256 * 4), 256u + 32u);
  EXPECT_EQ(*RowBytes(GetType(GgmlType::kI2_S), 256 * 4), 256u);
  EXPECT_EQ(*TensorBytes(GetType(GgmlType::kTQ2_0), 256), 66u);
  EXPECT_FALSE(TensorBytes(GetType(GgmlType::kI2_S), 100).ok());
  for (const TypeInfo& t : AllTypes()) EXPECT_EQ(t.tensor_trailer, t.type == GgmlType::kI2_S ? 32u : 0u) << t.name;
}

TEST(TypesTest, NamesRoundTripCaseInsensitively) {
  for (const TypeInfo& t : AllTypes()) {
    EXPECT_EQ(FindTypeByName(t.name), &t);
    std::string upper(t.name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(FindTypeByName(upper), &t) << upper;
  }
  EXPECT_EQ(FindTypeByName("Q4_k")->type, GgmlType::kQ4_K);
  EXPECT_EQ(FindTypeByName("TQ1_0")->type, GgmlType::kTQ1_0);
  EXPECT_EQ(FindTypeByName(""), nullptr);
  EXPECT_EQ(FindTypeByName("q4"), nullptr);
  EXPECT_EQ(FindTypeByName("q4_0 "), nullptr);
  EXPECT_EQ(FindTypeByName("q4_K_M"), nullptr);  // a file type, not a tensor type
}

TEST(TypesTest, RequiredTypesHaveFunctions) {
  for (GgmlType type : {GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16, GgmlType::kQ8_0, GgmlType::kQ4_0,
                        GgmlType::kQ4_1, GgmlType::kQ5_0, GgmlType::kQ5_1, GgmlType::kQ4_K, GgmlType::kQ5_K,
                        GgmlType::kQ6_K, GgmlType::kTQ1_0, GgmlType::kTQ2_0, GgmlType::kIQ4_NL,
                        GgmlType::kIQ4_XS, GgmlType::kMXFP4}) {
    const TypeInfo& t = GetType(type);
    EXPECT_NE(t.dequantize, nullptr) << t.name;
    EXPECT_NE(t.quantize, nullptr) << t.name;
  }
  EXPECT_NE(GetType(GgmlType::kQ2_K).dequantize, nullptr);
  EXPECT_NE(GetType(GgmlType::kQ3_K).dequantize, nullptr);
  EXPECT_NE(GetType(GgmlType::kQ8_K).dequantize, nullptr);
  EXPECT_EQ(GetType(GgmlType::kIQ2_XXS).dequantize, nullptr);
  EXPECT_EQ(GetType(GgmlType::kQ8_1).quantize, nullptr);
}

TEST(TypesTest, RowBytes) {
  EXPECT_EQ(RowBytes(GetType(GgmlType::kF32), 0).value(), 0u);
  EXPECT_EQ(RowBytes(GetType(GgmlType::kF32), 7).value(), 28u);
  EXPECT_EQ(RowBytes(GetType(GgmlType::kQ4_0), 4096).value(), 128u * 18u);
  EXPECT_EQ(RowBytes(GetType(GgmlType::kQ4_K), 4096).value(), 16u * 144u);
  EXPECT_EQ(RowBytes(GetType(GgmlType::kTQ1_0), 256).value(), 54u);
  EXPECT_EQ(RowBytes(GetType(GgmlType::kMXFP4), 64).value(), 34u);
  // The largest count that fits: (2^63 - 1) single bytes.
  EXPECT_EQ(RowBytes(GetType(GgmlType::kI8), std::numeric_limits<int64_t>::max()).value(),
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

TEST(TypesTest, RowBytesErrorsNameTheProblem) {
  const auto not_multiple = RowBytes(GetType(GgmlType::kQ4_K), 300);
  ASSERT_FALSE(not_multiple.ok());
  EXPECT_EQ(not_multiple.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(not_multiple.status().message(), "type q4_K: 300 elements is not a multiple of the block size 256");

  const auto negative = RowBytes(GetType(GgmlType::kF16), -1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "type f16: negative element count -1");

  // (2^63 - 1) / 1 * 8 bytes does not fit in 64 bits.
  const auto overflow = RowBytes(GetType(GgmlType::kF64), std::numeric_limits<int64_t>::max());
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("f64"), std::string::npos);
  EXPECT_NE(overflow.status().message().find("overflow"), std::string::npos);
  // The boundary: 4 * (2^62 - 1) fits in 64 bits, 4 * 2^62 does not.
  const int64_t two62 = int64_t{1} << 62;
  EXPECT_EQ(RowBytes(GetType(GgmlType::kF32), two62 - 1).value(), 0xfffffffffffffffcull);
  EXPECT_FALSE(RowBytes(GetType(GgmlType::kF32), two62).ok());
}

}  // namespace
}  // namespace trit::quant
