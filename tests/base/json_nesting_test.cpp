#include "base/json_nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace trit {
namespace {

TEST(JsonNestingTest, CountsArraysAndObjectsNotBracketsInStrings) {
  EXPECT_TRUE(JsonNestingWithin("", 0));
  EXPECT_TRUE(JsonNestingWithin("[1,{\"a\":[2]}]", 3));
  EXPECT_FALSE(JsonNestingWithin("[1,{\"a\":[2]}]", 2));
  // Brackets inside strings, an escaped quote among them, are text.
  EXPECT_TRUE(JsonNestingWithin(R"(["[[[\"{{{", "]]"])", 1));
  EXPECT_FALSE(JsonNestingWithin(R"([{"k": "\\"}, [[]]])", 2));
  // Depth is the deepest point, not the count of brackets.
  EXPECT_TRUE(JsonNestingWithin("[[],[],[],[]]", 2));
  EXPECT_FALSE(JsonNestingWithin(std::string(65, '[') + std::string(65, ']'), 64));
  EXPECT_TRUE(JsonNestingWithin(std::string(64, '[') + std::string(64, ']'), 64));
}

}  // namespace
}  // namespace trit
