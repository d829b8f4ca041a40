// POST /v1/embeddings in OpenAI's shape: the request body to parameters
// (errors name the parameter) and the vectors to the response body. Pure
// functions, fuzzed with the other request parsers (openai_request_fuzz).
//
//   {"model": "minilm", "input": "text" | ["a", "b"] | [101, 7592, 102] | [[101, 102], ...],
//    "encoding_format": "float" | "base64", "dimensions": 384, "user": "...",
//    "normalize": true}     ("normalize" is trit's: false gives the pooled vectors as they are)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/openai_protocol.h"

namespace trit::server {

enum class EmbeddingEncoding { kFloat, kBase64 };

// Most inputs in one request (OpenAI's limit).
inline constexpr size_t kMaxEmbeddingInputs = 2048;

struct EmbeddingsRequest {
  std::string model;
  bool token_input = false;                  // "input" held token ids
  std::vector<std::string> texts;            // when !token_input
  std::vector<std::vector<int32_t>> tokens;  // when token_input
  EmbeddingEncoding encoding = EmbeddingEncoding::kFloat;
  std::optional<int64_t> dimensions;
  bool normalize = true;  // unit length, as OpenAI's vectors are

  size_t size() const { return token_input ? tokens.size() : texts.size(); }
};

// Parses a body of POST /v1/embeddings. "input" is required; an unknown
// field is refused by name, as the completion endpoints refuse them.
std::optional<ApiError> ParseEmbeddingsRequest(std::string_view body, EmbeddingsRequest* out);

// {"object": "list", "data": [{"object": "embedding", "index": i,
// "embedding": [...] or base64 of the little-endian float32 bytes}],
// "model": ..., "usage": {"prompt_tokens": n, "total_tokens": n}}.
// `vectors` holds n_inputs rows of `dimension` floats.
std::string EmbeddingsBody(std::string_view model, std::span<const float> vectors, int64_t dimension,
                           EmbeddingEncoding encoding, int64_t prompt_tokens);

// Standard base64 (RFC 4648, with padding).
std::string Base64(std::span<const uint8_t> bytes);

}  // namespace trit::server
