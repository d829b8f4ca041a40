// The OpenAI API's request and response shapes as pure functions: request
// bodies to GenerationParams (or an error in OpenAI's shape naming the
// parameter), results to response bodies. JSON stays inside the .cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chat/chat_template.h"
#include "server/request_channel.h"
#include "server/tool_calls.h"

namespace trit::server {

// {"error": {"message", "type", "param", "code"}} with this HTTP status.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // "" -> null
  std::string code;   // "" -> null
};
std::string ErrorBody(const ApiError& error);

enum class Endpoint { kChatCompletions, kCompletions };

// How the answer is constrained, as the request asked: `grammar` (GBNF) or
// `response_format` (json_object, json_schema). ParseCompletionRequest
// compiles it into params.grammar; this records what was asked, for errors.
enum class Constraint { kNone, kGbnf, kJsonObject, kJsonSchema };

// What a chat request says about tools.
enum class ToolChoice { kNone, kAuto, kRequired, kFunction };
struct ToolsRequest {
  std::string tools_json;           // the `tools` array as sent (keys in order) for the template; "" none
  std::vector<ToolSpec> functions;  // their names and parameter schemas
  ToolChoice choice = ToolChoice::kNone;  // kAuto by default when tools are given
  std::string function;             // kFunction: the function it must call
  bool parallel = true;             // parallel_tool_calls: several calls in one reply
};

struct CompletionRequest {
  Endpoint endpoint = Endpoint::kChatCompletions;
  std::string model;                        // "" when absent
  std::vector<chat::ChatMessage> messages;  // chat
  std::string prompt;                       // completions, given as text
  std::optional<std::vector<int32_t>> prompt_ids;  // completions, given as token ids
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool echo = false;           // completions: the answer's text starts with the prompt
  int32_t n = 1;               // choices; choice i samples with seed + i
  Constraint constraint = Constraint::kNone;
  ToolsRequest tools;          // chat
  // chat: chat_template_kwargs, the object's JSON text in the body's key
  // order (chat::ApplyOptions::kwargs_json); "" none.
  std::string chat_template_kwargs;
  GenerationParams params;     // logprobs asked when params.top_logprobs >= 0
};

// Parses a body of POST /v1/chat/completions or /v1/completions. A missing
// seed is drawn at random (each request samples with its own RNG). A field
// that trit does not implement is refused by name (400) rather than
// ignored, unless OpenAI itself treats it as advisory (`user`, `metadata`,
// `store`, `service_tier`, `parallel_tool_calls`, `prediction`); so is an
// unknown one, as OpenAI does. A grammar or JSON schema is compiled here:
// an invalid one is an error naming `grammar` or `response_format`.
// logit_bias ids are not checked against a vocabulary (the caller knows it).
std::optional<ApiError> ParseCompletionRequest(std::string_view body, Endpoint endpoint, CompletionRequest* out);

// Checks that `body` is one JSON object: errors for malformed JSON,
// nesting past 64 levels or another JSON type.
std::optional<ApiError> CheckJsonObject(std::string_view body);

const char* FinishReasonName(FinishReason reason);

// The identity of one response: its id, creation time and model name.
struct ResponseInfo {
  std::string id;
  int64_t created = 0;
  std::string model;
};

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;  // of prompt_tokens, taken from a cache (prompt reuse)
};

// One choice of a whole answer (choice i is the i-th of `n`).
// A call in a reply, with the id the client sends back with its result.
struct ReplyToolCall {
  std::string id;
  ToolCall call;
};

struct Choice {
  std::string text;
  std::vector<ReplyToolCall> tool_calls;  // the reply called tools: content is null when text is empty
  const std::vector<TokenLogprob>* logprobs = nullptr;  // null: none asked
  FinishReason finish = FinishReason::kNone;
};

// A whole answer (stream: false).
std::string CompletionBody(Endpoint endpoint, const ResponseInfo& info, std::span<const Choice> choices,
                           const Usage& usage);
// One server-sent event's JSON (without "data: "), for choice `index`.
// `first` adds the assistant role to a chat delta; `finish` kNone: no
// finish_reason yet.
std::string ChunkBody(Endpoint endpoint, const ResponseInfo& info, int index, const std::string& text,
                      const std::vector<TokenLogprob>* logprobs, FinishReason finish, bool first,
                      bool usage_null);
// A chat chunk whose delta holds a reply's tool calls, whole (each with its
// index, as OpenAI's stream deltas carry them).
std::string ToolCallsChunkBody(const ResponseInfo& info, int index, const std::vector<ReplyToolCall>& calls,
                               bool usage_null);
// The final chunk of stream_options.include_usage: no choices, the usage.
std::string UsageChunkBody(Endpoint endpoint, const ResponseInfo& info, const Usage& usage);

// One name a request may send in "model", and whether its model is loaded
// now (trit's field "loaded"; with a model store, the others load on their
// first request).
struct ModelEntry {
  std::string id;
  bool loaded = false;
};
// The list of /v1/models: one entry per name the server answers to.
std::string ModelsBody(const std::vector<ModelEntry>& models, int64_t created);
std::string ModelBody(const ModelEntry& model, int64_t created);

}  // namespace trit::server
