// Tests of src/chat/chat_template.*: the public API on real templates
// (tests/data/chat_templates), error statuses and positions.
#include "chat/chat_template.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace trit::chat {
namespace {

std::string ReadTemplate(const std::string& name) {
  std::ifstream in(std::string(TRIT_SOURCE_DIR) + "/tests/data/chat_templates/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::vector<ChatMessage> kConversation = {
    {"system", "You are helpful."}, {"user", "Hi"}, {"assistant", " Hello "}, {"user", "Bye"}};

TEST(ChatTemplate, ChatMlWithGenerationPrompt) {
  auto t = ChatTemplate::Compile(ReadTemplate("teknium-OpenHermes-2.5-Mistral-7B-chatml.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.add_generation_prompt = true;
  auto out = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplate, Llama2FoldsTheSystemPromptIntoTheFirstTurn) {
  auto t = ChatTemplate::Compile(ReadTemplate("meta-llama-Llama-2-13b-chat-hf.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.bos_token = "<s>";
  options.eos_token = "</s>";
  auto out = t->Apply(kConversation, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "<s>[INST] <<SYS>>\nYou are helpful.\n<</SYS>>\n\nHi [/INST] Hello </s><s>[INST] Bye [/INST]");
}

TEST(ChatTemplate, Llama32UsesExtraVariables) {
  auto t = ChatTemplate::Compile(ReadTemplate("meta-llama-Llama-3.2-3B-Instruct.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.bos_token = "<|begin_of_text|>";
  options.add_generation_prompt = true;
  options.extra_variables = {{"date_string", "01 Jan 2025"}};
  auto out = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
            "Today Date: 01 Jan 2025\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplate, RaiseExceptionBecomesAStatusWithPosition) {
  auto t = ChatTemplate::Compile(ReadTemplate("google-gemma-2-2b-it.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto out = t->Apply(kConversation, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "chat template 1:74: raise_exception: System role not supported");
}

TEST(ChatTemplate, CompileErrors) {
  auto syntax = ChatTemplate::Compile("{% for m in messages %}\n{{ m.content");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(syntax.status().message(), "chat template 2:1: unterminated '{{': expected '}}'");
  auto brace = ChatTemplate::Compile("{% for m in messages %}\n{{ m.content }");
  ASSERT_FALSE(brace.ok());
  EXPECT_EQ(brace.status().message(), "chat template 2:14: unexpected '}'");

  auto filter = ChatTemplate::Compile("{% if false %}{{ x | frobnicate }}{% endif %}");
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(filter.status().message(), "chat template 1:22: unknown filter 'frobnicate'");

  auto include = ChatTemplate::Compile("{% include 'other.jinja' %}");
  ASSERT_FALSE(include.ok());
  EXPECT_EQ(include.status().code(), ErrorCode::kUnsupported);
}

TEST(ChatTemplate, OutputLimitIsAnError) {
  auto t = ChatTemplate::Compile("{% for i in range(1000) %}{{ messages[0].content }}{% endfor %}");
  ASSERT_TRUE(t.ok());
  ApplyOptions options;
  options.max_output_bytes = 100;
  auto out = t->Apply({{"user", "0123456789"}}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("output limit exceeded"), std::string::npos);
}

// What a template sees of the tool fields: keys present only when set,
// content None for "content": null, tools and documents None by default.
TEST(ChatTemplate, ToolFieldsAsTemplatesSeeThem) {
  auto t = ChatTemplate::Compile(
      "{% for m in messages %}{{ m.role }}|{{ m.content is none }}|{{ 'tool_calls' in m }}|"
      "{{ m.tool_call_id is defined }}|{{ m.name is defined }}"
      "{% for c in m.tool_calls %}|{{ c.id }} {{ c.type }} {{ c.function.name }} {{ c.function.arguments | tojson }}"
      " {{ c.function.arguments.city is defined }}{% endfor %}"
      "{% if m.role == 'tool' %}|{{ m.tool_call_id }} {{ m.name }} {{ m.content }}{% endif %};{% endfor %}"
      "{{ tools is none }}|{{ documents is none }}|{{ tools[0].function.name if tools else '-' }}");
  ASSERT_TRUE(t.ok()) << t.status().message();

  auto plain = t->Apply({{"user", "Hi"}}, {});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(*plain, "user|False|False|False|False;True|True|-");

  ChatMessage call{"assistant", ""};
  call.content_is_null = true;
  call.tool_calls = {{"call_1", "get_weather", R"({"city":"Paris","days":[1,2]})"}, {"", "get_time", "{not json"}};
  ChatMessage result{"tool", "21 C"};
  result.tool_call_id = "call_1";
  result.name = "get_weather";
  ApplyOptions options;
  options.tools_json = R"([{"type": "function", "function": {"name": "get_weather"}}])";
  auto out = t->Apply({{"user", "Weather?"}, call, result}, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "user|False|False|False|False;"
            "assistant|True|True|False|False|call_1 function get_weather {\"city\": \"Paris\", \"days\": [1, 2]} True"
            "| function get_time \"{not json\" False;"
            "tool|False|False|True|True|call_1 get_weather 21 C;"
            "False|True|get_weather");
}

// Qwen2.5's template on a tool call and its result: arguments sent as
// compact JSON text come out as the object json.dumps prints.
TEST(ChatTemplate, Qwen25ToolCallAndResult) {
  auto t = ChatTemplate::Compile(ReadTemplate("Qwen-Qwen2.5-7B-Instruct.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ChatMessage call{"assistant", ""};
  call.content_is_null = true;
  call.tool_calls = {{"call_1", "get_weather", R"({"city":"Paris"})"}};
  ChatMessage result{"tool", R"({"temp": 21})"};
  result.tool_call_id = "call_1";
  ApplyOptions options;
  options.add_generation_prompt = true;
  options.tools_json =
      R"([{"type":"function","function":{"name":"get_weather","description":"Weather.",)"
      R"("parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}])";
  auto out = t->Apply({{"system", "You are helpful."}, {"user", "Weather in Paris?"}, call, result}, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "<|im_start|>system\nYou are helpful.\n\n# Tools\n\nYou may call one or more functions to assist with the "
            "user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            R"({"type": "function", "function": {"name": "get_weather", "description": "Weather.", )"
            R"("parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}})"
            "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
            "<args-json-object>}\n</tool_call><|im_end|>\n"
            "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
            "</tool_call><|im_end|>\n"
            "<|im_start|>user\n<tool_response>\n{\"temp\": 21}\n</tool_response><|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatTemplate, ToolErrorsAreStatuses) {
  auto t = ChatTemplate::Compile("{{ tools | tojson }}{% for m in messages %}{{ m.tool_calls | tojson }}{% endfor %}");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto error_of = [&](const std::vector<ChatMessage>& messages, const std::string& tools_json) {
    ApplyOptions options;
    options.tools_json = tools_json;
    auto out = t->Apply(messages, options);
    EXPECT_FALSE(out.ok()) << *out;
    return out.ok() ? std::string() : out.status().message();
  };
  EXPECT_EQ(error_of({{"user", "Hi"}}, R"({"type": "function"})"),
            "chat template: tools: expected a JSON array of tool definitions");
  EXPECT_EQ(error_of({{"user", "Hi"}}, R"([{"type": "function"}, "x"])"),
            "chat template: tools: element 1 is not a JSON object");
  EXPECT_NE(error_of({{"user", "Hi"}}, "[{").find("chat template: tools: invalid JSON: parse error at line 1"),
            std::string::npos);
  ChatMessage call{"assistant", ""};
  call.tool_calls = {{"call_1", "f", "{\"a\":" + std::string(200, '[') + std::string(200, ']') + "}"}};
  EXPECT_EQ(error_of({{"user", "Hi"}, call}, ""),
            "chat template: messages[1]: tool_calls[0].function.arguments: JSON nested deeper than 128 levels");
}

// chat_template_kwargs: Qwen3.5 writes an empty thought when thinking is off,
// so the model answers at once; without the kwarg it opens a thought.
TEST(ChatTemplate, KwargsTurnQwen35ThinkingOff) {
  auto t = ChatTemplate::Compile(ReadTemplate("Qwen-Qwen3.5-4B.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.add_generation_prompt = true;
  auto thinking = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(thinking.ok()) << thinking.status().message();
  EXPECT_EQ(*thinking, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n");
  options.kwargs_json = R"({"enable_thinking": false})";
  auto quiet = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(quiet.ok()) << quiet.status().message();
  EXPECT_EQ(*quiet, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
  // `enable_thinking is false` holds for the JSON false only, as in jinja2.
  options.kwargs_json = R"({"enable_thinking": 0})";
  auto zero = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(zero.ok()) << zero.status().message();
  EXPECT_EQ(*zero, *thinking);
}

// Gemma 4 thinks only when asked: <|think|> heads the system turn, and the
// model's turn is left open instead of holding an empty thought channel.
TEST(ChatTemplate, KwargsTurnGemma4ThinkingOn) {
  auto t = ChatTemplate::Compile(ReadTemplate("google-gemma-4-31B-it.jinja"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.add_generation_prompt = true;
  options.bos_token = "<bos>";
  auto plain = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->find("<|think|>"), std::string::npos) << *plain;
  EXPECT_TRUE(plain->ends_with("<|turn>model\n<|channel>thought\n<channel|>")) << *plain;
  options.kwargs_json = R"({"enable_thinking": true})";
  auto thinking = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(thinking.ok()) << thinking.status().message();
  EXPECT_TRUE(thinking->starts_with("<bos><|turn>system\n<|think|>\n<turn|>\n")) << *thinking;
  EXPECT_TRUE(thinking->ends_with("<|turn>model\n")) << *thinking;
}

TEST(ChatTemplate, KwargsOfAnyJsonTypeInTheirOrder) {
  auto t = ChatTemplate::Compile("{% for k, v in kw.items() %}{{ k }}={{ v | tojson }};{% endfor %}{{ n + 1 }}");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ApplyOptions options;
  options.kwargs_json = R"({"kw": {"z": [1, "a"], "a": null}, "n": 41})";
  auto out = t->Apply({{"user", "Hi"}}, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "z=[1, \"a\"];a=null;42");
}

TEST(ChatTemplate, KwargsNamingARendererVariableAreRefused) {
  auto t = ChatTemplate::Compile("{{ messages | length }}");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const auto error_of = [&](const std::string& kwargs_json) {
    ApplyOptions options;
    options.kwargs_json = kwargs_json;
    options.extra_variables = {{"date_string", "01 Jan 2025"}};
    auto out = t->Apply({{"user", "Hi"}}, options);
    EXPECT_FALSE(out.ok()) << *out;
    return out.ok() ? std::string() : out.status().message();
  };
  for (const char* name : {"messages", "tools", "add_generation_prompt", "bos_token", "eos_token", "documents",
                           "raise_exception", "date_string"}) {
    EXPECT_EQ(error_of(std::string(R"({"enable_thinking": true, ")") + name + R"(": 1})"),
              std::string("chat template: chat_template_kwargs: key '") + name +
                  "' is set by the renderer (messages, tools, add_generation_prompt, bos_token, ...), not by "
                  "chat_template_kwargs");
  }
  // Without a template, only the names every render sets are known.
  EXPECT_FALSE(CheckTemplateKwargs(R"({"bos_token": ""})").ok());
  EXPECT_TRUE(CheckTemplateKwargs(R"({"date_string": "x", "enable_thinking": false})").ok());
  EXPECT_TRUE(CheckTemplateKwargs("").ok());
}

TEST(ChatTemplate, KwargsMustBeAJsonObject) {
  auto t = ChatTemplate::Compile("x");
  ASSERT_TRUE(t.ok()) << t.status().message();
  for (const char* text : {"[]", "true", "\"enable_thinking\"", "null"}) {
    ApplyOptions options;
    options.kwargs_json = text;
    auto out = t->Apply({{"user", "Hi"}}, options);
    ASSERT_FALSE(out.ok()) << text;
    EXPECT_EQ(out.status().message(), "chat template: chat_template_kwargs: expected a JSON object of template variables");
    EXPECT_EQ(CheckTemplateKwargs(text).message(), "chat_template_kwargs: expected a JSON object of template variables");
  }
  const Status bad = CheckTemplateKwargs("{\"enable_thinking\": fals}");
  EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(bad.message().starts_with("chat_template_kwargs: invalid JSON")) << bad.message();
}

}  // namespace
}  // namespace trit::chat
