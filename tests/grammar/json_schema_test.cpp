#include "grammar/json_schema.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/matcher.h"

namespace trit::grammar {
namespace {

// The schema's grammar, converted and parsed; nullptr (and a test failure)
// when either step fails.
std::shared_ptr<const Grammar> Compile(std::string_view schema) {
  Expected<std::string> gbnf = JsonSchemaToGbnf(schema);
  EXPECT_TRUE(gbnf.ok()) << schema << "\n" << gbnf.status().message();
  if (!gbnf) return nullptr;
  Expected<std::shared_ptr<const Grammar>> grammar = ParseGbnf(*gbnf);
  EXPECT_TRUE(grammar.ok()) << schema << "\n" << *gbnf << "\n" << grammar.status().message();
  if (!grammar) return nullptr;
  return *grammar;
}

// Every `valid` document matches the schema's grammar, and no `invalid` one does.
void ExpectLanguage(std::string_view schema, const std::vector<std::string>& valid,
                    const std::vector<std::string>& invalid) {
  std::shared_ptr<const Grammar> g = Compile(schema);
  ASSERT_NE(g, nullptr);
  for (const std::string& doc : valid) EXPECT_TRUE(Matches(g, doc)) << "schema " << schema << "\nshould accept " << doc;
  for (const std::string& doc : invalid) EXPECT_FALSE(Matches(g, doc)) << "schema " << schema << "\nshould reject " << doc;
}

// The conversion fails, with a message containing `what`.
void ExpectError(std::string_view schema, std::string_view what) {
  Expected<std::string> gbnf = JsonSchemaToGbnf(schema);
  ASSERT_FALSE(gbnf.ok()) << schema << "\nconverted to\n" << *gbnf;
  EXPECT_NE(gbnf.status().message().find(what), std::string::npos)
      << schema << "\nmessage: " << gbnf.status().message() << "\nexpected to contain: " << what;
}

TEST(JsonSchemaTest, AnyValueAndAnyObject) {
  const std::vector<std::string> values = {
      "null", "true", "false", "0", "-0", "12", "-3.25", "1e5", "1.5E-07", "\"\"", "\"a\\\"b\\\\c\\/\\n\\u00e9\"",
      "\"h\xc3\xa9llo \xf0\x9f\x98\x80\"", "[]", "[1,[2,{}]]", "{}", "{\"a\":{\"b\":[null]}}"};
  const std::vector<std::string> not_values = {
      "",          "nul",        "01",          "1.",         "+1",       ".5",      "1e",   "1e123",
      "\"\x01\"",  "\"a",        "\"\\x\"",     "\"\\ud800\"", "[1,]",     "{\"a\"}", "{,}",  "[1 ,2]",
      " 1",        "{\"a\": 1}", "12345678901234567", "1.12345678901234567"};
  std::shared_ptr<const Grammar> value = *ParseGbnf(JsonValueGbnf());
  for (const std::string& v : values) EXPECT_TRUE(Matches(value, v)) << v;
  for (const std::string& v : not_values) EXPECT_FALSE(Matches(value, v)) << v;
  std::shared_ptr<const Grammar> object = *ParseGbnf(JsonObjectGbnf());
  EXPECT_TRUE(Matches(object, "{}"));
  EXPECT_TRUE(Matches(object, "{\"a\":1,\"b\":[true]}"));
  EXPECT_FALSE(Matches(object, "[]"));
  EXPECT_FALSE(Matches(object, "\"x\""));
  // `true` and `{}` are any value.
  ExpectLanguage("true", values, {"", "01"});
  ExpectLanguage("{}", values, {"", "01"});
  ExpectLanguage("{\"title\":\"t\",\"description\":\"d\",\"$schema\":\"x\",\"$id\":\"y\",\"examples\":[1],"
                 "\"default\":2,\"deprecated\":false,\"readOnly\":true,\"writeOnly\":false,\"$comment\":\"c\"}",
                 values, {""});
}

TEST(JsonSchemaTest, Types) {
  ExpectLanguage(R"({"type":"string"})", {"\"\"", "\"abc\""}, {"1", "null", "abc"});
  ExpectLanguage(R"({"type":"integer"})", {"0", "-7", "1234567890123456"}, {"1.0", "1e2", "\"1\"", "00", "-"});
  ExpectLanguage(R"({"type":"number"})", {"0", "-7", "1.5", "2e10", "0.0001"}, {"\"1\"", "true"});
  ExpectLanguage(R"({"type":"boolean"})", {"true", "false"}, {"1", "null", "\"true\""});
  ExpectLanguage(R"({"type":"null"})", {"null"}, {"0", "false", "{}"});
  ExpectLanguage(R"({"type":"object"})", {"{}", "{\"a\":1}"}, {"[]", "null"});
  ExpectLanguage(R"({"type":"array"})", {"[]", "[1,\"a\"]"}, {"{}", "null"});
  ExpectLanguage(R"({"type":["string","null"]})", {"\"x\"", "null"}, {"1", "false"});
  // Type-specific keywords apply to their type only.
  ExpectLanguage(R"({"type":["string","integer"],"maxLength":2,"maximum":5})", {"\"ab\"", "5", "-3"},
                 {"\"abc\"", "6", "1.5"});
  // Without `type`, the types its keywords constrain.
  ExpectLanguage(R"({"maxLength":2})", {"\"ab\""}, {"\"abc\"", "1"});
  ExpectLanguage(R"({"properties":{"a":{"type":"integer"}}})", {"{}", "{\"a\":1}"}, {"{\"a\":\"x\"}", "1"});
}

TEST(JsonSchemaTest, ObjectsFollowThePropertyOrderWithRequiredOnesPresent) {
  const char* schema = R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},
      "email":{"type":"string"}},"required":["name","email"],"additionalProperties":false})";
  ExpectLanguage(schema,
                 {R"({"name":"a","email":"e"})", R"({"name":"a","age":3,"email":"e"})"},
                 {
                     R"({"name":"a"})",                              // missing required email
                     R"({"email":"e"})",                             // missing required name
                     R"({"email":"e","name":"a"})",                  // out of order
                     R"({"name":"a","age":"3","email":"e"})",        // wrong type
                     R"({"name":"a","email":"e","extra":1})",        // additionalProperties false
                     R"({"name":"a","email":"e","name":"b"})",       // repeated
                     R"({"name":"a",,"email":"e"})", R"({"name":"a","email":"e",})", "{}",
                 });
  // All optional: any subset in order, the empty object too.
  ExpectLanguage(R"({"properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},
                     "additionalProperties":false})",
                 {"{}", R"({"a":1})", R"({"b":2})", R"({"c":3})", R"({"a":1,"c":3})", R"({"a":1,"b":2,"c":3})"},
                 {R"({"b":2,"a":1})", R"({,"a":1})", R"({"a":1,})", R"({"d":1})"});
  // A property whose schema is false must not appear.
  ExpectLanguage(R"({"properties":{"a":false,"b":{"type":"null"}},"additionalProperties":false})",
                 {"{}", R"({"b":null})"}, {R"({"a":1})"});
  ExpectError(R"({"properties":{"a":false},"required":["a"]})", "property 'a' at the root is required but its schema is false");
}

TEST(JsonSchemaTest, AdditionalPropertiesComeAfterTheListedOnesWithOtherKeys) {
  // Absent additionalProperties: extra keys of any value, never a listed name.
  ExpectLanguage(R"({"type":"object","properties":{"id":{"type":"integer"},"ids":{"type":"string"}},"required":["id"]})",
                 {R"({"id":1})", R"({"id":1,"ids":"x"})", R"({"id":1,"x":[1]})", R"({"id":1,"ids":"x","i":null,"idz":2})",
                  R"({"id":1,"":0})", R"({"id":1,"idsx":0})"},
                 {R"({"id":1,"id":2})", R"({"id":1,"ids":"x","ids":"y"})", R"({"id":1,"ids":3})", R"({"x":1,"id":1})"});
  // additionalProperties as a schema constrains the extra values.
  ExpectLanguage(R"({"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}})",
                 {"{}", R"({"a":"x","b":1})", R"({"b":1,"c":2})"}, {R"({"a":"x","b":"y"})", R"({"a":1})", R"({"a":"x","a":2})"});
  // A map: no properties, values constrained.
  ExpectLanguage(R"({"type":"object","additionalProperties":{"type":"boolean"}})", {"{}", R"({"x":true,"y":false})"},
                 {R"({"x":1})"});
  // A required property that is not listed takes the additionalProperties schema.
  ExpectLanguage(R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["b"],"additionalProperties":{"type":"string"}})",
                 {R"({"b":"x"})", R"({"a":1,"b":"x"})"}, {R"({"a":1})", R"({"b":1})"});
  ExpectError(R"({"type":"object","required":["b"],"additionalProperties":false})",
              "required property 'b' at the root is not in properties and additionalProperties is false");
}

TEST(JsonSchemaTest, KeysWithQuotesEscapesAndUnicode) {
  ExpectLanguage(R"({"type":"object","properties":{"a\"b":{"type":"integer"},"caf\u00e9":{"type":"integer"},"x/y":{"type":"null"}},
                     "required":["a\"b","café","x/y"],"additionalProperties":false})",
                 {"{\"a\\\"b\":1,\"caf\xc3\xa9\":2,\"x/y\":null}"}, {"{\"ab\":1,\"caf\xc3\xa9\":2,\"x/y\":null}"});
}

TEST(JsonSchemaTest, Arrays) {
  ExpectLanguage(R"({"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3})",
                 {"[1]", "[1,2]", "[1,2,3]"}, {"[]", "[1,2,3,4]", "[1,\"a\"]", "[1,]", "[,1]"});
  ExpectLanguage(R"({"type":"array","items":{"type":"string"},"minItems":2})", {"[\"a\",\"b\"]", "[\"a\",\"b\",\"c\"]"},
                 {"[\"a\"]", "[]"});
  ExpectLanguage(R"({"type":"array","maxItems":0})", {"[]"}, {"[1]"});
  // prefixItems: positions first; a shorter array is valid; items: false ends it.
  ExpectLanguage(R"({"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false})",
                 {"[]", "[1]", "[1,\"a\"]"}, {"[\"a\"]", "[1,2]", "[1,\"a\",3]"});
  ExpectLanguage(R"({"type":"array","prefixItems":[{"type":"integer"}],"items":{"type":"boolean"},"minItems":2,"maxItems":3})",
                 {"[1,true]", "[1,true,false]"}, {"[1]", "[1,2]", "[1,true,false,true]", "[true,true]"});
  ExpectLanguage(R"({"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"}],"minItems":1})",
                 {"[1]", "[1,2]", "[1,2,\"any\"]"}, {"[]", "[1,\"x\"]"});
  // Draft 7's tuple form.
  ExpectLanguage(R"({"type":"array","items":[{"type":"null"},{"type":"boolean"}],"additionalItems":{"type":"integer"}})",
                 {"[]", "[null]", "[null,true]", "[null,true,3,4]"}, {"[true]", "[null,true,\"x\"]"});
  ExpectLanguage(R"({"type":"array","items":{"type":"integer"},"uniqueItems":true,"maxItems":1})", {"[]", "[1]"}, {"[1,2]"});
  ExpectLanguage(R"({"type":"array","uniqueItems":false,"maxItems":2})", {"[1,1]"}, {"[1,1,1]"});
  ExpectError(R"({"type":"array","minItems":3,"maxItems":2})", "minItems 3 is above maxItems 2 at the root");
  ExpectError(R"({"type":"array","uniqueItems":true})", "schema keyword 'uniqueItems' (true) at the root is not supported");
  ExpectError(R"({"type":"array","prefixItems":[{}],"items":false,"minItems":2})", "no array at the root has minItems 2");
  ExpectError(R"({"type":"array","maxItems":5000})", "maxItems at the root is 5000; trit expands counts up to 1000");
}

TEST(JsonSchemaTest, StringLengthsCountCharactersNotBytes) {
  ExpectLanguage(R"({"type":"string","minLength":2,"maxLength":3})",
                 {"\"ab\"", "\"abc\"", "\"\\n\\t\"", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", "\"\\u00e9x\""},
                 {"\"a\"", "\"abcd\"", "\"\"", "\"\xc3\xa9\"", "\"\\u00e9\""});
  ExpectLanguage(R"({"type":"string","maxLength":0})", {"\"\""}, {"\"a\""});
  ExpectError(R"({"type":"string","minLength":3,"maxLength":2})", "minLength 3 is above maxLength 2");
  ExpectError(R"({"type":"string","maxLength":1001})", "maxLength at the root is 1001");
  ExpectError(R"({"type":"string","maxLength":-1})", "maxLength at the root must be a non-negative integer");
  ExpectError(R"({"type":"string","maxLength":1.5})", "maxLength at the root must be a non-negative integer");
}

// Integer bounds are exact: every integer in [-130, 130] against several ranges.
TEST(JsonSchemaTest, IntegerRangesAreExact) {
  struct Range {
    std::string keywords;
    int64_t lo, hi;  // the integers allowed
  };
  const std::vector<Range> ranges = {
      {R"("minimum":0)", 0, 1000},
      {R"("minimum":1,"maximum":100)", 1, 100},
      {R"("minimum":-17,"maximum":99)", -17, 99},
      {R"("minimum":-120,"maximum":-7)", -120, -7},
      {R"("exclusiveMinimum":-3,"exclusiveMaximum":19)", -2, 18},
      {R"("minimum":2.5,"maximum":7.5)", 3, 7},
      {R"("exclusiveMinimum":2.5,"exclusiveMaximum":7.0)", 3, 6},
      {R"("minimum":5,"exclusiveMinimum":true,"maximum":9,"exclusiveMaximum":false)", 6, 9},  // draft 4
      {R"("minimum":10,"exclusiveMinimum":12,"maximum":99,"exclusiveMaximum":50)", 13, 49},     // the tighter wins
      {R"("maximum":0)", -1000, 0},
      {R"("minimum":42,"maximum":42)", 42, 42},
  };
  for (const Range& r : ranges) {
    std::shared_ptr<const Grammar> g = Compile(fmt::format(R"({{"type":"integer",{}}})", r.keywords));
    ASSERT_NE(g, nullptr);
    for (int64_t x = -130; x <= 130; ++x) {
      EXPECT_EQ(Matches(g, std::to_string(x)), x >= r.lo && x <= r.hi) << r.keywords << " x=" << x;
    }
    EXPECT_FALSE(Matches(g, "1.0")) << r.keywords;
    EXPECT_FALSE(Matches(g, "007")) << r.keywords;
  }
  // Bounds past the 16-digit integers: met by every integer written, or by none.
  ExpectLanguage(R"({"type":"integer","minimum":-1e300,"maximum":18446744073709551615})",
                 {"0", "9999999999999999", "-9999999999999999"}, {"10000000000000000"});
  ExpectLanguage(R"({"type":"integer","minimum":9999999999999990})", {"9999999999999990", "9999999999999999"},
                 {"9999999999999989", "10000000000000000"});
  ExpectError(R"({"type":"integer","minimum":10000000000000000})", "beyond the integers of up to 16 digits");
  ExpectError(R"({"type":"integer","minimum":5,"maximum":4})", "no integer at the root lies within its minimum and maximum");
  ExpectError(R"({"type":"integer","exclusiveMinimum":4,"exclusiveMaximum":5})", "no integer at the root");
  ExpectError(R"({"type":"integer","minimum":"3"})", "minimum at the root must be a number");
}

// Number bounds at integers are exact, fractions included: each candidate
// number against each range.
TEST(JsonSchemaTest, NumberRangesAtIntegersAreExact) {
  struct Range {
    std::string keywords;
    std::optional<double> lo, hi;
    bool lo_exclusive, hi_exclusive;
  };
  const std::vector<Range> ranges = {
      {R"("minimum":0)", 0.0, std::nullopt, false, false},
      {R"("exclusiveMinimum":0)", 0.0, std::nullopt, true, false},
      {R"("minimum":0,"exclusiveMaximum":10)", 0.0, 10.0, false, true},
      {R"("minimum":-5,"maximum":-2)", -5.0, -2.0, false, false},
      {R"("exclusiveMinimum":-5,"exclusiveMaximum":-2)", -5.0, -2.0, true, true},
      {R"("minimum":-3,"maximum":3)", -3.0, 3.0, false, false},
      {R"("exclusiveMinimum":-1,"exclusiveMaximum":1)", -1.0, 1.0, true, true},
      {R"("maximum":0)", std::nullopt, 0.0, false, false},
      {R"("exclusiveMaximum":0)", std::nullopt, 0.0, false, true},
      {R"("minimum":7,"maximum":7)", 7.0, 7.0, false, false},
      {R"("minimum":2,"exclusiveMaximum":3)", 2.0, 3.0, false, true},
  };
  std::vector<std::string> candidates;
  for (int i = -12; i <= 12; ++i) {
    for (const char* frac : {"", ".0", ".00", ".5", ".05", ".999", ".001"}) {
      candidates.push_back(std::to_string(i) + frac);
      if (i == 0) candidates.push_back(std::string("-0") + frac);
    }
  }
  for (const Range& r : ranges) {
    std::shared_ptr<const Grammar> g = Compile(fmt::format(R"({{"type":"number",{}}})", r.keywords));
    ASSERT_NE(g, nullptr);
    for (const std::string& c : candidates) {
      const double x = std::stod(c);
      const bool in = (!r.lo || (r.lo_exclusive ? x > *r.lo : x >= *r.lo)) && (!r.hi || (r.hi_exclusive ? x < *r.hi : x <= *r.hi));
      // "-0" forms are valid numbers trit need not write; only check they are never wrongly accepted.
      if (c.rfind("-0", 0) == 0 && in) continue;
      EXPECT_EQ(Matches(g, c), in) << r.keywords << " x=" << c;
    }
    EXPECT_FALSE(Matches(g, "1e1")) << "bounded numbers are written without exponent";
  }
  ExpectError(R"({"type":"number","maximum":99.5})",
              "schema keyword 'maximum' at the root is 99.5: trit bounds numbers exactly only at integers");
  ExpectError(R"({"type":"number","minimum":3,"exclusiveMaximum":3})", "no number at the root lies within");
}

TEST(JsonSchemaTest, EnumAndConst) {
  ExpectLanguage(R"({"enum":["red","green",3,null,true,{"a":[1]},[2]]})",
                 {"\"red\"", "\"green\"", "3", "null", "true", "{\"a\":[1]}", "[2]"},
                 {"\"blue\"", "\"Red\"", "4", "false", "{}", "[]"});
  ExpectLanguage(R"({"const":"x\"y"})", {"\"x\\\"y\""}, {"\"xy\""});
  ExpectLanguage(R"({"type":"string","enum":["a",1,"b"]})", {"\"a\"", "\"b\""}, {"1"});
  ExpectLanguage(R"({"type":"integer","enum":[1,1.0,2.5]})", {"1", "1.0"}, {"2.5"});
  ExpectLanguage(R"({"enum":["a","b"],"const":"b"})", {"\"b\""}, {"\"a\""});
  ExpectError(R"({"type":"string","enum":[1,2]})", "no value of enum/const at the root has the schema's type");
  ExpectError(R"({"type":"string","enum":["a"],"maxLength":3})",
              "schema keyword 'maxLength' at the root beside enum or const is not supported");
  ExpectError(R"({"enum":"a"})", "enum at the root must be an array");
}

TEST(JsonSchemaTest, AnyOfAndOneOf) {
  ExpectLanguage(R"({"anyOf":[{"type":"integer"},{"type":"string","maxLength":1},false]})", {"1", "\"a\""},
                 {"\"ab\"", "null", "1.5"});
  // Keywords beside anyOf apply to every alternative.
  ExpectLanguage(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"additionalProperties":false,
                     "anyOf":[{"required":["a"]},{"required":["b"]}]})",
                 {R"({"a":1})", R"({"b":1})", R"({"a":1,"b":2})"}, {"{}", R"({"c":1})"});
  // An alternative that contradicts the keywords beside it is dropped.
  ExpectLanguage(R"({"type":"string","anyOf":[{"maxLength":1},{"type":"null"}]})", {"\"a\""}, {"null", "\"ab\""});
  // oneOf: disjoint by type, or by a required const property.
  ExpectLanguage(R"({"oneOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]})", {"\"a\"", "1", "null"}, {"1.5"});
  ExpectLanguage(R"({"oneOf":[
      {"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"],"additionalProperties":false},
      {"type":"object","properties":{"kind":{"enum":["square","rect"]},"w":{"type":"number"}},"required":["kind","w"],"additionalProperties":false}],
      "discriminator":{"propertyName":"kind"}})",
                 {R"({"kind":"circle","r":1})", R"({"kind":"square","w":2})", R"({"kind":"rect","w":2})"},
                 {R"({"kind":"circle","w":1})", R"({"kind":"tri","w":1})"});
  ExpectError(R"({"oneOf":[{"type":"number"},{"type":"integer"}]})",
              "oneOf at /oneOf: alternatives 0 and 1 may both match one value");
  ExpectError(R"({"oneOf":[{"type":"object"},{"type":"object","properties":{"a":{"const":1}},"required":["a"]}]})",
              "alternatives 0 and 1 may both match");
  ExpectError(R"({"anyOf":[false]})", "no alternative of anyOf at the root can be satisfied");
  ExpectError(R"({"anyOf":[]})", "anyOf at the root must be a non-empty array");
}

TEST(JsonSchemaTest, AllOfMerges) {
  ExpectLanguage(R"({"allOf":[
      {"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},
      {"properties":{"b":{"type":"string"}},"required":["b"]},
      {"properties":{"a":{"minimum":0}}}]})",
                 {R"({"a":1,"b":"x"})", R"({"a":0,"b":"x","c":null})"}, {R"({"a":-1,"b":"x"})", R"({"a":1})", R"({"b":"x"})"});
  // additionalProperties false in one part keeps only its properties.
  ExpectLanguage(R"({"allOf":[{"properties":{"a":{"type":"integer"},"b":{}},"additionalProperties":false},
                              {"properties":{"c":{"type":"null"}}}]})",
                 {"{}", R"({"a":1})", R"({"a":1,"b":[]})"}, {R"({"c":null})", R"({"x":1})"});
  ExpectLanguage(R"({"allOf":[{"type":["integer","string"]},{"type":["number","null"]},{"maximum":3}]})", {"3", "-1"},
                 {"4", "\"a\"", "null", "1.5"});
  ExpectLanguage(R"({"allOf":[{"maxLength":5},{"maxLength":3},{"minLength":1}],"type":"string"})", {"\"a\"", "\"abc\""},
                 {"\"\"", "\"abcd\""});
  ExpectError(R"({"allOf":[{"type":"string"},{"type":"integer"}]})", "no value satisfies all of the schemas combined at the root");
  ExpectError(R"({"allOf":[{"pattern":"^a$"},{"pattern":"^b$"}]})",
              "allOf at the root: keyword 'pattern' in two subschemas with different values is not supported");
  ExpectError(R"({"allOf":[{"properties":{"a":{}},"additionalProperties":false},{"required":["b"]}]})",
              "property 'b' is required, but a subschema's additionalProperties false forbids it");
}

TEST(JsonSchemaTest, References) {
  ExpectLanguage(R"({"$defs":{"pos":{"type":"integer","minimum":1}},"type":"array","items":{"$ref":"#/$defs/pos"}})",
                 {"[]", "[1,2]"}, {"[0]"});
  ExpectLanguage(R"({"definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}},"additionalProperties":false})",
                 {R"({"a":"x"})"}, {R"({"a":1})"});
  // Recursive: a linked list and a tree through the root.
  ExpectLanguage(R"({"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},
                       "next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},"required":["v","next"],"additionalProperties":false}},
                     "$ref":"#/$defs/node"})",
                 {R"({"v":1,"next":null})", R"({"v":1,"next":{"v":2,"next":{"v":3,"next":null}}})"},
                 {R"({"v":1})", R"({"v":1,"next":{"v":2}})", R"({"v":1,"next":{"v":"x","next":null}})"});
  ExpectLanguage(R"({"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},
                     "required":["name"],"additionalProperties":false})",
                 {R"({"name":"a"})", R"({"name":"a","children":[{"name":"b","children":[]},{"name":"c"}]})"},
                 {R"({"name":"a","children":[{}]})"});
  // $ref beside other keywords: both apply.
  ExpectLanguage(R"({"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":2})", {"\"ab\""}, {"\"abc\"", "1"});
  // Pointer escapes.
  ExpectLanguage(R"({"$defs":{"a/b":{"const":1},"c~d":{"const":2}},"anyOf":[{"$ref":"#/$defs/a~1b"},{"$ref":"#/$defs/c~0d"}]})",
                 {"1", "2"}, {"3"});
  ExpectError(R"({"$ref":"#/$defs/missing"})", "$ref '#/$defs/missing' at /$ref does not resolve: no '$defs' there");
  ExpectError(R"({"$defs":{},"$ref":"#/$defs/missing"})", "no 'missing' there");
  ExpectError(R"({"$ref":"https://example.com/s.json"})", "only references inside the schema");
  ExpectError(R"({"$ref":"#anchor"})", "anchors are not supported");
  ExpectError(R"({"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"$ref":"#/$defs/a"})",
              "refers back to itself with no object or array in between");
  ExpectError(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})", "refers back to itself");
  ExpectError(R"({"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"})", "nests deeper than 64 levels");
}

TEST(JsonSchemaTest, Formats) {
  ExpectLanguage(R"({"type":"string","format":"date"})",
                 {"\"2024-02-29\"", "\"2000-02-29\"", "\"1999-12-31\"", "\"0001-01-01\"", "\"2023-04-30\"", "\"1600-02-29\""},
                 {"\"1900-02-29\"", "\"2023-02-29\"", "\"2023-04-31\"", "\"2023-13-01\"", "\"2023-00-10\"", "\"2023-01-00\"",
                  "\"0000-01-01\"", "\"2023-1-01\"", "\"20230101\""});
  ExpectLanguage(R"({"type":"string","format":"time"})",
                 {"\"12:34:56Z\"", "\"00:00:00.123+05:30\"", "\"23:59:59-23:59\""},
                 {"\"24:00:00Z\"", "\"12:60:00Z\"", "\"12:00:00\"", "\"12:00Z\"", "\"12:00:00+5:00\""});
  ExpectLanguage(R"({"type":"string","format":"date-time"})", {"\"2024-02-29T12:00:00Z\"", "\"1999-01-31T00:00:00.5-01:00\""},
                 {"\"2023-02-29T12:00:00Z\"", "\"2024-01-01 12:00:00Z\"", "\"2024-01-01\""});
  ExpectLanguage(R"({"type":"string","format":"uuid"})", {"\"123e4567-e89b-12d3-a456-426614174000\"", "\"ABCDEF01-2345-6789-abcd-ef0123456789\""},
                 {"\"123e4567e89b12d3a456426614174000\"", "\"123e4567-e89b-12d3-a456-42661417400\"", "\"g23e4567-e89b-12d3-a456-426614174000\""});
  ExpectLanguage(R"({"type":"string","format":"date","minLength":10,"maxLength":20})", {"\"2024-01-01\""}, {});
  ExpectError(R"({"type":"string","format":"email"})", "format 'email' at the root is not supported");
  ExpectError(R"({"type":"string","format":"date","maxLength":5})", "format 'date' with minLength/maxLength");
}

TEST(JsonSchemaTest, Patterns) {
  ExpectLanguage(R"({"type":"string","pattern":"^[a-z]+(-[a-z0-9]{2,4})?$"})", {"\"abc\"", "\"a-b2\"", "\"a-1234\""},
                 {"\"\"", "\"A\"", "\"a-1\"", "\"a-12345\"", "\"a-\""});
  ExpectLanguage(R"({"type":"string","pattern":"^(cat|dog)s?$"})", {"\"cat\"", "\"dogs\""}, {"\"cats!\"", "\"bird\""});
  ExpectLanguage(R"({"type":"string","pattern":"^\\d{3}-\\d{4}$"})", {"\"555-1234\""}, {"\"55-1234\"", "\"555-12345\""});
  ExpectLanguage(R"({"type":"string","pattern":"^a.c$"})", {"\"abc\"", "\"a\\\"c\"", "\"a\xc3\xa9" "c\""}, {"\"a\\nc\"", "\"ac\""});
  ExpectLanguage(R"({"type":"string","pattern":"^[^a-c]*$"})", {"\"xyz\"", "\"\"", "\"\\n\""}, {"\"xaz\""});
  ExpectLanguage(R"({"type":"string","pattern":"^\\w+@\\w+\\.com$"})", {"\"a_1@b.com\""}, {"\"a@b.org\"", "\"@b.com\""});
  ExpectLanguage(R"({"type":"string","pattern":"^\\\\\\/\"$"})", {"\"\\\\/\\\"\""}, {"\"\\\\\""});
  ExpectLanguage(R"({"type":"string","pattern":"^x{2}y{1,}z{0,2}$"})", {"\"xxy\"", "\"xxyyzz\""}, {"\"xy\"", "\"xxyzzz\""});
  // Unanchored: the match may sit anywhere.
  ExpectLanguage(R"({"type":"string","pattern":"[0-9]{2}"})", {"\"12\"", "\"ab12cd\""}, {"\"a1b2\""});
  ExpectLanguage(R"({"type":"string","pattern":"^ab"})", {"\"ab\"", "\"abc\""}, {"\"cab\""});
  ExpectLanguage(R"({"type":"string","pattern":"^a$|^b$"})", {"\"a\"", "\"b\""}, {"\"ab\""});
  ExpectError(R"({"type":"string","pattern":"^(a)\\1$"})", "backreferences");
  ExpectError(R"({"type":"string","pattern":"^(?=a)a$"})", "lookaround");
  ExpectError(R"({"type":"string","pattern":"\\bword"})", "word-boundary");
  ExpectError(R"({"type":"string","pattern":"^a{2000}$"})", "a repeat count above 1000");
  ExpectError(R"x({"type":"string","pattern":"(^a)"})x", "'^' is supported only at the start");
  ExpectError(R"({"type":"string","pattern":"^(a"})", "unclosed '('");
  ExpectError(R"({"type":"string","pattern":"^[a-"})", "unclosed '['");
  ExpectError(R"({"type":"string","pattern":"^(?i)a$"})", "inline flags");
  ExpectError(R"({"type":"string","pattern":"^\\p{L}$"})", "Unicode property escapes");
  ExpectError(R"({"type":"string","pattern":"^a{,3}$"})", "not a quantifier");
  ExpectError(R"({"properties":{"p":{"pattern":"*"}}})", "schema keyword 'pattern' at /properties/p: pattern '*': nothing to repeat");
  ExpectError(R"({"type":"string","pattern":"^a$","maxLength":3})", "pattern with minLength/maxLength at the root is not supported");
}

TEST(JsonSchemaTest, ErrorsNameTheKeywordAndItsPath) {
  ExpectError(R"({"type":"object","properties":{"age":{"type":"integer","multipleOf":5}}})",
              "schema keyword 'multipleOf' at /properties/age is not supported");
  ExpectError(R"({"items":{"not":{}}})", "schema keyword 'not' at /items is not supported");
  ExpectError(R"({"$defs":{"x":{"if":{}}},"$ref":"#/$defs/x"})", "schema keyword 'if' at /$defs/x is not supported");
  ExpectError(R"({"properties":{"a/b":{"patternProperties":{}}}})", "schema keyword 'patternProperties' at /properties/a~1b");
  ExpectError(R"({"minProperties":1})", "schema keyword 'minProperties' at the root is not supported");
  ExpectError(R"({"nullable":true})", "schema keyword 'nullable' at the root is not supported");
  ExpectError(R"({"type":"object",)", "the schema is not valid JSON");
  ExpectError("", "the schema is not valid JSON");
  ExpectError("42", "the schema must be a JSON object or a boolean, not number");
  ExpectError("false", "the schema at the root is false: no value is valid");
  ExpectError(R"({"properties":{"a":3}})", "the schema at /properties/a must be an object or a boolean, not number");
  ExpectError(R"({"type":"float"})", "type at the root must be one of");
  ExpectError(R"({"required":"a"})", "/required must be an array of strings");
  ExpectError(std::string(300, '[') + std::string(300, ']'), "nests deeper than 256 levels");
}

TEST(JsonSchemaTest, HostileSchemasHitLimitsNotMemory) {
  // Deep nesting through properties.
  std::string deep = "{}";
  for (int i = 0; i < 100; ++i) deep = R"({"properties":{"a":)" + deep + "}}";
  ExpectError(deep, "nests deeper than 64 levels");
  // allOf through $ref, each level 12 times the one below: shallow, but the
  // step budget stops it (12^5 merges); a deep chain hits the depth limit.
  const auto chain = [](int levels, int width) {
    std::string defs = R"({"$defs":{"d0":{"type":"object","properties":{"x":{"type":"string"}}})";
    for (int i = 1; i <= levels; ++i) {
      std::string refs;
      for (int k = 0; k < width; ++k) refs += fmt::format(R"({}{{"$ref":"#/$defs/d{}"}})", k > 0 ? "," : "", i - 1);
      defs += fmt::format(R"(,"d{}":{{"allOf":[{}]}})", i, refs);
    }
    return defs + fmt::format(R"(}},"$ref":"#/$defs/d{}","title":"t"}})", levels);
  };
  ExpectError(chain(5, 12), "conversion steps");
  ExpectError(chain(40, 2), "nests deeper than 64 levels");
  std::string defs = chain(3, 2);
  defs.insert(defs.size() - 1, R"(,"maxProperties":3)");
  ExpectError(defs, "schema keyword 'maxProperties' at the root is not supported");
  // A grammar past 1 MiB: many long enum strings.
  std::string big = R"({"enum":[)";
  for (int i = 0; i < 2000; ++i) big += fmt::format("{}\"{}{}\"", i > 0 ? "," : "", std::string(600, 'x'), i);
  big += "]}";
  ExpectError(big, "grammar passes 1048576 bytes");
  // Too many properties for the matcher's stack cap.
  std::string wide = R"({"properties":{)";
  for (int i = 0; i < 300; ++i) wide += fmt::format("{}\"p{}\":{{}}", i > 0 ? "," : "", i);
  wide += "}}";
  ExpectError(wide, "lists 300 properties; trit supports up to 256");
}

// Long property names with extra keys allowed: the keys' trie has thousands
// of nodes, each a rule named from one hint. (Naming them probed suffixes
// from 2 each time, O(n^2): a 1.2 KiB fuzz input took 15 s under the
// sanitizers.) The names must stay unique: the grammar parses.
TEST(JsonSchemaTest, ManyLongKeysConvertWithUniqueRuleNames) {
  std::string schema = R"({"type":"object","additionalProperties":true,"properties":{)";
  for (int i = 0; i < 50; ++i) {
    schema += fmt::format(R"({}"{}{}":{{"type":"integer"}})", i > 0 ? "," : "", i, std::string(100, 'k'));
  }
  schema += "}}";
  Expected<std::string> gbnf = grammar::JsonSchemaToGbnf(schema);
  ASSERT_TRUE(gbnf.ok()) << gbnf.status().message();
  EXPECT_NE(gbnf->find("-key-5000 ::="), std::string::npos);  // thousands of key rules
  Expected<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(*gbnf);
  ASSERT_TRUE(g.ok()) << g.status().message();
}

// A realistic schema of the kind OpenAI clients send (pydantic, strict mode).
TEST(JsonSchemaTest, StrictModeSchemaFromAClient) {
  const char* schema = R"({
    "$defs": {
      "Step": {"type": "object", "title": "Step",
               "properties": {"explanation": {"type": "string", "title": "Explanation"},
                              "output": {"type": "string", "title": "Output"}},
               "required": ["explanation", "output"], "additionalProperties": false}},
    "type": "object", "title": "MathReasoning",
    "properties": {"steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                   "final_answer": {"type": "string"},
                   "confidence": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
    "required": ["steps", "final_answer", "confidence"], "additionalProperties": false})";
  ExpectLanguage(schema,
                 {R"({"steps":[{"explanation":"e","output":"o"}],"final_answer":"42","confidence":null})",
                  R"({"steps":[],"final_answer":"","confidence":0.75})"},
                 {R"({"steps":[{"explanation":"e"}],"final_answer":"42","confidence":null})",
                  R"({"steps":[],"final_answer":"42"})", R"({"steps":[],"final_answer":"42","confidence":"high"})"});
}

}  // namespace
}  // namespace trit::grammar
