#include "server/openai_protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

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
      {R"({"messages":[{"role":"user","content":"x"}],"n":2})", "n"},
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
      ChunkBody(Endpoint::kChatCompletions, {"id", 1, "m"}, "\xff", &lp, FinishReason::kNone, true, false);
  EXPECT_TRUE(json::accept(body));
}

}  // namespace
}  // namespace trit::server
