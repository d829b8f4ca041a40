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

}  // namespace
}  // namespace trit::chat
