// Chat templates: the Jinja2 string a model ships as tokenizer.chat_template
// (from HF tokenizer_config.json), compiled once and applied to a
// conversation to build the prompt, byte-identical to what HF transformers'
// apply_chat_template renders (jinja2 with trim_blocks and lstrip_blocks).
//
// Supported: the Jinja subset real chat templates use (docs/CHAT_TEMPLATES.md).
// Anything else is refused with an error naming the construct and its
// line:column; no template can crash, loop forever or grow without bound.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trit::chat {

struct ChatMessage {
  std::string role;     // "system", "user", "assistant", ...
  std::string content;
};

struct ApplyOptions {
  bool add_generation_prompt = false;  // end with the header of an assistant turn
  std::string bos_token;
  std::string eos_token;
  // Further string variables the template may read (e.g. date_string).
  std::vector<std::pair<std::string, std::string>> extra_variables;
  size_t max_output_bytes = size_t{16} << 20;  // a rendering past this is an error
};

class ChatTemplate {
 public:
  // Parses the template. Errors are kInvalidArgument for syntax
  // ("chat template 3:17: expected '%}' after 'endif', found 'x'") and
  // kUnsupported for constructs outside the subset (include, unknown filters).
  static Expected<ChatTemplate> Compile(std::string_view source);

  // Renders the conversation. Errors (raise_exception() in the template, type
  // errors, undefined values, limits) name the construct and line:column.
  // The template is immutable: Apply may run on several threads at once.
  Expected<std::string> Apply(const std::vector<ChatMessage>& messages, const ApplyOptions& options) const;

  ChatTemplate(ChatTemplate&&) noexcept;
  ChatTemplate& operator=(ChatTemplate&&) noexcept;
  ~ChatTemplate();

 private:
  struct Program;
  explicit ChatTemplate(std::unique_ptr<Program> program);
  std::unique_ptr<Program> program_;
};

}  // namespace trit::chat
