// Turns a conversation into the token ids `trit run` and `trit serve` feed the model:
// through the model's chat template (tokenizer.chat_template) unless raw
// mode is asked or the model has none, then the tokenizer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "chat/chat_template.h"
#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {

// What a request adds to the conversation for the template besides its
// messages; each text goes to chat::ApplyOptions as is ("" none). Default
// member initializers let callers name only the one they set
// ({.kwargs_json = ...}) warning-free (-Wmissing-field-initializers).
struct TemplateInputs {
  std::string_view tools_json{};   // the tool definitions (ApplyOptions::tools_json)
  std::string_view kwargs_json{};  // chat_template_kwargs (ApplyOptions::kwargs_json)
};

class PromptBuilder {
 public:
  // Compiles the file's chat template unless `raw`; a template trit cannot
  // run is an error naming the construct (`trit run --raw` bypasses it).
  static Expected<PromptBuilder> Create(const gguf::File& file, const tokenizer::Tokenizer& tokenizer, bool raw);

  // True when prompts go through a chat template.
  bool chat() const { return template_.has_value(); }

  // Chat: the conversation rendered with add_generation_prompt and tokenized
  // with special tokens parsed (BOS added unless the template wrote it).
  // Plain: the last message's text tokenized with BOS as the model says
  // (`inputs` unused: there is no template to read them).
  Expected<std::vector<tokenizer::TokenId>> Build(const std::vector<chat::ChatMessage>& messages,
                                                  const TemplateInputs& inputs = {}) const;

  // Chat only (precondition: chat()): the conversation rendered as text
  // with the model's BOS and EOS texts, ending with the header of an
  // assistant turn when add_generation_prompt (trit_chat_render). Build
  // tokenizes exactly this text.
  Expected<std::string> Render(const std::vector<chat::ChatMessage>& messages, bool add_generation_prompt,
                               const TemplateInputs& inputs = {}) const;

 private:
  PromptBuilder(const tokenizer::Tokenizer& tokenizer, std::optional<chat::ChatTemplate> tmpl)
      : tokenizer_(&tokenizer), template_(std::move(tmpl)) {}

  const tokenizer::Tokenizer* tokenizer_;
  std::optional<chat::ChatTemplate> template_;
};

}  // namespace trit::runtime
