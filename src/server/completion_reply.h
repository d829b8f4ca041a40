// The answers of /v1/chat/completions and /v1/completions as the transport
// delivers them: a whole body once generation ends (DeferredReply), or
// server-sent events as tokens come (StreamReply). Both read the request's
// channel when the scheduler wakes them; no thread waits on either.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/http_transport.h"
#include "server/openai_protocol.h"
#include "server/request_channel.h"

namespace trit::server {

struct CompletionReplyOptions {
  Endpoint endpoint = Endpoint::kChatCompletions;
  ResponseInfo info;
  bool logprobs = false;       // the request asked for logprobs
  bool include_usage = false;  // stream_options.include_usage
  std::string echo;            // text the answer starts with (completions' echo: the prompt)
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
