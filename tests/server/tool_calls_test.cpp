#include "server/tool_calls.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "grammar/gbnf.h"
#include "grammar/matcher.h"

namespace trit::server {
namespace {

// No schemas: the JSON forms check names only.
const std::vector<ToolSpec> kFunctions{{"get_weather", ""}, {"add", ""}};

std::string ReadTemplate(const std::string& name) {
  std::ifstream in(std::string(TRIT_SOURCE_DIR) + "/tests/data/chat_templates/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ToolCallsTest, TheFormatComesFromTheTemplatesMarkers) {
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja")),
            ToolCallFormat::kHermes);
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("Qwen-Qwen2.5-7B-Instruct.jinja")), ToolCallFormat::kHermes);
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("meta-llama-Llama-3.2-3B-Instruct.jinja")), ToolCallFormat::kLlama3);
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("mistralai-Mistral-Nemo-Instruct-2407.jinja")), ToolCallFormat::kMistral);
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("HuggingFaceH4-zephyr-7b-beta.jinja")), ToolCallFormat::kJson);
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("google-gemma-4-31B-it.jinja")), ToolCallFormat::kGemma4);
  // Qwen3.5 writes <function=...> inside Hermes' <tool_call> marks.
  EXPECT_EQ(DetectToolCallFormat(ReadTemplate("Qwen-Qwen3.5-4B.jinja")), ToolCallFormat::kQwenXml);
}

// As Gemma 4's chat template writes calls back (format_argument, bare keys).
TEST(ToolCallsTest, Gemma4Calls) {
  const ToolReply r = ParseToolReply(
      "Checking.<|tool_call>call:get_weather{city:<|\"|>Paris, FR<|\"|>,days:3,metric:true,"
      "when:{from:<|\"|>mon<|\"|>,hours:[1,2.5]},note:null}<tool_call|><|tool_call>call:add{a:1,b:-2}<tool_call|>",
      ToolCallFormat::kGemma4, kFunctions);
  EXPECT_EQ(r.content, "Checking.");
  const std::vector<ToolCall> want{
      {"get_weather", R"({"city":"Paris, FR","days":3,"metric":true,"note":null,"when":{"from":"mon","hours":[1,2.5]}})"},
      {"add", R"({"a":1,"b":-2})"}};
  EXPECT_EQ(r.calls, want);
  // Cut off before its closing mark (the turn ended): still a call.
  EXPECT_EQ(ParseToolReply("<|tool_call>call:add{}", ToolCallFormat::kGemma4, kFunctions).calls,
            (std::vector<ToolCall>{{"add", "{}"}}));
  for (const char* bad : {"<|tool_call>call:delete_all{}<tool_call|>",       // not offered
                          "<|tool_call>call:add{a:one}<tool_call|>",          // a bare word is no value
                          "<|tool_call>call:add{a:<|\"|>1}<tool_call|>",       // unclosed string
                          "<|tool_call>call:add{a:1,}<tool_call|>",           // no key after the comma
                          "<|tool_call>call:add{a:1} trailing<tool_call|>"}) {
    const ToolReply b = ParseToolReply(bad, ToolCallFormat::kGemma4, kFunctions);
    EXPECT_TRUE(b.calls.empty()) << bad;
    EXPECT_EQ(b.content, bad);
  }
}

// Qwen3.5's XML calls: one <parameter=...> block per argument, typed by
// the function's schema where it has one, JSON where the text parses.
const std::vector<ToolSpec> kQwenTools{
    {"get_weather", R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},
                        "zip":{"type":["string","null"]},"unit":{"enum":["C","F"]},"metric":{"type":"boolean"}}})"},
    {"add", ""}};

TEST(ToolCallsTest, QwenXmlCall) {
  const ToolReply r = ParseToolReply(
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
      ToolCallFormat::kQwenXml, kQwenTools);
  EXPECT_EQ(r.content, "");
  EXPECT_EQ(r.calls, (std::vector<ToolCall>{{"get_weather", R"({"city":"Paris"})"}}));
  // Cut off before its closing tag (the turn ended): still a call.
  EXPECT_EQ(ParseToolReply("<tool_call>\n<function=add>\n</function>", ToolCallFormat::kQwenXml, kQwenTools).calls,
            (std::vector<ToolCall>{{"add", "{}"}}));
}

TEST(ToolCallsTest, QwenXmlCallsAfterContentTypedByTheSchema) {
  const ToolReply r = ParseToolReply(
      "Let me check.\n\n<tool_call>\n<function=get_weather>\n"
      "<parameter=city>\nNew York\nCity\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
      "<parameter=zip>\n10001\n</parameter>\n<parameter=unit>\nC\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n"
      "</function>\n</tool_call>\n<tool_call>\n<function=add>\n"
      "<parameter=b>\n1.5\n</parameter>\n<parameter=a>\n[1, {\"x\": null}]\n</parameter>\n<parameter=ok>\nfalse\n</parameter>\n"
      "<parameter=word>\nhello\n</parameter>\n<parameter=quoted>\n\"hi\"\n</parameter>\n<parameter=blank>\n\n\n</parameter>\n"
      "</function>\n</tool_call>",
      ToolCallFormat::kQwenXml, kQwenTools);
  EXPECT_EQ(r.content, "Let me check.");
  // String-typed stay text ("10001" too); the rest is JSON where it parses;
  // one newline each side is the template's; arguments keep their order.
  const std::vector<ToolCall> want{
      {"get_weather", R"({"city":"New York\nCity","days":3,"zip":"10001","unit":"C","metric":true})"},
      {"add", R"({"b":1.5,"a":[1,{"x":null}],"ok":false,"word":"hello","quoted":"\"hi\"","blank":"\n"})"}};
  EXPECT_EQ(r.calls, want);
}

// What Qwen3.5's own template writes for an assistant's calls reads back as
// those calls.
TEST(ToolCallsTest, QwenXmlCallsAsTheTemplateWritesThem) {
  auto t = chat::ChatTemplate::Compile(ReadTemplate("Qwen-Qwen3.5-4B.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  chat::ChatMessage call{"assistant", "Checking."};
  call.tool_calls = {{"call_1", "get_weather", R"({"city": "Paris", "days": 3, "zip": "75001"})"},
                     {"call_2", "add", R"({"a": {"x": [1, 2]}, "b": "two\nlines"})"}};
  auto text = t->Apply({{"user", "Weather?"}, call}, {});
  ASSERT_TRUE(text.ok()) << text.status().message();
  const size_t begin = text->find("Checking.");
  const size_t end = text->rfind("<|im_end|>");
  ASSERT_NE(begin, std::string::npos) << *text;
  const ToolReply r = ParseToolReply(std::string_view(*text).substr(begin, end - begin), ToolCallFormat::kQwenXml,
                                     kQwenTools);
  EXPECT_EQ(r.content, "Checking.");
  const std::vector<ToolCall> want{{"get_weather", R"({"city":"Paris","days":3,"zip":"75001"})"},
                                   {"add", R"({"a":{"x":[1,2]},"b":"two\nlines"})"}};
  EXPECT_EQ(r.calls, want) << *text;
}

TEST(ToolCallsTest, MalformedQwenXmlCallsStayContent) {
  for (const char* bad : {
           "<tool_call>\n<function=delete_all>\n</function>\n</tool_call>",                           // not offered
           "<tool_call>\n{\"name\": \"add\", \"arguments\": {}}\n</tool_call>",                          // Hermes' JSON
           "<tool_call>\n<function=add>\n<parameter=a>\n1\n</function>\n</tool_call>",                 // unclosed parameter
           "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n</tool_call>",                // no </function>
           "<tool_call>\n<function=add>\n</function>\nand more\n</tool_call>",                        // text after it
           "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n"
           "</function>\n</tool_call>",                                                             // a repeated name
           "<tool_call>\n<function=add>\nstray\n</function>\n</tool_call>"}) {                         // not a parameter
    const ToolReply r = ParseToolReply(bad, ToolCallFormat::kQwenXml, kQwenTools);
    EXPECT_TRUE(r.calls.empty()) << bad;
    EXPECT_EQ(r.content, bad);
  }
  // A bad call beside a good one: the good one counts, the bad stays text.
  const ToolReply mixed = ParseToolReply(
      "<tool_call>\n<function=nope>\n</function>\n</tool_call>\n<tool_call>\n<function=add>\n</function>\n</tool_call>",
      ToolCallFormat::kQwenXml, kQwenTools);
  EXPECT_EQ(mixed.content, "<tool_call>\n<function=nope>\n</function>\n</tool_call>");
  EXPECT_EQ(mixed.calls, (std::vector<ToolCall>{{"add", "{}"}}));
}

TEST(ToolCallsTest, HermesCallsAmidText) {
  const ToolReply r = ParseToolReply(
      "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
      "<tool_call>\n{\"arguments\": \"{\\\"a\\\": 1, \\\"b\\\": 2}\", \"name\": \"add\"}\n</tool_call>",
      ToolCallFormat::kHermes, kFunctions);
  EXPECT_EQ(r.content, "Let me look.");
  const std::vector<ToolCall> want{{"get_weather", R"({"city":"Paris"})"}, {"add", R"({"a":1,"b":2})"}};
  EXPECT_EQ(r.calls, want);
  // Cut off before its closing tag (the turn ended): still a call.
  EXPECT_EQ(ParseToolReply("<tool_call>{\"name\":\"add\",\"arguments\":{}}", ToolCallFormat::kHermes, kFunctions).calls,
            (std::vector<ToolCall>{{"add", "{}"}}));
}

TEST(ToolCallsTest, WhatIsNotAValidCallStaysContent) {
  for (const char* text : {"<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>",  // not offered
                           "<tool_call>{\"name\": \"add\", \"arguments\": [1, 2]}</tool_call>",      // not an object
                           "<tool_call>{\"name\": \"add\", \"arguments\": {</tool_call>",           // not JSON
                           "<tool_call>\"add\"</tool_call>"}) {
    const ToolReply r = ParseToolReply(text, ToolCallFormat::kHermes, kFunctions);
    EXPECT_TRUE(r.calls.empty()) << text;
    EXPECT_EQ(r.content, text);
  }
  const ToolReply plain = ParseToolReply("  The answer is 4.\n", ToolCallFormat::kJson, kFunctions);
  EXPECT_TRUE(plain.calls.empty());
  EXPECT_EQ(plain.content, "The answer is 4.");
}

TEST(ToolCallsTest, Llama3Calls) {
  EXPECT_EQ(ParseToolReply("<|python_tag|>{\"name\": \"add\", \"parameters\": {\"a\": 1}}", ToolCallFormat::kLlama3,
                           kFunctions)
                .calls,
            (std::vector<ToolCall>{{"add", R"({"a":1})"}}));
  EXPECT_EQ(ParseToolReply("{\"name\": \"add\", \"parameters\": {\"a\": {\"x\": 1}}}; {\"name\": \"get_weather\", "
                           "\"parameters\": {}}",
                           ToolCallFormat::kLlama3, kFunctions)
                .calls,
            (std::vector<ToolCall>{{"add", R"({"a":{"x":1}})"}, {"get_weather", "{}"}}));
  const ToolReply text = ParseToolReply("It is {sunny} today.", ToolCallFormat::kLlama3, kFunctions);
  EXPECT_TRUE(text.calls.empty());
  EXPECT_EQ(text.content, "It is {sunny} today.");
}

TEST(ToolCallsTest, MistralCalls) {
  const ToolReply r = ParseToolReply(
      "[TOOL_CALLS][{\"name\": \"add\", \"arguments\": {\"a\": 1}, \"id\": \"abcdefghi\"}, "
      "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}]",
      ToolCallFormat::kMistral, kFunctions);
  EXPECT_EQ(r.content, "");
  EXPECT_EQ(r.calls, (std::vector<ToolCall>{{"add", R"({"a":1})"}, {"get_weather", R"({"city":"Oslo"})"}}));
  // One bad element: the whole reply is text.
  EXPECT_TRUE(ParseToolReply("[TOOL_CALLS][{\"name\": \"add\"}, {\"name\": \"nope\"}]", ToolCallFormat::kMistral,
                             kFunctions)
                  .calls.empty());
}

TEST(ToolCallsTest, JsonCallsFencedOrInOpenAIsShape) {
  EXPECT_EQ(ParseToolReply("```json\n{\"name\": \"add\", \"arguments\": {\"a\": 2}}\n```", ToolCallFormat::kJson,
                           kFunctions)
                .calls,
            (std::vector<ToolCall>{{"add", R"({"a":2})"}}));
  EXPECT_EQ(ParseToolReply("{\"tool_calls\": [{\"type\": \"function\", \"function\": {\"name\": \"add\", "
                           "\"arguments\": \"{}\"}}]}",
                           ToolCallFormat::kJson, kFunctions)
                .calls,
            (std::vector<ToolCall>{{"add", "{}"}}));
}

// Every format's forced-call grammar accepts the calls it should, refuses
// the others, and what it accepts reads back as those calls.
TEST(ToolCallsTest, ForcedCallGrammarsParseBack) {
  const std::vector<ToolSpec> tools{
      {"get_weather", R"({"type":"object","properties":{"city":{"enum":["Paris","Oslo"]}},"required":["city"],
                          "additionalProperties":false})"},
      {"add", R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},
                  "required":["a","b"],"additionalProperties":false})"}};
  struct Case {
    ToolCallFormat format;
    bool parallel;
    std::string good;
    std::vector<std::string> bad;
    size_t n_calls;
  };
  const std::vector<Case> cases{
      {ToolCallFormat::kHermes, false, "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}\n</tool_call>",
       {"<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Rome\"}}\n</tool_call>",
        "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}",
        "<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":1}}\n</tool_call>"},
       1},
      {ToolCallFormat::kHermes, true,
       "<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}\n</tool_call>\n<tool_call>\n"
       "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}\n</tool_call>",
       {"<tool_call>\n{\"name\":\"mul\",\"arguments\":{}}\n</tool_call>"},
       2},
      {ToolCallFormat::kLlama3, false, "{\"name\":\"add\",\"parameters\":{\"a\":-3,\"b\":0}}",
       {"{\"name\":\"add\",\"arguments\":{\"a\":-3,\"b\":0}}"},
       1},
      {ToolCallFormat::kMistral, true,
       "[TOOL_CALLS][{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}},{\"name\":\"add\",\"arguments\":{\"a\":3,\"b\":4}}]",
       {"[TOOL_CALLS][]"},
       2},
      {ToolCallFormat::kMistral, false, "[TOOL_CALLS][{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}]",
       {"[TOOL_CALLS][{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}},{\"name\":\"add\",\"arguments\":{\"a\":3,\"b\":4}}]"},
       1},
      {ToolCallFormat::kGemma4, true,
       "<|tool_call>call:add{a:1,b:2}<tool_call|><|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>}<tool_call|>",
       {"<|tool_call>call:mul{a:1}<tool_call|>", "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}",
        "<|tool_call>call:add{a:<|\"|>x<|\"|y<|\"|>}<tool_call|>"},
       2},
      {ToolCallFormat::kQwenXml, true,
       "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</parameter>\n</function>\n"
       "</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
       {"<tool_call>\n<function=mul>\n</function>\n</tool_call>",                                  // not offered
        "<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}\n</tool_call>",            // Hermes' JSON
        "<tool_call>\n<function=add>\n<parameter=a>\n</b>\n</parameter>\n</function>\n</tool_call>",  // "</" in a value
        "<tool_call>\n<function=add>\n<parameter=a>1</parameter>\n</function>\n</tool_call>"},     // no newlines
       2},
      {ToolCallFormat::kQwenXml, false, "<tool_call>\n<function=add>\n</function>\n</tool_call>",
       {"<tool_call>\n<function=add>\n</function>\n</tool_call>\n<tool_call>\n<function=add>\n</function>\n"
        "</tool_call>"},
       1},
      {ToolCallFormat::kJson, false, "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}",
       {"{\"arguments\":{\"city\":\"Paris\"},\"name\":\"get_weather\"}", " {\"name\":\"get_weather\"}"},
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(ToolCallFormatName(c.format)) + (c.parallel ? " parallel" : ""));
    Expected<std::string> gbnf = ToolCallGbnf(c.format, tools, c.parallel);
    ASSERT_TRUE(gbnf.ok()) << gbnf.status().message();
    auto grammar = grammar::ParseGbnf(*gbnf);
    ASSERT_TRUE(grammar.ok()) << grammar.status().message() << "\n" << *gbnf;
    EXPECT_TRUE(grammar::Matches(*grammar, c.good)) << c.good;
    for (const std::string& bad : c.bad) EXPECT_FALSE(grammar::Matches(*grammar, bad)) << bad;
    const ToolReply back = ParseToolReply(c.good, c.format, tools);
    EXPECT_EQ(back.calls.size(), c.n_calls);
    EXPECT_EQ(back.content, "");
  }
  const std::vector<ToolSpec> broken{{"f", R"({"type":"object","properties":{"x":{"type":"integer","multipleOf":3}}})"}};
  Expected<std::string> refused = ToolCallGbnf(ToolCallFormat::kJson, broken, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("multipleOf"), std::string::npos) << refused.status().message();
}

TEST(ToolCallsTest, TemplatesWithoutToolsGetThemSpelledOut) {
  EXPECT_TRUE(TemplateSpeaksTools(ReadTemplate("Qwen-Qwen2.5-7B-Instruct.jinja")));
  EXPECT_TRUE(TemplateSpeaksTools(ReadTemplate("mistralai-Mistral-Nemo-Instruct-2407.jinja")));
  EXPECT_FALSE(TemplateSpeaksTools(ReadTemplate("HuggingFaceH4-zephyr-7b-beta.jinja")));
  std::vector<chat::ChatMessage> in{{"system", "Be brief."}, {"user", "Weather in Oslo?"}, {"assistant", ""}, {"tool", "7 C"}};
  in[2].content_is_null = true;
  in[2].tool_calls.push_back({"abcdefghi", "get_weather", R"({"city": "Oslo"})"});
  in[3].tool_call_id = "abcdefghi";
  in[3].name = "get_weather";
  const std::string tools = R"([{"type":"function","function":{"name":"get_weather"}}])";
  const std::vector<chat::ChatMessage> out = SpellOutTools(in, tools);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].role, "system");
  EXPECT_TRUE(out[0].content.starts_with("Be brief.\n\n"));
  EXPECT_NE(out[0].content.find(tools), std::string::npos);
  EXPECT_EQ(out[2].content, R"({"name":"get_weather","arguments":{"city":"Oslo"}})");
  EXPECT_FALSE(out[2].content_is_null);
  EXPECT_TRUE(out[2].tool_calls.empty());
  EXPECT_EQ(out[3].role, "user");
  EXPECT_EQ(out[3].content, "Result of get_weather function call (call abcdefghi): 7 C");
  // No system message: one is added first; no tools: none.
  const std::vector<chat::ChatMessage> added = SpellOutTools({{"user", "Hi"}}, tools);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].role, "system");
  EXPECT_EQ(SpellOutTools({{"user", "Hi"}}, "").size(), 1u);
}

// Whatever a stream sends as it goes is a prefix of what the finished reply's
// content is, at every point of every reply: text with and without calls,
// calls that do not parse, markers cut anywhere, leading and trailing space.
TEST(ToolCallsTest, StreamedContentIsAlwaysAPrefixOfTheFinalContent) {
  const std::vector<std::pair<ToolCallFormat, std::string>> replies{
      {ToolCallFormat::kHermes, "  Let me check. <tool_call>\n{\"name\":\"add\",\"arguments\":{}}\n</tool_call> Done."},
      {ToolCallFormat::kHermes, "No call here, only <tool text and <tool_cal and more.\n"},
      {ToolCallFormat::kHermes, "Bad: <tool_call>{\"name\":\"nope\"}</tool_call>"},
      {ToolCallFormat::kMistral, "Sure. [TOOL_CALLS][{\"name\":\"add\",\"arguments\":{\"a\":1}}]"},
      {ToolCallFormat::kMistral, "[TOOL text that is not one"},
      {ToolCallFormat::kJson, " {\"name\":\"add\",\"arguments\":{}}"},
      {ToolCallFormat::kJson, "```json\n{\"name\":\"add\"}\n```"},
      {ToolCallFormat::kJson, "Plain words {not a call}  "},
      {ToolCallFormat::kJson, "{not a call after all"},
      {ToolCallFormat::kLlama3, "<|python_tag|>{\"name\":\"add\",\"parameters\":{}}"},
      {ToolCallFormat::kLlama3, "<|pyth is not the tag"},
      {ToolCallFormat::kGemma4, "Sure.<|tool_call>call:add{a:1,b:2}<tool_call|>"},
      {ToolCallFormat::kGemma4, "Text with <|tool_ but no call."},
      {ToolCallFormat::kQwenXml,
       "Checking.\n\n<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"},
      {ToolCallFormat::kQwenXml, "Bad: <tool_call>\n<function=nope>\n</function>\n</tool_call> and <tool_ca"},
  };
  for (const auto& [format, text] : replies) {
    const std::string final_content = ParseToolReply(text, format, kFunctions).content;
    std::string previous;
    for (size_t k = 0; k <= text.size(); ++k) {
      const std::string now(StreamableContent(std::string_view(text).substr(0, k), format));
      EXPECT_TRUE(now.starts_with(previous)) << text << " at " << k << ": '" << previous << "' then '" << now << "'";
      EXPECT_TRUE(final_content.starts_with(now)) << text << " at " << k << ": '" << now << "' vs '" << final_content << "'";
      previous = now;
    }
  }
  // Text that cannot be a call streams at once; a call's text never does.
  EXPECT_EQ(StreamableContent("Let me check. <tool_ca", ToolCallFormat::kHermes), "Let me check.");
  EXPECT_EQ(StreamableContent("Plain words", ToolCallFormat::kJson), "Plain words");
  EXPECT_EQ(StreamableContent("  {\"name\"", ToolCallFormat::kJson), "");
  EXPECT_EQ(StreamableContent("<tool_call>{\"name\"", ToolCallFormat::kHermes), "");
}

TEST(ToolCallsTest, IdsAreNineAlphanumericsAndDiffer) {
  std::set<std::string> seen;
  for (uint64_t r : {uint64_t{0}, uint64_t{1}, uint64_t{61}, uint64_t{62}, ~uint64_t{0}, uint64_t{0x9e3779b97f4a7c15}}) {
    const std::string id = ToolCallId(r);
    EXPECT_EQ(id.size(), 9u);
    for (char c : id) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 6u);
}

}  // namespace
}  // namespace trit::server
