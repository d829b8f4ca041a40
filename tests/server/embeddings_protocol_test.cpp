// POST /v1/embeddings bodies: every input form OpenAI accepts, the errors
// naming the parameter, base64 (RFC 4648's test vectors) and the response.
#include "server/embeddings_protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

namespace trit::server {
namespace {

EmbeddingsRequest Parse(std::string_view body) {
  EmbeddingsRequest r;
  std::optional<ApiError> e = ParseEmbeddingsRequest(body, &r);
  EXPECT_FALSE(e.has_value()) << body << ": " << (e ? e->message : "");
  return r;
}

ApiError Refused(std::string_view body) {
  EmbeddingsRequest r;
  std::optional<ApiError> e = ParseEmbeddingsRequest(body, &r);
  EXPECT_TRUE(e.has_value()) << body;
  return e.value_or(ApiError{});
}

TEST(EmbeddingsProtocolTest, EveryInputForm) {
  EmbeddingsRequest r = Parse(R"({"model": "m", "input": "hello"})");
  EXPECT_EQ(r.model, "m");
  EXPECT_FALSE(r.token_input);
  EXPECT_EQ(r.texts, std::vector<std::string>{"hello"});
  EXPECT_TRUE(r.normalize);
  EXPECT_EQ(r.encoding, EmbeddingEncoding::kFloat);

  r = Parse(R"({"input": ["a", "", "c"], "encoding_format": "base64", "dimensions": 64, "user": "u"})");
  EXPECT_EQ(r.texts, (std::vector<std::string>{"a", "", "c"}));
  EXPECT_EQ(r.encoding, EmbeddingEncoding::kBase64);
  EXPECT_EQ(r.dimensions, 64);
  EXPECT_EQ(r.size(), 3u);

  r = Parse(R"({"input": [101, 7592, 102], "normalize": false})");
  ASSERT_TRUE(r.token_input);
  EXPECT_EQ(r.tokens, (std::vector<std::vector<int32_t>>{{101, 7592, 102}}));
  EXPECT_FALSE(r.normalize);

  r = Parse(R"({"input": [[101, 102], [101, 7, 102]]})");
  ASSERT_TRUE(r.token_input);
  EXPECT_EQ(r.tokens, (std::vector<std::vector<int32_t>>{{101, 102}, {101, 7, 102}}));
}

TEST(EmbeddingsProtocolTest, ErrorsNameTheParameter) {
  struct Case {
    const char* body;
    const char* param;
    const char* message;
  };
  const Case cases[] = {
      {R"({"model": "m"})", "input", "'input' is required"},
      {R"({"input": 5.5})", "input", "'input' must be a string, an array of strings"},
      {R"({"input": []})", "input", "'input' is an empty array"},
      {R"({"input": ["a", 2]})", "input", "'input'[1] is number, but 'input'[0] is string"},
      {R"({"input": [1, -2]})", "input", "'input'[1] is -2, not a token id"},
      {R"({"input": [[1], []]})", "input", "'input'[1] is an empty token array"},
      {R"({"input": [[1], [3000000000]]})", "input", "'input'[1][0] is 3000000000, not a token id"},
      {R"({"input": "a", "encoding_format": "hex"})", "encoding_format", "expected \"float\" or \"base64\""},
      {R"({"input": "a", "dimensions": 0})", "dimensions", "expected a positive integer"},
      {R"({"input": "a", "dimensions": "64"})", "dimensions", "expected a positive integer"},
      {R"({"input": "a", "normalize": 1})", "normalize", "'normalize' must be a boolean"},
      {R"({"input": "a", "model": 3})", "model", "'model' must be a string"},
      {R"({"input": "a", "temperature": 0})", "temperature", "unrecognized request argument 'temperature'"},
      {R"(["input"])", "", "the request body must be a JSON object"},
      {R"({"input": )", "", "not valid JSON"},
  };
  for (const Case& c : cases) {
    const ApiError e = Refused(c.body);
    EXPECT_EQ(e.status, 400) << c.body;
    EXPECT_EQ(e.param, c.param) << c.body;
    EXPECT_NE(e.message.find(c.message), std::string::npos) << c.body << ": " << e.message;
  }
  std::string many = R"({"input": [)";
  for (size_t i = 0; i <= kMaxEmbeddingInputs; ++i) many += i == 0 ? "\"x\"" : ",\"x\"";
  EXPECT_NE(Refused(many + "]}").message.find("'input' has 2049 items; at most 2048"), std::string::npos);
}

TEST(EmbeddingsProtocolTest, Base64IsRfc4648) {
  auto b64 = [](std::string_view s) { return Base64({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); };
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg==");
  EXPECT_EQ(b64("fo"), "Zm8=");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg==");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
  const uint8_t high[] = {0xfb, 0xff, 0xbf};
  EXPECT_EQ(Base64(high), "+/+/");
}

TEST(EmbeddingsProtocolTest, ResponseBodies) {
  const std::vector<float> v = {0.0123f, -1.0f, 0.5f, 2.0f};
  nlohmann::json j = nlohmann::json::parse(EmbeddingsBody("minilm", v, 2, EmbeddingEncoding::kFloat, 7));
  EXPECT_EQ(j["object"], "list");
  EXPECT_EQ(j["model"], "minilm");
  EXPECT_EQ(j["usage"], (nlohmann::json{{"prompt_tokens", 7}, {"total_tokens", 7}}));
  ASSERT_EQ(j["data"].size(), 2u);
  EXPECT_EQ(j["data"][1]["index"], 1);
  EXPECT_EQ(j["data"][1]["object"], "embedding");
  EXPECT_EQ(j["data"][0]["embedding"].dump(), "[0.0123,-1.0]");  // shortest float text
  EXPECT_EQ(j["data"][0]["embedding"][0].get<float>(), 0.0123f);

  j = nlohmann::json::parse(EmbeddingsBody("m", v, 2, EmbeddingEncoding::kBase64, 7));
  // 0.5f = 00 00 00 3f, 2.0f = 00 00 00 40 (little-endian)
  EXPECT_EQ(j["data"][1]["embedding"], "AAAAPwAAAEA=");
}

}  // namespace
}  // namespace trit::server
