#include "store/model_name.h"

#include <gtest/gtest.h>

namespace trit::store {
namespace {

TEST(ModelName, AcceptsShortNames) {
  for (const char* name : {"stories260k", "qwen3-0.6b-q4_0", "A.b_c-9", "7b"}) {
    EXPECT_TRUE(ValidateModelName(name).ok()) << name;
  }
}

TEST(ModelName, RefusesNamesThatLeaveTheDirectory) {
  for (const char* name : {"", ".", "..", "../x", "a/b", "a\\b", ".hidden", "-flag", "a b", "x\n", "é"}) {
    EXPECT_FALSE(ValidateModelName(name).ok()) << name;
  }
  EXPECT_FALSE(ValidateModelName(std::string(kMaxModelNameLength + 1, 'a')).ok());
  EXPECT_TRUE(ValidateModelName(std::string(kMaxModelNameLength, 'a')).ok());
  EXPECT_NE(ValidateModelName("a/b").message().find("position 1"), std::string::npos);
}

TEST(ModelName, DerivedFromTheSource) {
  EXPECT_EQ(*NameFromSource("https://h/x/Qwen3-0.6B-Q4_0.gguf"), "qwen3-0.6b-q4_0");
  EXPECT_EQ(*NameFromSource("https://h/x/model.GGUF?download=true#frag"), "model");
  EXPECT_EQ(*NameFromSource("/tmp/dir/stories260K.gguf"), "stories260k");
  EXPECT_EQ(*NameFromSource("my model (1).gguf"), "my-model--1-");
  EXPECT_EQ(*NameFromSource("../..gguf.gguf"), "gguf");
  EXPECT_FALSE(NameFromSource("https://h/x/.gguf").ok());
  EXPECT_FALSE(NameFromSource("https://h/").ok());
}

}  // namespace
}  // namespace trit::store
