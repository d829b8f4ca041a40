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

// A function call an assistant turn made, as OpenAI's chat API carries it
// ({"id", "type": "function", "function": {"name", "arguments"}}).
struct ToolCall {
  std::string id;         // "call_..."; left out of the template's view when empty
  std::string name;       // function.name
  std::string arguments;  // function.arguments: the JSON text clients send
};

// One turn of the conversation. The template reads each message as a dict
// like HF's, keys in this order: role, content, name, tool_calls,
// tool_call_id; the last three only when non-empty, since templates test
// `'tool_calls' in message` and `message.tool_call_id is defined`. Every
// field after content has a default member initializer, so ChatMessage{role,
// content} still compiles warning-free (-Wmissing-field-initializers).
struct ChatMessage {
  std::string role;     // "system", "user", "assistant", "tool", ...
  std::string content;
  // OpenAI's "content": null (an assistant turn that only calls tools): the
  // template sees message.content as None, and `content` is ignored.
  bool content_is_null = false;
  // An assistant turn's calls, read as message.tool_calls[i] =
  // {"id", "type": "function", "function": {"name", "arguments"}} with the
  // arguments parsed to an object (ToolArgumentsValue in json_parse.h).
  std::vector<ToolCall> tool_calls{};
  // Plain strings, empty when absent (std::optional<std::string> trips GCC
  // 12's -Wmaybe-uninitialized in sanitizer builds).
  std::string tool_call_id{};  // role "tool": the id of the call it answers
  std::string name{};          // message.name; on a "tool" turn, the function's
};

struct ApplyOptions {
  bool add_generation_prompt = false;  // end with the header of an assistant turn
  std::string bos_token;
  std::string eos_token;
  // The request's tool definitions: the JSON text of an array of objects in
  // OpenAI's shape ({"type": "function", "function": {"name", "description",
  // "parameters"}}), read by the template as `tools`, keys in the text's
  // order. Empty: no tools, and `tools` is None, as HF passes it.
  std::string tools_json;
  // Further string variables the template may read (e.g. date_string).
  std::vector<std::pair<std::string, std::string>> extra_variables;
  // chat_template_kwargs, as vLLM and llama-server take them: the JSON text
  // of an object whose members become template variables, values as
  // json.loads gives them (`{"enable_thinking": false}` turns Qwen3's
  // thinking off, Gemma 4's on with true). A member naming a variable the
  // renderer sets (messages, tools, add_generation_prompt, bos_token, an
  // extra variable, a global function) is refused, not overridden: the
  // request has its own fields for those. Empty: none.
  std::string kwargs_json;
  size_t max_output_bytes = size_t{16} << 20;  // a rendering past this is an error
};

// The checks Apply makes of ApplyOptions::kwargs_json that need no
// template: one JSON object, no member named like a variable the renderer
// always sets. kInvalidArgument with the context "chat_template_kwargs"
// ("chat_template_kwargs: key 'messages' is set by the renderer ..."), so
// a frontend can refuse a request or a flag before any model loads.
Status CheckTemplateKwargs(std::string_view kwargs_json);

class ChatTemplate {
 public:
  // Parses the template. Errors are kInvalidArgument for syntax
  // ("chat template 3:17: expected '%}' after 'endif', found 'x'") and
  // kUnsupported for constructs outside the subset (include, unknown filters).
  static Expected<ChatTemplate> Compile(std::string_view source);

  // Renders the conversation. Errors (raise_exception() in the template, type
  // errors, undefined values, limits) name the construct and line:column;
  // tools_json that is not an array of objects is kInvalidArgument too, and
  // so is kwargs_json that CheckTemplateKwargs refuses or that names an
  // extra variable.
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
