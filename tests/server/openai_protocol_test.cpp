#include "server/openai_protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "grammar/matcher.h"

namespace trit::server {
namespace {

using nlohmann::json;

std::optional<ApiError> Chat(const std::string& body, CompletionRequest* r) {
  return ParseCompletionRequest(body, Endpoint::kChatCompletions, r);
}

TEST(OpenAiProtocolTest, ParsesAChatRequest) {
  CompletionRequest r;
  auto e = Chat(R"({"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]}],
                  "temperature":0.5,"top_p":0.9,"max_completion_tokens":7,"stop":"x","seed":42,"stream":true,
                  "stream_options":{"include_usage":true},"logprobs":true,"top_logprobs":3,
                  "presence_penalty":0.5,"frequency_penalty":-0.5})",
                &r);
  ASSERT_FALSE(e.has_value()) << e->message;
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[1].content, "hi");
  EXPECT_FLOAT_EQ(r.params.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(r.params.sampling.top_p, 0.9f);
  EXPECT_EQ(r.params.max_tokens, 7);
  EXPECT_EQ(r.params.stop, std::vector<std::string>{"x"});
  EXPECT_EQ(r.params.sampling.seed, 42u);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.params.top_logprobs, 3);
  EXPECT_FLOAT_EQ(r.params.sampling.presence_penalty, 0.5f);
  EXPECT_FLOAT_EQ(r.params.sampling.frequency_penalty, -0.5f);
}

TEST(OpenAiProtocolTest, ErrorsNameTheParameter) {
  struct Case {
    std::string body;
    std::string param;
  };
  const Case cases[] = {
      {R"({"messages":"hi"})", "messages"},
      {R"({"messages":[]})", "messages"},
      {R"({"messages":[{"role":"wizard","content":"x"}]})", "messages[0].role"},
      {R"({"messages":[{"role":"user","content":"x"}],"temperature":"hot"})", "temperature"},
      {R"({"messages":[{"role":"user","content":"x"}],"temperature":3})", "temperature"},
      {R"({"messages":[{"role":"user","content":"x"}],"max_tokens":0})", "max_tokens"},
      {R"({"messages":[{"role":"user","content":"x"}],"n":17})", "n"},
      {R"({"messages":[{"role":"user","content":"x"}],"n":0})", "n"},
      {R"({"messages":[{"role":"user","content":"x"}],"stop":[1]})", "stop"},
      {R"({"messages":[{"role":"user","content":"x"}],"model":5})", "model"},
      {R"({"messages":[{"role":"user","content":"x"}],"top_logprobs":2})", "top_logprobs"},
  };
  for (const Case& c : cases) {
    CompletionRequest r;
    auto e = Chat(c.body, &r);
    ASSERT_TRUE(e.has_value()) << c.body;
    EXPECT_EQ(e->status, 400);
    EXPECT_EQ(e->param, c.param) << c.body;
    const json j = json::parse(ErrorBody(*e));
    EXPECT_TRUE(j["error"].contains("message") && j["error"].contains("type") && j["error"].contains("code"));
  }
}

constexpr const char* kMessages = R"("messages":[{"role":"user","content":"x"}])";

std::optional<ApiError> ChatWith(const std::string& fields, CompletionRequest* r) {
  return Chat(std::string("{") + kMessages + "," + fields + "}", r);
}

TEST(OpenAiProtocolTest, FieldsThatWouldChangeTheAnswerAreRefusedByName) {
  struct Case {
    std::string fields;
    std::string param;
    std::string code;
  };
  const Case cases[] = {
      {R"("functions":[{"name":"f"}])", "functions", "unsupported_parameter"},
      {R"("function_call":"auto")", "function_call", "unsupported_parameter"},
      {R"("reasoning_effort":"high")", "reasoning_effort", "unsupported_parameter"},
      {R"("modalities":["text","audio"])", "modalities", "unsupported_parameter"},
      {R"("mirostat":2)", "mirostat", "unknown_parameter"},
      {R"("echo":true)", "echo", "unknown_parameter"},  // a completions parameter
  };
  for (const Case& c : cases) {
    CompletionRequest r;
    auto e = ChatWith(c.fields, &r);
    ASSERT_TRUE(e.has_value()) << c.fields;
    EXPECT_EQ(e->status, 400);
    EXPECT_EQ(e->param, c.param) << c.fields;
    EXPECT_EQ(e->code, c.code) << c.fields;
    EXPECT_NE(e->message.find(c.param), std::string::npos) << e->message;
  }
  // What says "none" and what OpenAI calls advisory is accepted.
  for (const char* fields : {R"("tools":[])", R"("tool_choice":"none")", R"("modalities":["text"])",
                             R"("user":"u","metadata":{"a":"b"},"store":false,"service_tier":"auto")",
                             R"("parallel_tool_calls":true,"prediction":{"type":"content","content":"x"})"}) {
    CompletionRequest r;
    auto e = ChatWith(fields, &r);
    EXPECT_FALSE(e.has_value()) << fields << ": " << e->message;
  }
  CompletionRequest r;
  auto e = ParseCompletionRequest(R"({"prompt":"p","suffix":"s"})", Endpoint::kCompletions, &r);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->param, "suffix");
  e = ParseCompletionRequest(R"({"prompt":"p","response_format":{"type":"json_object"}})", Endpoint::kCompletions, &r);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->param, "response_format");
}

TEST(OpenAiProtocolTest, ToolsToolChoiceAndToolMessages) {
  CompletionRequest r;
  auto e = ChatWith(R"("tools":[{"type":"function","function":{"name":"get_weather","description":"d",
                      "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},
                      {"type":"function","function":{"name":"add"}}],
                      "tool_choice":{"type":"function","function":{"name":"add"}},"parallel_tool_calls":false)",
                    &r);
  ASSERT_FALSE(e.has_value()) << e->message;
  ASSERT_EQ(r.tools.functions.size(), 2u);
  EXPECT_EQ(r.tools.functions[0].name, "get_weather");
  // Keys keep the request's order (templates print them): "type" before "properties".
  EXPECT_EQ(r.tools.functions[0].parameters, R"({"type":"object","properties":{"city":{"type":"string"}}})");
  EXPECT_EQ(r.tools.functions[1].parameters, "");
  EXPECT_NE(r.tools.tools_json.find(R"("name":"get_weather","description":"d")"), std::string::npos) << r.tools.tools_json;
  EXPECT_EQ(r.tools.choice, ToolChoice::kFunction);
  EXPECT_EQ(r.tools.function, "add");
  EXPECT_FALSE(r.tools.parallel);

  CompletionRequest plain;
  ASSERT_FALSE(ChatWith(R"("tools":[{"type":"function","function":{"name":"f"}}])", &plain).has_value());
  EXPECT_EQ(plain.tools.choice, ToolChoice::kAuto);
  CompletionRequest none;
  ASSERT_FALSE(ChatWith(R"("tools":[],"tool_choice":"auto")", &none).has_value());
  EXPECT_EQ(none.tools.choice, ToolChoice::kNone);
  EXPECT_TRUE(none.tools.tools_json.empty());

  const std::string f = R"("tools":[{"type":"function","function":{"name":"f"}}])";
  for (const auto& [fields, param] : std::vector<std::pair<std::string, std::string>>{
           {R"("tools":{"type":"function"})", "tools"},
           {R"("tools":[{"type":"retrieval"}])", "tools"},
           {R"("tools":[{"type":"function","function":{"name":"a b"}}])", "tools"},
           {R"("tools":[{"type":"function","function":{"name":"f"}},{"type":"function","function":{"name":"f"}}])", "tools"},
           {R"("tools":[{"type":"function","function":{"name":"f","parameters":[1]}}])", "tools"},
           {f + R"(,"tool_choice":{"type":"function","function":{"name":"g"}})", "tool_choice"},
           {f + R"(,"tool_choice":"always")", "tool_choice"},
           {R"("tool_choice":"required")", "tool_choice"},
           {f + R"(,"tool_choice":"required","response_format":{"type":"json_object"})", "tool_choice"},
           {f + R"(,"parallel_tool_calls":"yes")", "parallel_tool_calls"}}) {
    CompletionRequest bad;
    auto err = ChatWith(fields, &bad);
    ASSERT_TRUE(err.has_value()) << fields;
    EXPECT_EQ(err->param, param) << fields << ": " << err->message;
  }

  CompletionRequest turns;
  ASSERT_FALSE(ParseCompletionRequest(R"({"messages":[{"role":"user","content":"Weather?"},
      {"role":"assistant","content":null,"tool_calls":[{"id":"abcdefghi","type":"function",
        "function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},
      {"role":"tool","tool_call_id":"abcdefghi","name":"get_weather","content":"12 C"}]})",
                                      Endpoint::kChatCompletions, &turns)
                   .has_value());
  ASSERT_EQ(turns.messages.size(), 3u);
  EXPECT_TRUE(turns.messages[1].content_is_null);
  ASSERT_EQ(turns.messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(turns.messages[1].tool_calls[0].id, "abcdefghi");
  EXPECT_EQ(turns.messages[1].tool_calls[0].name, "get_weather");
  EXPECT_EQ(turns.messages[1].tool_calls[0].arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(turns.messages[2].tool_call_id, "abcdefghi");
  EXPECT_EQ(turns.messages[2].name, "get_weather");
  EXPECT_FALSE(turns.messages[2].content_is_null);
  CompletionRequest bad_call;
  auto err = ParseCompletionRequest(R"({"messages":[{"role":"assistant","tool_calls":[{"type":"function"}]}]})",
                                    Endpoint::kChatCompletions, &bad_call);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->param, "messages[0].tool_calls[0]");
}

// chat_template_kwargs (vLLM's and llama-server's): an object kept as text
// in the body's key order; anything else, or a name the renderer sets, is
// refused naming the field; it is a chat field only.
TEST(OpenAiProtocolTest, ChatTemplateKwargs) {
  CompletionRequest r;
  auto e = ChatWith(R"("chat_template_kwargs":{"enable_thinking":false,"a":{"z":1,"b":[null]}})", &r);
  ASSERT_FALSE(e.has_value()) << e->message;
  EXPECT_EQ(r.chat_template_kwargs, R"({"enable_thinking":false,"a":{"z":1,"b":[null]}})");

  CompletionRequest none;
  ASSERT_FALSE(ChatWith(R"("chat_template_kwargs":null)", &none).has_value());
  EXPECT_EQ(none.chat_template_kwargs, "");

  for (const char* value : {"[]", "\"enable_thinking\"", "true", "1"}) {
    CompletionRequest bad;
    auto err = ChatWith(std::string(R"("chat_template_kwargs":)") + value, &bad);
    ASSERT_TRUE(err.has_value()) << value;
    EXPECT_EQ(err->status, 400);
    EXPECT_EQ(err->param, "chat_template_kwargs");
    EXPECT_NE(err->message.find("must be an object"), std::string::npos) << err->message;
  }
  CompletionRequest reserved;
  auto err = ChatWith(R"("chat_template_kwargs":{"enable_thinking":true,"add_generation_prompt":false})", &reserved);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->param, "chat_template_kwargs");
  EXPECT_NE(err->message.find("key 'add_generation_prompt'"), std::string::npos) << err->message;

  CompletionRequest completion;
  err = ParseCompletionRequest(R"({"prompt":"x","chat_template_kwargs":{}})", Endpoint::kCompletions, &completion);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->param, "chat_template_kwargs");
}

TEST(OpenAiProtocolTest, ToolCallsInAReplyAndItsStream) {
  const ResponseInfo info{"chatcmpl-1", 100, "m"};
  Choice c;
  c.tool_calls.push_back({"abcdefghi", {"add", R"({"a":1})"}});
  c.finish = FinishReason::kToolCalls;
  const nlohmann::json body = nlohmann::json::parse(CompletionBody(Endpoint::kChatCompletions, info, {&c, 1}, {}));
  const nlohmann::json& message = body["choices"][0]["message"];
  EXPECT_TRUE(message["content"].is_null());
  EXPECT_EQ(message["tool_calls"][0]["id"], "abcdefghi");
  EXPECT_EQ(message["tool_calls"][0]["type"], "function");
  EXPECT_EQ(message["tool_calls"][0]["function"]["arguments"], R"({"a":1})");
  EXPECT_FALSE(message["tool_calls"][0].contains("index"));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  const nlohmann::json chunk = nlohmann::json::parse(ToolCallsChunkBody(info, 0, c.tool_calls, false));
  EXPECT_EQ(chunk["choices"][0]["delta"]["tool_calls"][0]["index"], 0);
  EXPECT_EQ(chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["name"], "add");
}

TEST(OpenAiProtocolTest, LogitBiasMinPRepeatPenaltyAndEcho) {
  CompletionRequest r;
  auto e = ChatWith(R"("logit_bias":{"5":-100,"17":2.5},"min_p":0.1,"repeat_penalty":1.1)", &r);
  ASSERT_FALSE(e.has_value()) << e->message;
  const std::vector<std::pair<int32_t, float>> bias{{5, -100.0f}, {17, 2.5f}};
  EXPECT_EQ(r.params.logit_bias, bias);
  EXPECT_FLOAT_EQ(r.params.sampling.min_p, 0.1f);
  EXPECT_FLOAT_EQ(r.params.sampling.repeat_penalty, 1.1f);
  for (const char* fields : {R"("logit_bias":{"a":1})", R"("logit_bias":{"-1":1})", R"("logit_bias":{"3":101})",
                             R"("logit_bias":{"3":"1"})", R"("logit_bias":[1])", R"("logit_bias":{"99999999999":1})"}) {
    CompletionRequest bad;
    auto err = ChatWith(fields, &bad);
    ASSERT_TRUE(err.has_value()) << fields;
    EXPECT_EQ(err->param, "logit_bias");
  }
  CompletionRequest c;
  ASSERT_FALSE(ParseCompletionRequest(R"({"prompt":"p","echo":true,"best_of":1})", Endpoint::kCompletions, &c));
  EXPECT_TRUE(c.echo);
  CompletionRequest d;
  EXPECT_EQ(ParseCompletionRequest(R"({"prompt":"p","echo":true,"logprobs":1})", Endpoint::kCompletions, &d)->param,
            "echo");
  EXPECT_EQ(ParseCompletionRequest(R"({"prompt":"p","best_of":2})", Endpoint::kCompletions, &d)->param, "best_of");
}

TEST(OpenAiProtocolTest, GrammarsAndResponseFormatsCompileOrNameTheProblem) {
  CompletionRequest g;
  ASSERT_FALSE(ChatWith(R"("grammar":"root ::= \"yes\" | \"no\"")", &g).has_value());
  EXPECT_EQ(g.constraint, Constraint::kGbnf);
  ASSERT_NE(g.params.grammar, nullptr);
  EXPECT_TRUE(grammar::Matches(g.params.grammar, "yes"));
  EXPECT_FALSE(grammar::Matches(g.params.grammar, "maybe"));

  CompletionRequest o;
  ASSERT_FALSE(ChatWith(R"("response_format":{"type":"json_object"})", &o).has_value());
  EXPECT_EQ(o.constraint, Constraint::kJsonObject);
  EXPECT_TRUE(grammar::Matches(o.params.grammar, R"({"a":[1,true,null]})"));
  EXPECT_FALSE(grammar::Matches(o.params.grammar, "[1]"));

  CompletionRequest s;
  ASSERT_FALSE(ChatWith(R"("response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,
      "schema":{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"],"additionalProperties":false}}})",
                        &s).has_value());
  EXPECT_EQ(s.constraint, Constraint::kJsonSchema);
  EXPECT_TRUE(grammar::Matches(s.params.grammar, R"({"age":42})"));
  EXPECT_FALSE(grammar::Matches(s.params.grammar, R"({"age":"42"})"));

  CompletionRequest text;
  ASSERT_FALSE(ChatWith(R"("response_format":{"type":"text"})", &text).has_value());
  EXPECT_EQ(text.params.grammar, nullptr);

  struct Case {
    std::string fields;
    std::string param;
    std::string says;  // part of the message
  };
  const Case cases[] = {
      {R"("grammar":"root ::= undefined-rule")", "grammar", "undefined-rule"},
      {R"("grammar":5)", "grammar", "string"},
      {R"("response_format":{"type":"yaml"})", "response_format", "yaml"},
      {R"("response_format":{"type":"json_schema"})", "response_format", "json_schema"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"integer","multipleOf":3}}})",
       "response_format", "multipleOf"},
      {R"("grammar":"root ::= \"a\"","response_format":{"type":"json_object"})", "response_format", "not both"},
  };
  for (const Case& c : cases) {
    CompletionRequest r;
    auto e = ChatWith(c.fields, &r);
    ASSERT_TRUE(e.has_value()) << c.fields;
    EXPECT_EQ(e->param, c.param) << c.fields;
    EXPECT_NE(e->message.find(c.says), std::string::npos) << e->message;
  }
}

TEST(OpenAiProtocolTest, MalformedAndDeeplyNestedBodiesAreRefused) {
  CompletionRequest r;
  EXPECT_EQ(Chat("{\"messages\": [", &r)->code, "invalid_json");
  EXPECT_TRUE(Chat("[1,2]", &r).has_value());
  EXPECT_TRUE(Chat(std::string(100000, '[') + std::string(100000, ']'), &r).has_value());
  EXPECT_TRUE(CheckJsonObject(std::string(100000, '[')).has_value());
  EXPECT_FALSE(CheckJsonObject(R"({"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["})").has_value());
}

TEST(OpenAiProtocolTest, CompletionPromptForms) {
  CompletionRequest r;
  ASSERT_FALSE(ParseCompletionRequest(R"({"prompt":"abc","logprobs":2})", Endpoint::kCompletions, &r).has_value());
  EXPECT_EQ(r.prompt, "abc");
  EXPECT_EQ(r.params.top_logprobs, 2);
  CompletionRequest ids;
  ASSERT_FALSE(ParseCompletionRequest(R"({"prompt":[1,5,9]})", Endpoint::kCompletions, &ids).has_value());
  EXPECT_EQ(*ids.prompt_ids, (std::vector<int32_t>{1, 5, 9}));
  CompletionRequest bad;
  EXPECT_EQ(ParseCompletionRequest(R"({"prompt":["a","b"]})", Endpoint::kCompletions, &bad)->param, "prompt");
  EXPECT_EQ(ParseCompletionRequest(R"({"prompt":[-1]})", Endpoint::kCompletions, &bad)->param, "prompt");
}

TEST(OpenAiProtocolTest, InvalidUtf8InTokensIsReplacedNotThrown) {
  TokenLogprob t;
  t.token = "\xe2\x82";  // half a character, as a byte token can be
  t.logprob = -1.0f;
  std::vector<TokenLogprob> lp = {t};
  const std::string body =
      ChunkBody(Endpoint::kChatCompletions, {"id", 1, "m"}, 0, "\xff", &lp, FinishReason::kNone, true, false);
  EXPECT_TRUE(json::accept(body));
}

}  // namespace
}  // namespace trit::server
