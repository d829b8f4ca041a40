// Tokens and the chat template through the C API, against the C++ tokenizer
// and chat template they wrap.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/api_test_util.h"
#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::testing {
namespace {

std::vector<int32_t> Tokenize(const trit_model* m, const std::string& text, uint32_t flags) {
  size_t n = 0;
  const trit_status s = trit_tokenize(m, text.data(), text.size(), flags, nullptr, 0, &n);
  EXPECT_EQ(s, n == 0 ? TRIT_STATUS_OK : TRIT_STATUS_BUFFER_TOO_SMALL) << trit_last_error();
  std::vector<int32_t> ids(n);
  EXPECT_EQ(trit_tokenize(m, text.data(), text.size(), flags, ids.data(), ids.size(), &n), TRIT_STATUS_OK)
      << trit_last_error();
  EXPECT_EQ(n, ids.size());
  return ids;
}

std::string Detokenize(const trit_model* m, const std::vector<int32_t>& ids, uint32_t flags) {
  size_t n = 0;
  EXPECT_EQ(trit_detokenize(m, ids.data(), ids.size(), flags, nullptr, 0, &n), TRIT_STATUS_BUFFER_TOO_SMALL);
  std::string out(n + 1, '\0');
  EXPECT_EQ(trit_detokenize(m, ids.data(), ids.size(), flags, out.data(), out.size(), &n), TRIT_STATUS_OK)
      << trit_last_error();
  out.resize(n);
  return out;
}

TEST(ApiTextTest, TokenizeAsTheLibraryDoes) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  Expected<gguf::File> file = gguf::File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok());
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*file);
  ASSERT_TRUE(tok.ok());
  for (const std::string text : {"Once upon a time", "", " Lily and  Ben.\n", "<s>x"}) {
    EXPECT_EQ(Tokenize(m.get(), text, TRIT_TOKENIZE_ADD_SPECIAL),
              (*tok)->Encode(text, {.add_special = true, .parse_special = false}))
        << text;
    EXPECT_EQ(Tokenize(m.get(), text, TRIT_TOKENIZE_PARSE_SPECIAL),
              (*tok)->Encode(text, {.add_special = false, .parse_special = true}))
        << text;
  }
  const std::vector<int32_t> ids = Tokenize(m.get(), "Once upon a time", TRIT_TOKENIZE_ADD_SPECIAL);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], 1);  // BOS, as the metadata says
  EXPECT_EQ(Detokenize(m.get(), ids, TRIT_DETOKENIZE_REMOVE_SPECIAL), (*tok)->Decode(ids, {.remove_special = true}));
  EXPECT_EQ(Detokenize(m.get(), std::vector<int32_t>(ids.begin() + 1, ids.end()), 0), "Once upon a time");
  EXPECT_EQ(Detokenize(m.get(), ids, TRIT_DETOKENIZE_RENDER_SPECIAL), (*tok)->Decode(ids, {.render_special = true}));
}

TEST(ApiTextTest, BufferProtocolAndRefusals) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  int32_t one = -1;
  size_t n = 0;
  EXPECT_EQ(trit_tokenize(m.get(), "Once upon a time", 16, TRIT_TOKENIZE_ADD_SPECIAL, &one, 1, &n),
            TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_GT(n, 1u);
  EXPECT_EQ(one, -1);  // nothing written
  EXPECT_EQ(trit_tokenize(m.get(), nullptr, 3, 0, nullptr, 0, &n), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(trit_tokenize(m.get(), "x", 1, 8u, nullptr, 0, &n), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("unknown flags"), std::string::npos) << trit_last_error();
  EXPECT_EQ(trit_tokenize(nullptr, "x", 1, 0, nullptr, 0, &n), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(trit_last_error(), "model is NULL");

  const int32_t bad[] = {1, 512};
  char text[16];
  EXPECT_EQ(trit_detokenize(m.get(), bad, 2, 0, text, sizeof(text), &n), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("ids[1] = 512"), std::string::npos) << trit_last_error();
  EXPECT_EQ(trit_token_to_piece(m.get(), -3, 0, text, sizeof(text), &n), TRIT_STATUS_INVALID_ARGUMENT);
}

TEST(ApiTextTest, TokenPieces) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  char piece[32];
  size_t n = 0;
  ASSERT_EQ(trit_token_to_piece(m.get(), 1, TRIT_DETOKENIZE_RENDER_SPECIAL, piece, sizeof(piece), &n), TRIT_STATUS_OK);
  EXPECT_STREQ(piece, "<s>");
  ASSERT_EQ(trit_token_to_piece(m.get(), 1, 0, piece, sizeof(piece), &n), TRIT_STATUS_OK);
  EXPECT_STREQ(piece, "");  // control tokens write nothing unless rendered
  EXPECT_EQ(n, 0u);
}

TEST(ApiTextTest, ModelWithoutTemplateRefusesToRender) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  const trit_chat_message msg = {"user", "Hi"};
  char out[64];
  size_t n = 0;
  EXPECT_EQ(trit_chat_render(m.get(), &msg, 1, 1, out, sizeof(out), &n), TRIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(trit_last_error()).find("no chat template"), std::string::npos) << trit_last_error();
}

// The bundled model rewritten with a chat template.
class ApiChatTemplateTest : public TempDirTest {
 protected:
  std::string WithTemplate(const std::string& name, const std::string& source) {
    const std::string path = Path(name);
    WriteBundledWith(path, "tokenizer.chat_template", gguf::Value(source));
    return path;
  }
};

constexpr const char* kTemplate =
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}";

TEST_F(ApiChatTemplateTest, RendersAndGeneratesWithOneBos) {
  ModelPtr m = LoadModel(WithTemplate("chat.gguf", kTemplate));
  ASSERT_TRUE(m);
  EXPECT_EQ(trit_model_has_chat_template(m.get()), 1);
  const trit_chat_message msgs[] = {{"system", "Be brief."}, {"user", "Hi"}};
  size_t n = 0;
  ASSERT_EQ(trit_chat_render(m.get(), msgs, 2, 1, nullptr, 0, &n), TRIT_STATUS_BUFFER_TOO_SMALL);
  std::string text(n + 1, '\0');
  ASSERT_EQ(trit_chat_render(m.get(), msgs, 2, 1, text.data(), text.size(), &n), TRIT_STATUS_OK) << trit_last_error();
  text.resize(n);
  EXPECT_EQ(text, "<s><|system|>Be brief.\n<|user|>Hi\n<|assistant|>");
  ASSERT_EQ(trit_chat_render(m.get(), msgs, 2, 0, text.data(), text.size() + 1, &n), TRIT_STATUS_OK);
  EXPECT_EQ(std::string(text.data(), n), "<s><|system|>Be brief.\n<|user|>Hi\n");

  // The template wrote the BOS text: generation parses it and adds no second one.
  const std::string prompt = "<s><|user|>Hi\n<|assistant|>";
  const std::vector<int32_t> parsed = Tokenize(m.get(), prompt, TRIT_TOKENIZE_PARSE_SPECIAL);
  ASSERT_EQ(parsed[0], 1);
  ASSERT_NE(parsed[1], 1);
  trit_generate_options o = Greedy(3);
  trit_generate_result r;
  r.struct_size = sizeof(r);
  ASSERT_EQ(trit_generate(m.get(), prompt.c_str(), &o, nullptr, nullptr, &r), TRIT_STATUS_OK) << trit_last_error();
  EXPECT_EQ(r.n_prompt_tokens, static_cast<int64_t>(parsed.size()));

  const trit_chat_message bad = {nullptr, "x"};
  EXPECT_EQ(trit_chat_render(m.get(), &bad, 1, 1, text.data(), text.size(), &n), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("messages[0]"), std::string::npos) << trit_last_error();
}

TEST_F(ApiChatTemplateTest, TemplateTritCannotRunLoadsButDoesNotRender) {
  ModelPtr m = LoadModel(WithTemplate("broken.gguf", "{% for m in messages %}{{ m.content }"));
  ASSERT_TRUE(m);  // the model still generates
  EXPECT_EQ(trit_model_has_chat_template(m.get()), 0);
  const trit_chat_message msg = {"user", "Hi"};
  char out[64];
  size_t n = 0;
  EXPECT_EQ(trit_chat_render(m.get(), &msg, 1, 1, out, sizeof(out), &n), TRIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(trit_last_error()).find("chat template"), std::string::npos) << trit_last_error();
}

}  // namespace
}  // namespace trit::testing
