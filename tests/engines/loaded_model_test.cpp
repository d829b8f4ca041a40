// engines::LoadedModel, the loader `trit run`, `trit serve` and the C API
// share: the bundled model opens with its engine, tokenizer, prompt builder
// and defaults; a missing file, a file that is not GGUF and a chat template
// trit cannot run are errors naming the path.
#include "engines/loaded_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/gguf/writer.h"
#include "test_paths.h"

namespace trit::engines {
namespace {

class LoadedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("trit-loaded-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The bundled model rewritten with tokenizer.chat_template = `source`.
  std::string WithTemplate(const std::string& name, const std::string& source) {
    const std::string path = Path(name);
    Expected<gguf::File> f = gguf::File::Open(testing::BundledModelPath());
    EXPECT_TRUE(f.ok()) << f.status().message();
    if (!f.ok()) return path;
    gguf::Writer w;
    for (const auto& e : f->metadata()) EXPECT_TRUE(w.SetMetadata(e.key, e.value).ok());
    EXPECT_TRUE(w.SetMetadata("tokenizer.chat_template", gguf::Value(source)).ok());
    for (const auto& t : f->tensors()) {
      EXPECT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
    }
    EXPECT_TRUE(w.WriteFile(path).ok());
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(LoadedModelTest, OpensTheBundledModelWithItsDefaults) {
  bool pin_rejected = true;
  Expected<LoadedModel> m = LoadedModel::Open(testing::BundledModelPath(), {}, &pin_rejected);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_FALSE(pin_rejected);
  EXPECT_EQ(m->path, testing::BundledModelPath());
  EXPECT_EQ(m->format, "gguf");
  ASSERT_NE(m->engine, nullptr);
  EXPECT_EQ(m->engine->info().name, "cpu");
  ASSERT_NE(m->model, nullptr);
  EXPECT_EQ(m->encoder, nullptr);
  EXPECT_FALSE(m->embeds());
  ASSERT_NE(m->file, nullptr);
  ASSERT_NE(m->tokenizer, nullptr);
  EXPECT_EQ(m->tokenizer->vocab().size(), m->model->hparams().n_vocab);
  EXPECT_EQ(m->n_ctx_train, m->model->hparams().n_ctx_train);
  EXPECT_EQ(m->n_ctx, m->n_ctx_train);
  EXPECT_EQ(m->n_threads, DefaultThreadCount());
  EXPECT_GE(m->n_threads, 1);

  // No chat template in the bundled model: plain text after BOS.
  ASSERT_TRUE(m->prompt_builder.has_value());
  EXPECT_FALSE(m->prompt_builder->chat());
  EXPECT_TRUE(m->chat_template_error.ok());
  Expected<std::vector<tokenizer::TokenId>> ids = m->prompt_builder->Build({{"user", "Once upon a time"}});
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  const std::vector<tokenizer::TokenId> expected =
      m->tokenizer->Encode("Once upon a time", {.add_special = true, .parse_special = false});
  EXPECT_EQ(*ids, expected);
  EXPECT_EQ((*ids)[0], m->tokenizer->vocab().special().bos);
}

TEST_F(LoadedModelTest, HonoursTheOptions) {
  LoadOptions options;
  options.engine = "reference";
  options.n_threads = 3;
  options.n_ctx = 64;
  options.purpose = LoadPurpose::kGenerateOrEmbed;  // a generation model still opens for generation
  Expected<LoadedModel> m = LoadedModel::Open(testing::BundledModelPath(), options);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->engine->info().name, "reference");
  EXPECT_NE(m->model, nullptr);
  EXPECT_EQ(m->n_threads, 3);
  EXPECT_EQ(m->n_ctx, 64);
}

TEST_F(LoadedModelTest, AMissingFileIsAnErrorNamingThePath) {
  const std::string path = Path("no-such-model.gguf");
  Expected<LoadedModel> m = LoadedModel::Open(path);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
}

TEST_F(LoadedModelTest, AFileThatIsNotGgufIsAnErrorNamingThePath) {
  const std::string path = Path("notes.gguf");
  std::ofstream(path) << "these are not the bytes of a GGUF file\n";
  for (LoadPurpose purpose : {LoadPurpose::kGenerate, LoadPurpose::kGenerateOrEmbed}) {
    LoadOptions options;
    options.purpose = purpose;
    bool pin_rejected = true;
    Expected<LoadedModel> m = LoadedModel::Open(path, options, &pin_rejected);
    ASSERT_FALSE(m.ok());
    EXPECT_FALSE(pin_rejected);
    EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
  }
}

TEST_F(LoadedModelTest, APinThatCannotBeHonouredIsReported) {
  bool pin_rejected = false;
  Expected<LoadedModel> m = LoadedModel::Open(testing::BundledModelPath(), {.engine = "no-such-engine"}, &pin_rejected);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(pin_rejected);
  EXPECT_EQ(m.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(m.status().message().starts_with("--engine no-such-engine: ")) << m.status().message();
}

TEST_F(LoadedModelTest, AChatTemplateBuildsChatPrompts) {
  const std::string path = WithTemplate(
      "chat.gguf", "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                   "{% if add_generation_prompt %}<|assistant|>{% endif %}");
  Expected<LoadedModel> m = LoadedModel::Open(path);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->prompt_builder->chat());
  const std::vector<chat::ChatMessage> messages = {{"user", "Hi"}};
  Expected<std::string> text = m->prompt_builder->Render(messages, /*add_generation_prompt=*/true);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "<s><|user|>Hi\n<|assistant|>");
  Expected<std::string> no_prompt = m->prompt_builder->Render(messages, /*add_generation_prompt=*/false);
  ASSERT_TRUE(no_prompt.ok());
  EXPECT_EQ(*no_prompt, "<s><|user|>Hi\n");
  // Build tokenizes the rendered text, the template's BOS parsed, no second one added.
  Expected<std::vector<tokenizer::TokenId>> ids = m->prompt_builder->Build(messages);
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(*ids, m->tokenizer->Encode(*text, {.add_special = false, .parse_special = true}));

  // --raw: the template is skipped.
  LoadOptions raw_options;
  raw_options.chat_template = ChatTemplateUse::kSkip;
  Expected<LoadedModel> raw = LoadedModel::Open(path, raw_options);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  EXPECT_FALSE(raw->prompt_builder->chat());
}

TEST_F(LoadedModelTest, AChatTemplateTritCannotRunLoadsPlainAndSaysWhy) {
  const std::string path = WithTemplate("broken.gguf", "{% for m in messages %}{{ m.content }");
  Expected<LoadedModel> m = LoadedModel::Open(path);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_FALSE(m->prompt_builder->chat());
  ASSERT_FALSE(m->chat_template_error.ok());
  EXPECT_EQ(m->chat_template_error.code(), ErrorCode::kUnsupported);
  const std::string& message = m->chat_template_error.message();
  EXPECT_TRUE(message.starts_with(path + ": the model's chat template cannot be used")) << message;
}

}  // namespace
}  // namespace trit::engines
