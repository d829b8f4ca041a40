// JSON text -> template values, as Python's json.loads hands them to HF's
// chat templates: the request's tool definitions (`tools`) and the arguments
// of the tool calls in assistant messages. Objects become dicts in the text's
// key order (templates print them with |tojson, so the order shows in the
// prompt); a repeated key keeps its first place and takes its last value.
// Integers become int, numbers with a fraction or an exponent float, null None.
//
// Where json.loads differs: integers beyond 64 bits become float (Python keeps
// them exact), and NaN/Infinity literals and lone \u surrogates are refused.
#pragma once

#include <string_view>

#include "base/status.h"
#include "chat/value.h"

namespace trit::chat {

// Arrays and objects nested deeper than this are refused: every walk over a
// Value (|tojson, ==, repr) recurses, and Python's own json stops near 1000.
inline constexpr int kMaxJsonNesting = 128;

// kInvalidArgument when the text is not one JSON value ("invalid JSON: parse
// error at line 1, column 9: ...") or nests deeper than kMaxJsonNesting.
Expected<Value> ParseJson(std::string_view text);

// A tool call's arguments as chat templates read them. OpenAI clients send
// them as JSON text ('{"city":"Paris"}'); HF's convention, which templates
// follow (`tool_call.arguments | tojson`, `tool_call.arguments.items()`), is
// the parsed object. Text that is not a JSON object (a malformed call a model
// wrote, echoed back by the client) stays the string, as llama.cpp does, so
// the template still shows what the model wrote. The one error: an object
// nested deeper than kMaxJsonNesting.
Expected<Value> ToolArgumentsValue(std::string_view arguments);

}  // namespace trit::chat
