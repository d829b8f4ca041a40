// The OpenAI API's request and response shapes as pure functions: request
// bodies to GenerationParams (or an error in OpenAI's shape naming the
// parameter), results to response bodies. JSON stays inside the .cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/chat_template.h"
#include "server/request_channel.h"

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

struct CompletionRequest {
  Endpoint endpoint = Endpoint::kChatCompletions;
  std::string model;                        // "" when absent
  std::vector<chat::ChatMessage> messages;  // chat
  std::string prompt;                       // completions, given as text
  std::optional<std::vector<int32_t>> prompt_ids;  // completions, given as token ids
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  GenerationParams params;     // logprobs asked when params.top_logprobs >= 0
};

// Parses a body of POST /v1/chat/completions or /v1/completions. A missing
// seed is drawn at random (each request samples with its own RNG).
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
};

// A whole answer (stream: false).
std::string CompletionBody(Endpoint endpoint, const ResponseInfo& info, const std::string& text,
                           const std::vector<TokenLogprob>* logprobs, FinishReason finish, const Usage& usage);
// One server-sent event's JSON (without "data: "). `first` adds the
// assistant role to a chat delta; `finish` kNone: no finish_reason yet.
std::string ChunkBody(Endpoint endpoint, const ResponseInfo& info, const std::string& text,
                      const std::vector<TokenLogprob>* logprobs, FinishReason finish, bool first,
                      bool usage_null);
// The final chunk of stream_options.include_usage: no choices, the usage.
std::string UsageChunkBody(Endpoint endpoint, const ResponseInfo& info, const Usage& usage);

std::string ModelsBody(const std::string& model_id, int64_t created);
std::string ModelBody(const std::string& model_id, int64_t created);

}  // namespace trit::server
