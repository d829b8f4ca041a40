#include "server/openai_protocol.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <random>

namespace trit::server {

using nlohmann::json;

namespace {

constexpr int kMaxDepth = 64;

// Deep nesting is refused before parsing, so no body can exhaust the stack.
bool NestingWithin(std::string_view body, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

ApiError Invalid(std::string param, std::string message) {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  e.code = "invalid_value";
  return e;
}

std::optional<ApiError> ParseJson(std::string_view body, json* out) {
  if (!NestingWithin(body, kMaxDepth)) {
    return Invalid("", fmt::format("the request body nests deeper than {} levels", kMaxDepth));
  }
  *out = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) {
    ApiError e = Invalid("", "the request body is not valid JSON");
    e.code = "invalid_json";
    return e;
  }
  if (!out->is_object()) return Invalid("", "the request body must be a JSON object");
  return std::nullopt;
}

std::string TypeName(const json& v) { return v.type_name(); }

// Typed field readers: absent or null leaves *out unchanged.
std::optional<ApiError> ReadNumber(const json& body, const char* key, double lo, double hi, double* out) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) return Invalid(key, fmt::format("'{}' must be a number, got {}", key, TypeName(*it)));
  const double v = it->get<double>();
  if (!(v >= lo && v <= hi)) return Invalid(key, fmt::format("'{}' is {}; expected a value in [{}, {}]", key, v, lo, hi));
  *out = v;
  return std::nullopt;
}

std::optional<ApiError> ReadInt(const json& body, const char* key, int64_t lo, int64_t hi, std::optional<int64_t>* out) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) return Invalid(key, fmt::format("'{}' must be an integer, got {}", key, TypeName(*it)));
  const int64_t v = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                        ? INT64_MAX
                        : it->get<int64_t>();
  if (v < lo || v > hi) return Invalid(key, fmt::format("'{}' is {}; expected an integer in [{}, {}]", key, v, lo, hi));
  *out = v;
  return std::nullopt;
}

std::optional<ApiError> ReadBool(const json& body, const char* key, bool* out) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) return Invalid(key, fmt::format("'{}' must be a boolean, got {}", key, TypeName(*it)));
  *out = it->get<bool>();
  return std::nullopt;
}

// Message content: a string, or an array of {"type": "text", "text": ...} parts.
std::optional<ApiError> ReadContent(const json& content, const std::string& param, std::string* out) {
  if (content.is_null()) return std::nullopt;
  if (content.is_string()) {
    *out = content.get<std::string>();
    return std::nullopt;
  }
  if (!content.is_array()) return Invalid(param, fmt::format("'{}' must be a string or an array of text parts", param));
  for (const json& part : content) {
    if (!part.is_object() || part.value("type", json()) != "text" || !part.contains("text") || !part["text"].is_string()) {
      return Invalid(param, fmt::format("'{}': only parts of type \"text\" with a string \"text\" are supported", param));
    }
    *out += part["text"].get<std::string>();
  }
  return std::nullopt;
}

std::optional<ApiError> ReadMessages(const json& body, std::vector<chat::ChatMessage>* out) {
  auto it = body.find("messages");
  if (it == body.end()) return Invalid("messages", "'messages' is required");
  if (!it->is_array()) return Invalid("messages", fmt::format("'messages' must be an array, got {}", TypeName(*it)));
  if (it->empty()) return Invalid("messages", "'messages' must hold at least one message");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    const std::string p = fmt::format("messages[{}]", i);
    if (!m.is_object()) return Invalid(p, fmt::format("'{}' must be an object", p));
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) return Invalid(p + ".role", fmt::format("'{}.role' must be a string", p));
    chat::ChatMessage msg;
    msg.role = role->get<std::string>();
    if (msg.role == "developer") msg.role = "system";  // OpenAI's newer name for the system role
    if (msg.role != "system" && msg.role != "user" && msg.role != "assistant" && msg.role != "tool") {
      return Invalid(p + ".role", fmt::format("'{}.role' is '{}'; expected system, developer, user, assistant or tool",
                                              p, msg.role));
    }
    if (auto c = m.find("content"); c != m.end()) {
      if (auto e = ReadContent(*c, p + ".content", &msg.content)) return e;
    }
    out->push_back(std::move(msg));
  }
  return std::nullopt;
}

std::optional<ApiError> ReadStop(const json& body, std::vector<std::string>* out) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) {
    out->push_back(it->get<std::string>());
    return std::nullopt;
  }
  if (!it->is_array() || it->size() > 4) return Invalid("stop", "'stop' must be a string or an array of up to 4 strings");
  for (const json& s : *it) {
    if (!s.is_string()) return Invalid("stop", "'stop' must be a string or an array of up to 4 strings");
    out->push_back(s.get<std::string>());
  }
  return std::nullopt;
}

std::optional<ApiError> ReadPrompt(const json& body, CompletionRequest* out) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) return Invalid("prompt", "'prompt' is required");
  if (it->is_string()) {
    out->prompt = it->get<std::string>();
    return std::nullopt;
  }
  if (it->is_array() && it->size() == 1 && (*it)[0].is_string()) {
    out->prompt = (*it)[0].get<std::string>();
    return std::nullopt;
  }
  if (it->is_array() && !it->empty() && std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_number_integer(); })) {
    std::vector<int32_t> ids;
    for (const json& v : *it) {
      const int64_t id = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT32_MAX) ? INT64_MAX : v.get<int64_t>();
      if (id < 0 || id > INT32_MAX) return Invalid("prompt", fmt::format("'prompt' holds token id {} out of range", id));
      ids.push_back(static_cast<int32_t>(id));
    }
    out->prompt_ids = std::move(ids);
    return std::nullopt;
  }
  return Invalid("prompt", "'prompt' must be a string, an array of one string, or an array of token ids (one prompt per request)");
}

}  // namespace

std::string ErrorBody(const ApiError& error) {
  json e = {{"message", error.message},
            {"type", error.type},
            {"param", error.param.empty() ? json(nullptr) : json(error.param)},
            {"code", error.code.empty() ? json(nullptr) : json(error.code)}};
  return Dump(json{{"error", e}});
}

std::optional<ApiError> CheckJsonObject(std::string_view body) {
  json j;
  return ParseJson(body, &j);
}

std::optional<ApiError> ParseCompletionRequest(std::string_view body, Endpoint endpoint, CompletionRequest* out) {
  json j;
  if (auto e = ParseJson(body, &j)) return e;
  out->endpoint = endpoint;
  if (auto it = j.find("model"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Invalid("model", fmt::format("'model' must be a string, got {}", TypeName(*it)));
    out->model = it->get<std::string>();
  }
  if (endpoint == Endpoint::kChatCompletions) {
    if (auto e = ReadMessages(j, &out->messages)) return e;
  } else {
    if (auto e = ReadPrompt(j, out)) return e;
  }
  if (auto e = ReadBool(j, "stream", &out->stream)) return e;
  if (auto it = j.find("stream_options"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Invalid("stream_options", "'stream_options' must be an object");
    if (auto e = ReadBool(*it, "include_usage", &out->include_usage)) return e;
  }
  GenerationParams& p = out->params;
  runtime::SamplerOptions& s = p.sampling;
  // OpenAI's defaults: temperature 1, top_p 1, no top-k, min-p or repetition penalty.
  double temperature = 1.0, top_p = 1.0, presence = 0.0, frequency = 0.0;
  if (auto e = ReadNumber(j, "temperature", 0.0, 2.0, &temperature)) return e;
  if (auto e = ReadNumber(j, "top_p", 0.0, 1.0, &top_p)) return e;
  if (auto e = ReadNumber(j, "presence_penalty", -2.0, 2.0, &presence)) return e;
  if (auto e = ReadNumber(j, "frequency_penalty", -2.0, 2.0, &frequency)) return e;
  if (top_p <= 0.0) return Invalid("top_p", "'top_p' must be greater than 0");
  s.temperature = static_cast<float>(temperature);
  s.top_p = static_cast<float>(top_p);
  s.top_k = 0;
  s.min_p = 0.0f;
  s.repeat_penalty = 1.0f;
  s.presence_penalty = static_cast<float>(presence);
  s.frequency_penalty = static_cast<float>(frequency);
  std::optional<int64_t> max_tokens, max_completion_tokens, n, seed, top_logprobs, top_k;
  if (auto e = ReadInt(j, "max_tokens", 1, INT32_MAX, &max_tokens)) return e;
  if (auto e = ReadInt(j, "max_completion_tokens", 1, INT32_MAX, &max_completion_tokens)) return e;
  p.max_tokens = max_completion_tokens.value_or(max_tokens.value_or(-1));
  if (auto e = ReadInt(j, "n", 1, 1, &n)) {
    e->message = "'n' must be 1: trit serve returns one choice per request";
    return e;
  }
  if (auto e = ReadInt(j, "seed", INT64_MIN, INT64_MAX, &seed)) return e;
  s.seed = seed.has_value() ? static_cast<uint64_t>(*seed) : std::random_device{}();
  // top_k is not OpenAI's, but llama.cpp's server and many clients send it.
  if (auto e = ReadInt(j, "top_k", 0, INT32_MAX, &top_k)) return e;
  s.top_k = static_cast<int32_t>(top_k.value_or(0));
  if (auto e = ReadBool(j, "ignore_eos", &p.ignore_eos)) return e;
  if (auto e = ReadStop(j, &p.stop)) return e;
  if (endpoint == Endpoint::kChatCompletions) {
    bool logprobs = false;
    if (auto e = ReadBool(j, "logprobs", &logprobs)) return e;
    if (auto e = ReadInt(j, "top_logprobs", 0, 20, &top_logprobs)) return e;
    if (top_logprobs.has_value() && !logprobs) return Invalid("top_logprobs", "'top_logprobs' needs 'logprobs': true");
    p.top_logprobs = logprobs ? static_cast<int32_t>(top_logprobs.value_or(0)) : -1;
  } else {
    std::optional<int64_t> logprobs;
    if (auto e = ReadInt(j, "logprobs", 0, 5, &logprobs)) return e;
    p.top_logprobs = logprobs.has_value() ? static_cast<int32_t>(*logprobs) : -1;
  }
  return std::nullopt;
}

const char* FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "cancelled";
    case FinishReason::kError:
    case FinishReason::kDisplaced: return "error";
    case FinishReason::kNone: break;
  }
  return "";
}

namespace {

json Bytes(const std::string& s) {
  json out = json::array();
  for (unsigned char c : s) out.push_back(static_cast<int>(c));
  return out;
}

json ChatLogprobs(const std::vector<TokenLogprob>& logprobs) {
  json content = json::array();
  for (const TokenLogprob& t : logprobs) {
    json top = json::array();
    for (const auto& [tok, lp] : t.top) top.push_back({{"token", tok}, {"logprob", lp}, {"bytes", Bytes(tok)}});
    content.push_back({{"token", t.token}, {"logprob", t.logprob}, {"bytes", Bytes(t.token)}, {"top_logprobs", top}});
  }
  return json{{"content", content}};
}

json CompletionLogprobs(const std::vector<TokenLogprob>& logprobs, size_t text_offset) {
  json tokens = json::array(), token_logprobs = json::array(), top = json::array(), offsets = json::array();
  for (const TokenLogprob& t : logprobs) {
    tokens.push_back(t.token);
    token_logprobs.push_back(t.logprob);
    json alternatives = json::object();
    for (const auto& [tok, lp] : t.top) alternatives[tok] = lp;
    top.push_back(alternatives);
    offsets.push_back(text_offset);
    text_offset += t.token.size();
  }
  return json{{"tokens", tokens}, {"token_logprobs", token_logprobs}, {"top_logprobs", top}, {"text_offset", offsets}};
}

json UsageJson(const Usage& u) {
  return json{{"prompt_tokens", u.prompt_tokens},
              {"completion_tokens", u.completion_tokens},
              {"total_tokens", u.prompt_tokens + u.completion_tokens}};
}

json Finish(FinishReason f) { return f == FinishReason::kNone ? json(nullptr) : json(FinishReasonName(f)); }

}  // namespace

std::string CompletionBody(Endpoint endpoint, const ResponseInfo& info, const std::string& text,
                           const std::vector<TokenLogprob>* logprobs, FinishReason finish, const Usage& usage) {
  json choice;
  if (endpoint == Endpoint::kChatCompletions) {
    choice = {{"index", 0},
              {"message", {{"role", "assistant"}, {"content", text}}},
              {"logprobs", logprobs != nullptr ? ChatLogprobs(*logprobs) : json(nullptr)},
              {"finish_reason", Finish(finish)}};
  } else {
    choice = {{"index", 0},
              {"text", text},
              {"logprobs", logprobs != nullptr ? CompletionLogprobs(*logprobs, 0) : json(nullptr)},
              {"finish_reason", Finish(finish)}};
  }
  return Dump(json{{"id", info.id},
                   {"object", endpoint == Endpoint::kChatCompletions ? "chat.completion" : "text_completion"},
                   {"created", info.created},
                   {"model", info.model},
                   {"system_fingerprint", "trit"},
                   {"choices", json::array({choice})},
                   {"usage", UsageJson(usage)}});
}

std::string ChunkBody(Endpoint endpoint, const ResponseInfo& info, const std::string& text,
                      const std::vector<TokenLogprob>* logprobs, FinishReason finish, bool first, bool usage_null) {
  json choice;
  if (endpoint == Endpoint::kChatCompletions) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || first) delta["content"] = text;
    choice = {{"index", 0},
              {"delta", delta},
              {"logprobs", logprobs != nullptr ? ChatLogprobs(*logprobs) : json(nullptr)},
              {"finish_reason", Finish(finish)}};
  } else {
    choice = {{"index", 0},
              {"text", text},
              {"logprobs", logprobs != nullptr ? CompletionLogprobs(*logprobs, 0) : json(nullptr)},
              {"finish_reason", Finish(finish)}};
  }
  json chunk = {{"id", info.id},
                {"object", endpoint == Endpoint::kChatCompletions ? "chat.completion.chunk" : "text_completion"},
                {"created", info.created},
                {"model", info.model},
                {"system_fingerprint", "trit"},
                {"choices", json::array({choice})}};
  if (usage_null) chunk["usage"] = nullptr;
  return Dump(chunk);
}

std::string UsageChunkBody(Endpoint endpoint, const ResponseInfo& info, const Usage& usage) {
  return Dump(json{{"id", info.id},
                   {"object", endpoint == Endpoint::kChatCompletions ? "chat.completion.chunk" : "text_completion"},
                   {"created", info.created},
                   {"model", info.model},
                   {"system_fingerprint", "trit"},
                   {"choices", json::array()},
                   {"usage", UsageJson(usage)}});
}

std::string ModelBody(const std::string& model_id, int64_t created) {
  return Dump(json{{"id", model_id}, {"object", "model"}, {"created", created}, {"owned_by", "trit"}});
}

std::string ModelsBody(const std::string& model_id, int64_t created) {
  return Dump(json{{"object", "list"},
                   {"data", json::array({json::parse(ModelBody(model_id, created))})}});
}

}  // namespace trit::server
