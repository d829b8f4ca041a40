#include "server/embeddings_protocol.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/float_text.h"
#include "base/json_nesting.h"

namespace trit::server {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 8;  // input as arrays of token arrays is the deepest valid body

ApiError Invalid(std::string param, std::string message, std::string code = "invalid_value") {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  e.code = std::move(code);
  return e;
}

// A token id: an integer in [0, 2^31).
std::optional<int32_t> TokenId(const json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(INT32_MAX)) return static_cast<int32_t>(u);
    return std::nullopt;
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i >= 0 && i <= INT32_MAX) return static_cast<int32_t>(i);
  }
  return std::nullopt;
}

std::optional<ApiError> ReadTokens(const json& array, const std::string& where, std::vector<int32_t>* out) {
  if (array.empty()) return Invalid("input", fmt::format("{} is an empty token array", where));
  for (size_t i = 0; i < array.size(); ++i) {
    std::optional<int32_t> id = TokenId(array[i]);
    if (!id) {
      return Invalid("input", fmt::format("{}[{}] is {}, not a token id (an integer from 0)", where, i,
                                          array[i].dump(-1, ' ', false, json::error_handler_t::replace)));
    }
    out->push_back(*id);
  }
  return std::nullopt;
}

std::optional<ApiError> ReadInput(const json& input, EmbeddingsRequest* out) {
  if (input.is_string()) {
    out->texts.push_back(input.get<std::string>());
    return std::nullopt;
  }
  if (!input.is_array()) {
    return Invalid("input", fmt::format("'input' must be a string, an array of strings, an array of token ids or "
                                        "an array of token arrays, got {}",
                                        input.type_name()));
  }
  if (input.empty()) return Invalid("input", "'input' is an empty array");
  if (input.size() > kMaxEmbeddingInputs) {
    return Invalid("input", fmt::format("'input' has {} items; at most {} per request", input.size(),
                                        kMaxEmbeddingInputs));
  }
  const json& first = input[0];
  if (first.is_number()) {  // one text as token ids
    out->token_input = true;
    out->tokens.emplace_back();
    return ReadTokens(input, "'input'", &out->tokens.back());
  }
  for (size_t i = 0; i < input.size(); ++i) {
    const json& item = input[i];
    if (first.is_string() && item.is_string()) {
      out->texts.push_back(item.get<std::string>());
    } else if (first.is_array() && item.is_array()) {
      out->token_input = true;
      out->tokens.emplace_back();
      if (auto e = ReadTokens(item, fmt::format("'input'[{}]", i), &out->tokens.back())) return e;
    } else {
      return Invalid("input", fmt::format("'input'[{}] is {}, but 'input'[0] is {}: all items must be strings, or "
                                          "all token arrays",
                                          i, item.type_name(), first.type_name()));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> ParseEmbeddingsRequest(std::string_view body, EmbeddingsRequest* out) {
  if (!JsonNestingWithin(body, kMaxDepth)) {
    return Invalid("", fmt::format("the request body nests deeper than {} levels", kMaxDepth));
  }
  const json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("", "the request body is not valid JSON", "invalid_json");
  if (!j.is_object()) return Invalid("", "the request body must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "model" && key != "input" && key != "encoding_format" && key != "dimensions" && key != "user" &&
        key != "normalize") {
      return Invalid(key, fmt::format("unrecognized request argument '{}'", key), "unknown_parameter");
    }
  }
  if (auto it = j.find("model"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Invalid("model", fmt::format("'model' must be a string, got {}", it->type_name()));
    out->model = it->get<std::string>();
  }
  auto input = j.find("input");
  if (input == j.end() || input->is_null()) return Invalid("input", "'input' is required");
  if (auto e = ReadInput(*input, out)) return e;
  if (auto it = j.find("encoding_format"); it != j.end() && !it->is_null()) {
    if (*it == "float") {
      out->encoding = EmbeddingEncoding::kFloat;
    } else if (*it == "base64") {
      out->encoding = EmbeddingEncoding::kBase64;
    } else {
      return Invalid("encoding_format",
                     fmt::format("'encoding_format' is {}; expected \"float\" or \"base64\"",
                                 it->dump(-1, ' ', false, json::error_handler_t::replace)));
    }
  }
  if (auto it = j.find("dimensions"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 1 || (it->is_number_unsigned() && it->get<uint64_t>() > INT32_MAX)) {
      return Invalid("dimensions", fmt::format("'dimensions' is {}; expected a positive integer",
                                               it->dump(-1, ' ', false, json::error_handler_t::replace)));
    }
    out->dimensions = it->get<int64_t>();
  }
  if (auto it = j.find("user"); it != j.end() && !it->is_null() && !it->is_string()) {
    return Invalid("user", fmt::format("'user' must be a string, got {}", it->type_name()));
  }
  if (auto it = j.find("normalize"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return Invalid("normalize", fmt::format("'normalize' must be a boolean, got {}", it->type_name()));
    out->normalize = it->get<bool>();
  }
  return std::nullopt;
}

std::string Base64(std::span<const uint8_t> bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (rest == 2 ? uint32_t{bytes[i + 1]} << 8 : 0);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string EmbeddingsBody(std::string_view model, std::span<const float> vectors, int64_t dimension,
                           EmbeddingEncoding encoding, int64_t prompt_tokens) {
  static_assert(std::endian::native == std::endian::little, "base64 embeddings are little-endian float32 bytes");
  json data = json::array();
  const size_t n = dimension > 0 ? vectors.size() / static_cast<size_t>(dimension) : 0;
  for (size_t i = 0; i < n; ++i) {
    const std::span<const float> v = vectors.subspan(i * static_cast<size_t>(dimension), static_cast<size_t>(dimension));
    json item = {{"object", "embedding"}, {"index", i}};
    if (encoding == EmbeddingEncoding::kBase64) {
      item["embedding"] = Base64({reinterpret_cast<const uint8_t*>(v.data()), v.size_bytes()});
    } else {
      json values = json::array();
      for (float x : v) values.push_back(ShortFloat(x));
      item["embedding"] = std::move(values);
    }
    data.push_back(std::move(item));
  }
  json body = {{"object", "list"},
               {"data", std::move(data)},
               {"model", model},
               {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace trit::server
