// Tests of src/chat/json_parse.*: JSON text -> template values as Python's
// json.loads gives them to HF's templates, and the tool-call arguments
// convention (a JSON object becomes a dict, anything else stays the text).
// Values are checked through |tojson's output (json_dump.*), which is what
// a template prints: HF's json.dumps(..., ensure_ascii=False).
#include "chat/json_parse.h"

#include <gtest/gtest.h>

#include <string>

#include "chat/json_dump.h"

namespace trit::chat {
namespace {

std::string Dumped(const Value& v) { return JsonDump(v, {}, SourcePos{}); }

std::string ParsedAndDumped(std::string_view text) {
  Expected<Value> v = ParseJson(text);
  if (!v.ok()) return "error: " + v.status().message();
  return Dumped(*v);
}

TEST(ChatJsonParse, ValuesAreWhatJsonLoadsGives) {
  // Key order is the text's, not sorted; ints stay ints, floats print as
  // Python's repr; non-ASCII stays raw.
  EXPECT_EQ(ParsedAndDumped(R"({"z":1,"a":[true,false,null],"m":{"x":1.50,"y":1e-7,"w":2E3},"s":"é\u00e9\n"})"),
            R"({"z": 1, "a": [true, false, null], "m": {"x": 1.5, "y": 1e-07, "w": 2000.0}, "s": "éé\n"})");
  EXPECT_EQ(ParsedAndDumped("  -0  "), "0");
  EXPECT_EQ(ParsedAndDumped("-0.0"), "-0.0");
  EXPECT_EQ(ParsedAndDumped("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(ParsedAndDumped("[]"), "[]");
  // A repeated key keeps its first place and takes its last value, as in a Python dict.
  EXPECT_EQ(ParsedAndDumped(R"({"a":1,"b":2,"a":3})"), R"({"a": 3, "b": 2})");
  Expected<Value> v = ParseJson(R"({"n": 3, "f": 3.0})");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->as_dict().Find("n")->is_int());
  EXPECT_TRUE(v->as_dict().Find("f")->is_float());
}

TEST(ChatJsonParse, ErrorsAndLimits) {
  EXPECT_EQ(ParsedAndDumped(R"({"a": )"),
            "error: invalid JSON: parse error at line 1, column 7: syntax error while parsing value - unexpected end "
            "of input; expected '[', '{', or a literal");
  EXPECT_NE(ParsedAndDumped("").find("error: invalid JSON"), std::string::npos);
  EXPECT_NE(ParsedAndDumped("[1] 2").find("error: invalid JSON"), std::string::npos);
  EXPECT_NE(ParsedAndDumped("NaN").find("error: invalid JSON"), std::string::npos);
  const std::string ok_depth = std::string(kMaxJsonNesting, '[') + std::string(kMaxJsonNesting, ']');
  EXPECT_TRUE(ParseJson(ok_depth).ok());
  const std::string deep = std::string(kMaxJsonNesting + 1, '[') + std::string(kMaxJsonNesting + 1, ']');
  EXPECT_EQ(ParsedAndDumped(deep), "error: JSON nested deeper than 128 levels");
  const std::string very_deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_FALSE(ParseJson(very_deep).ok());
}

TEST(ChatJsonParse, ToolArgumentsObjectBecomesADict) {
  // OpenAI clients send compact text; the template sees the object and
  // prints it with json.dumps' spacing.
  Expected<Value> args = ToolArgumentsValue(R"({"city":"Paris","days":3,"units":["C"],"exact":true})");
  ASSERT_TRUE(args.ok());
  ASSERT_TRUE(args->is_dict());
  EXPECT_EQ(args->as_dict().Find("city")->as_string(), "Paris");
  EXPECT_EQ(args->as_dict().Find("days")->as_int(), 3);
  EXPECT_EQ(Dumped(*args), R"({"city": "Paris", "days": 3, "units": ["C"], "exact": true})");
  Expected<Value> empty = ToolArgumentsValue("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->is_dict());
}

TEST(ChatJsonParse, ToolArgumentsThatAreNotAnObjectStayText) {
  for (const std::string text : {R"({"city": "Paris")", "", "not json", R"(["Paris"])", "42", R"("Paris")", "null"}) {
    Expected<Value> args = ToolArgumentsValue(text);
    ASSERT_TRUE(args.ok()) << text;
    ASSERT_TRUE(args->is_string()) << text;
    EXPECT_EQ(args->as_string(), text);
  }
  const std::string deep = "{\"a\":" + std::string(kMaxJsonNesting, '[') + std::string(kMaxJsonNesting, ']') + "}";
  Expected<Value> too_deep = ToolArgumentsValue(deep);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_EQ(too_deep.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(too_deep.status().message(), "JSON nested deeper than 128 levels");
}

}  // namespace
}  // namespace trit::chat
