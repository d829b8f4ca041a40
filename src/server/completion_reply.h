// The answers of /v1/chat/completions and /v1/completions as the transport
// delivers them: a whole body once generation ends (DeferredReply), or
// server-sent events as tokens come (StreamReply). Both read the request's
// channel when the scheduler wakes them; no thread waits on either.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/http_transport.h"
#include "server/openai_protocol.h"
#include "server/tool_calls.h"
#include "server/request_channel.h"

namespace trit::server {

// A chat request that offered tools: each finished answer is read for calls
// (tool_calls.h); a streamed one then comes whole at its end (its text
// cannot be shown before it is known not to be a call).
struct ToolReplyOptions {
  ToolCallFormat format = ToolCallFormat::kJson;
  std::vector<ToolSpec> functions;     // those offered (names; Qwen XML reads the schemas too)
  uint64_t id_seed = 0;                // call ids are drawn from it
};

struct CompletionReplyOptions {
  Endpoint endpoint = Endpoint::kChatCompletions;
  ResponseInfo info;
  bool logprobs = false;       // the request asked for logprobs
  bool include_usage = false;  // stream_options.include_usage
  std::string echo;            // text the answer starts with (completions' echo: the prompt)
  std::optional<ToolReplyOptions> tools;  // chat with tools offered: calls are read out of each answer
  // Held until the answer is destroyed: the lease on the model that computes
  // it (model_pool.h), so that the model is not unloaded under it.
  std::shared_ptr<const void> keep_alive;
};

// `channels`: one per choice (n), in choice order.
std::shared_ptr<DeferredReply> MakeCompletionReply(std::vector<std::shared_ptr<RequestChannel>> channels,
                                                   CompletionReplyOptions options);

// Sent with the 200 and the text/event-stream type: its headers.
StreamStart MakeCompletionStream(std::vector<std::shared_ptr<RequestChannel>> channels,
                                 CompletionReplyOptions options);

// An error in OpenAI's shape, as an HTTP response.
HttpResponse ErrorResponse(const ApiError& error);

}  // namespace trit::server
