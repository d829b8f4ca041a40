#include "runtime/prompt_builder.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "formats/gguf/writer.h"
#include "test_paths.h"

namespace trit::runtime {
namespace {

namespace fs = std::filesystem;

// The bundled model's metadata (its 512-token SentencePiece vocabulary) plus
// `chat_template`, written as a vocabulary-only GGUF.
std::string WriteVocabWithTemplate(const std::string& chat_template, const std::string& name) {
  Expected<gguf::File> src = gguf::File::Open(testing::BundledModelPath());
  EXPECT_TRUE(src.ok());
  gguf::Writer w;
  for (const gguf::MetadataEntry& e : src->metadata()) EXPECT_TRUE(w.SetMetadata(e.key, e.value).ok());
  EXPECT_TRUE(w.SetMetadata("tokenizer.chat_template", gguf::Value(chat_template)).ok());
  const std::string path = (fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".gguf")).string();
  EXPECT_TRUE(w.WriteFile(path).ok());
  return path;
}

struct Fixture {
  explicit Fixture(const std::string& tmpl) : path(WriteVocabWithTemplate(tmpl, "trit-prompt")) {
    file = std::make_unique<gguf::File>(std::move(gguf::File::Open(path).value()));
    tokenizer = std::move(tokenizer::Tokenizer::FromGguf(*file).value());
  }
  ~Fixture() { fs::remove(path); }
  std::string path;
  std::unique_ptr<gguf::File> file;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
};

constexpr const char* kTemplate =
    "{{ bos_token }}{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}[assistant]{% endif %}";

TEST(PromptBuilderTest, ChatTemplateRenderedOnceWithOneBos) {
  Fixture f(kTemplate);
  Expected<PromptBuilder> b = PromptBuilder::Create(*f.file, *f.tokenizer, /*raw=*/false);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(b->chat());
  Expected<std::vector<tokenizer::TokenId>> ids = b->Build({{"system", "Be brief."}, {"user", "Hi there"}});
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  const std::vector<tokenizer::TokenId> expected = f.tokenizer->Encode(
      "<s>[system] Be brief.\n[user] Hi there\n[assistant]", {.add_special = false, .parse_special = true});
  EXPECT_EQ(*ids, expected);
  ASSERT_FALSE(ids->empty());
  EXPECT_EQ((*ids)[0], 1);
  EXPECT_NE((*ids)[1], 1);  // the template's "<s>" is the only BOS
}

TEST(PromptBuilderTest, RawSkipsTheTemplate) {
  Fixture f(kTemplate);
  Expected<PromptBuilder> b = PromptBuilder::Create(*f.file, *f.tokenizer, /*raw=*/true);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->chat());
  Expected<std::vector<tokenizer::TokenId>> ids = b->Build({{"user", "Hi there"}});
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, f.tokenizer->Encode("Hi there", {.add_special = true, .parse_special = false}));
}

// The builder serves the CLI, the server and the C API, so its error names the
// template and where it broke; each front end adds its own way around it
// (the CLI's "--raw" hint is tested with run_command).
TEST(PromptBuilderTest, TemplateErrorsNameTheTemplateAndWhere) {
  Fixture f("{% for m in messages %}{{ m.content }");
  Expected<PromptBuilder> b = PromptBuilder::Create(*f.file, *f.tokenizer, /*raw=*/false);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("chat template cannot be used"), std::string::npos) << b.status().message();
  EXPECT_NE(b.status().message().find("1:37"), std::string::npos) << b.status().message();

  Fixture g("{{ raise_exception('only user turns') }}");
  Expected<PromptBuilder> c = PromptBuilder::Create(*g.file, *g.tokenizer, /*raw=*/false);
  ASSERT_TRUE(c.ok());
  Expected<std::vector<tokenizer::TokenId>> ids = c->Build({{"user", "x"}});
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.status().message().find("only user turns"), std::string::npos) << ids.status().message();
}

// chat_template_kwargs reach the template through Build, and its refusals
// keep their "chat_template_kwargs" context for the server to name.
TEST(PromptBuilderTest, KwargsReachTheTemplate) {
  Fixture f("{% for m in messages %}{{ m.content }}{% endfor %}{% if think is defined %}[think={{ think }}]{% endif %}");
  Expected<PromptBuilder> b = PromptBuilder::Create(*f.file, *f.tokenizer, /*raw=*/false);
  ASSERT_TRUE(b.ok()) << b.status().message();
  Expected<std::string> on = b->Render({{"user", "Hi"}}, /*add_generation_prompt=*/true, {.kwargs_json = R"({"think": true})"});
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_EQ(*on, "Hi[think=True]");
  Expected<std::vector<tokenizer::TokenId>> ids = b->Build({{"user", "Hi"}}, {.kwargs_json = R"({"think": 7})"});
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(*ids, f.tokenizer->Encode("Hi[think=7]", {.add_special = true, .parse_special = true}));
  Expected<std::vector<tokenizer::TokenId>> bad = b->Build({{"user", "Hi"}}, {.kwargs_json = R"({"messages": []})"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("chat_template_kwargs: key 'messages'"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace trit::runtime
