#include "cli/metadata_json.h"

#include <gtest/gtest.h>

namespace trit::cli {
namespace {

using gguf::Array;
using gguf::Value;
using gguf::ValueType;

TEST(MetadataJsonTest, Scalars) {
  EXPECT_EQ(ValueToJson(Value(uint32_t{2048}), 16), 2048);
  EXPECT_EQ(ValueToJson(Value(int8_t{-3}), 16), -3);
  EXPECT_EQ(ValueToJson(Value(true), 16), true);
  EXPECT_EQ(ValueToJson(Value(std::string("llama")), 16), "llama");
  EXPECT_FLOAT_EQ(ValueToJson(Value(1e-5f), 16).get<float>(), 1e-5f);
}

TEST(MetadataJsonTest, ShortArraysExpandLongOnesSummarise) {
  Value tokens(Array::OfStrings({"<unk>", "<s>", "</s>"}));
  EXPECT_EQ(ValueToJson(tokens, 16), nlohmann::ordered_json::array({"<unk>", "<s>", "</s>"}));
  EXPECT_EQ(ValueToJson(tokens, 2), nlohmann::ordered_json({{"element_type", "string"}, {"length", 3}}));
  Value ints(Array::Of<int32_t>(ValueType::kInt32, {1, -2, 3}));
  EXPECT_EQ(ValueToJson(ints, 16), nlohmann::ordered_json::array({1, -2, 3}));
}

TEST(MetadataJsonTest, NestedArrays) {
  Array outer;
  outer.element_type = ValueType::kArray;
  outer.arrays.push_back(Array::Of<uint8_t>(ValueType::kUint8, {1, 2}));
  outer.arrays.push_back(Array::OfStrings({"x"}));
  EXPECT_EQ(ValueToJson(Value(outer), 16), nlohmann::ordered_json::parse(R"([[1, 2], ["x"]])"));
}

TEST(MetadataJsonTest, TextRendering) {
  EXPECT_EQ(ValueToText(Value(std::string("a\nb")), 100), "\"a\\nb\"");
  EXPECT_EQ(ValueToText(Value(uint8_t{7}), 100), "7");
  const std::string text = ValueToText(Value(Array::OfStrings({"<unk>", "<s>", "</s>"})), 100);
  EXPECT_EQ(text, "[3 x string] \"<unk>\", \"<s>\", \"</s>\"");
  const std::string cut = ValueToText(Value(Array::Of<float>(ValueType::kFloat32, std::vector<float>(500, 0.5f))), 40);
  EXPECT_EQ(cut.rfind("[500 x float32] 0.5, 0.5", 0), 0u) << cut;
  EXPECT_NE(cut.find("..."), std::string::npos);
  EXPECT_LT(cut.size(), 60u);
}

}  // namespace
}  // namespace trit::cli
