// Tool calls in a model's reply: how a chat template asks the model to write
// them, reading them back out of the text, and the grammar that makes a
// forced call (tool_choice "required" or a named function) always parse.
//
// Models write calls in the form their chat template teaches:
//   kHermes   <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>   (Hermes 2 Pro, Qwen 2.5/3)
//   kLlama3   {"name": "f", "parameters": {...}}                            (Llama 3.1-3.3 JSON calls,
//             after an optional <|python_tag|>)
//   kMistral  [TOOL_CALLS][{"name": "f", "arguments": {...}}, ...]          (Mistral Nemo, Small)
//   kGemma4   <|tool_call>call:f{city:<|"|>Paris<|"|>,n:3}<tool_call|>      (Gemma 4: keys bare,
//             strings between <|"|> marks, numbers, true/false/null, {...}, [...])
//   kQwenXml  <tool_call>\n<function=f>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>
//             (Qwen3.5, Qwen3-Coder: one block per argument, its value as text,
//             JSON where it parses and the schema does not say string)
//   kJson     {"name": "f", "arguments": {...}}, or an array of those        (any other template)
// The reading is lenient in what surrounds a call (whitespace, a ```json
// fence around a kJson call, "arguments" given as a string holding JSON)
// and strict in the call itself: a call must be a JSON object (kGemma4,
// kQwenXml: their own syntax) naming one of the request's functions with an
// object of arguments, else the text stays content.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "chat/chat_template.h"

namespace trit::server {

enum class ToolCallFormat { kHermes, kLlama3, kMistral, kGemma4, kQwenXml, kJson };

std::string_view ToolCallFormatName(ToolCallFormat format);

// The form a chat template teaches, from its source text (the markers it
// writes); kJson when none is recognised.
ToolCallFormat DetectToolCallFormat(std::string_view chat_template);

// A function the model may call: its name and its parameters' JSON Schema
// (JSON text; empty: any object).
struct ToolSpec {
  std::string name;
  std::string parameters;
};

struct ToolCall {
  std::string name;
  std::string arguments;  // a JSON object, compact
  friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

struct ToolReply {
  std::string content;          // the text outside the calls, trimmed
  std::vector<ToolCall> calls;  // in the order written
};

// Reads the calls out of a finished reply. Only calls to the functions in
// `functions` count. kQwenXml reads each function's schema (its properties'
// "type"): a string-typed argument stays text even where it reads as JSON.
ToolReply ParseToolReply(std::string_view text, ToolCallFormat format, std::span<const ToolSpec> functions);

// What of a reply still being written can be streamed as content now: the
// part of it that cannot turn out to be a call, whatever follows. Leading
// whitespace and whitespace before a hold are withheld too (the finished
// content is trimmed), so the result only grows as the text does and is
// always a prefix of ParseToolReply(finished text).content. Hermes, Qwen
// XML, Mistral and Gemma 4 hold from their marker (or from a tail that
// could begin it); Llama 3 and plain JSON hold a whole reply that begins
// like a call ({, [, a ``` fence, <|python_tag|>).
std::string_view StreamableContent(std::string_view text, ToolCallFormat format);

// The GBNF grammar (start rule `root`) of a reply that is exactly one call,
// or with `parallel` one or more, of the given functions, in `format`, with
// arguments valid under each function's schema. Errors name the function
// whose schema cannot be converted (grammar/json_schema.h says what can).
// kGemma4's and kQwenXml's calls are not JSON, so there the grammar holds
// the call syntax and the function names, and not the arguments' schema.
Expected<std::string> ToolCallGbnf(ToolCallFormat format, std::span<const ToolSpec> tools, bool parallel);

// Whether a chat template handles tools itself (renders tool definitions,
// assistant tool calls and tool results): it reads `tool_calls`.
bool TemplateSpeaksTools(std::string_view chat_template);

// For a template that does not speak tools (zephyr, Gemma, ...), the
// conversation rewritten so the model still sees everything, in the kJson
// form: the tools and how to call them in a system message (added to the
// first one, or a new first one), assistant calls as their JSON text, and
// tool results as user turns naming the call they answer.
std::vector<chat::ChatMessage> SpellOutTools(std::vector<chat::ChatMessage> messages, std::string_view tools_json);

// A call id as Mistral's templates require them and OpenAI's clients accept:
// 9 characters of [a-zA-Z0-9], from `random` (any 64-bit value).
std::string ToolCallId(uint64_t random);

}  // namespace trit::server
