// ReadHfChatTemplates: each place SpecialVocab reads a template from, its
// order (tokenizer_config.json wins, even with null), named templates, and
// the GGUF keys GGUFWriter.add_chat_template writes for them.
#include "convert/hf_chat_template.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "formats/gguf/reader.h"

namespace trit::convert {
namespace {

namespace fs = std::filesystem;

class HfChatTemplateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("hf_chat_template_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  HfChatTemplates Read() {
    Expected<HfChatTemplates> t = ReadHfChatTemplates(dir_.string());
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? *t : HfChatTemplates{};
  }
  fs::path dir_;
};

TEST_F(HfChatTemplateTest, NoTokenizerConfigMeansNoTemplate) {
  Write("chat_template.jinja", "{{ x }}");
  EXPECT_FALSE(Read().default_template.has_value());
}

TEST_F(HfChatTemplateTest, TokenizerConfigWinsOverTheJinjaFile) {
  Write("tokenizer_config.json", R"({"chat_template": "from config"})");
  Write("chat_template.jinja", "from jinja");
  EXPECT_EQ(Read().default_template, "from config");
  // A null there is still tokenizer_config's answer: none.
  Write("tokenizer_config.json", R"({"chat_template": null, "x": 1})");
  EXPECT_FALSE(Read().default_template.has_value());
}

TEST_F(HfChatTemplateTest, JinjaFileWithAdditionalTemplates) {
  Write("tokenizer_config.json", R"({"bos_token": "<s>"})");
  Write("chat_template.jinja", "main");
  EXPECT_EQ(Read().default_template, "main");
  Write("additional_chat_templates/tool-use.jinja", "tools");
  Write("additional_chat_templates/rag.jinja", "rag");
  const HfChatTemplates t = Read();
  EXPECT_EQ(t.default_template, "main");
  ASSERT_EQ(t.named.size(), 2u);
  EXPECT_EQ(t.named[0], (std::pair<std::string, std::string>{"rag", "rag"}));
  EXPECT_EQ(t.named[1], (std::pair<std::string, std::string>{"tool_use", "tools"}));  // '-' written '_'
}

TEST_F(HfChatTemplateTest, ChatTemplateJsonAndTheListForm) {
  Write("tokenizer_config.json", R"({"bos_token": "<s>"})");
  Write("chat_template.json", R"({"chat_template": [{"name": "default", "template": "d"},
      {"name": "tool_use", "template": "t"}, {"name": "", "template": "skipped"}, {"template": "skipped"}]})");
  const HfChatTemplates t = Read();
  EXPECT_EQ(t.default_template, "d");
  ASSERT_EQ(t.named.size(), 1u);
  EXPECT_EQ(t.named[0].first, "tool_use");
}

TEST_F(HfChatTemplateTest, WritesTheKeysAddChatTemplateWrites) {
  HfChatTemplates t{"d", {{"rag", "r"}, {"tool_use", "t"}}};
  gguf::Writer w;
  ASSERT_TRUE(WriteHfChatTemplates(t, w).ok());
  const std::string path = (dir_ / "t.gguf").string();
  ASSERT_TRUE(w.WriteFile(path).ok());
  Expected<gguf::File> f = gguf::File::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f->GetString("tokenizer.chat_template"), "d");
  EXPECT_EQ(*f->GetString("tokenizer.chat_template.tool_use"), "t");
  EXPECT_EQ(*f->GetString("tokenizer.chat_template.rag"), "r");
}

TEST_F(HfChatTemplateTest, CorruptJsonIsNamed) {
  Write("tokenizer_config.json", "{");
  Expected<HfChatTemplates> t = ReadHfChatTemplates(dir_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tokenizer_config.json"), std::string::npos) << t.status().message();
}

}  // namespace
}  // namespace trit::convert
