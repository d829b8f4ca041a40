// Request bodies of trit serve (completions, chat, embeddings): any bytes must parse into a request or an
// error in OpenAI's shape (never a crash, a throw or unbounded recursion).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/embeddings_protocol.h"
#include "server/openai_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  for (trit::server::Endpoint e : {trit::server::Endpoint::kChatCompletions, trit::server::Endpoint::kCompletions}) {
    trit::server::CompletionRequest request;
    if (auto error = trit::server::ParseCompletionRequest(body, e, &request)) (void)trit::server::ErrorBody(*error);
  }
  trit::server::EmbeddingsRequest embeddings;
  if (auto error = trit::server::ParseEmbeddingsRequest(body, &embeddings)) (void)trit::server::ErrorBody(*error);
  (void)trit::server::CheckJsonObject(body);
  return 0;
}
