#include "server/openai_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <span>

#include "base/json_nesting.h"
#include "grammar/json_schema.h"

namespace trit::server {

using nlohmann::json;

namespace {

constexpr int kMaxDepth = 64;
// Choices of one request at most (OpenAI allows 128; each takes a slot).
constexpr int64_t kMaxChoices = 16;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

ApiError Invalid(std::string param, std::string message) {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  e.code = "invalid_value";
  return e;
}

std::optional<ApiError> ParseJson(std::string_view body, json* out) {
  if (!JsonNestingWithin(body, kMaxDepth)) {
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

// An assistant turn's tool_calls, a tool turn's tool_call_id, and name.
std::optional<ApiError> ReadToolFields(const json& m, const std::string& p, chat::ChatMessage* msg) {
  if (auto it = m.find("tool_calls"); it != m.end() && !it->is_null()) {
    if (!it->is_array()) return Invalid(p + ".tool_calls", fmt::format("'{}.tool_calls' must be an array", p));
    for (size_t k = 0; k < it->size(); ++k) {
      const json& call = (*it)[k];
      const std::string q = fmt::format("{}.tool_calls[{}]", p, k);
      const auto fn_it = call.is_object() ? call.find("function") : call.end();
      const json* fn = call.is_object() && fn_it != call.end() ? &*fn_it : nullptr;
      if (fn == nullptr || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string()) {
        return Invalid(q, fmt::format("'{}' must be {{\"type\": \"function\", \"function\": {{\"name\", \"arguments\"}}}}", q));
      }
      chat::ToolCall c;
      c.name = (*fn)["name"].get<std::string>();
      if (auto id = call.find("id"); id != call.end() && id->is_string()) c.id = id->get<std::string>();
      if (auto args = fn->find("arguments"); args != fn->end() && !args->is_null()) {
        // OpenAI sends a string of JSON; an object is taken as its text.
        c.arguments = args->is_string() ? args->get<std::string>() : Dump(*args);
      } else {
        c.arguments = "{}";
      }
      msg->tool_calls.push_back(std::move(c));
    }
  }
  for (const char* key : {"tool_call_id", "name"}) {
    auto it = m.find(key);
    if (it == m.end() || it->is_null()) continue;
    if (!it->is_string()) return Invalid(p + "." + key, fmt::format("'{}.{}' must be a string", p, key));
    (std::string_view(key) == "name" ? msg->name : msg->tool_call_id) = it->get<std::string>();
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
      msg.content_is_null = c->is_null();
    } else {
      msg.content_is_null = true;
    }
    if (auto e = ReadToolFields(m, p, &msg)) return e;
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

// The request fields each endpoint reads. OpenAI's own, plus the llama.cpp
// server's sampling fields that clients of local servers send (top_k, min_p,
// repeat_penalty, ignore_eos, grammar), and trit's "speculative".
constexpr std::string_view kCommonFields[] = {
    "model", "stream", "stream_options", "temperature", "top_p", "presence_penalty", "frequency_penalty",
    "max_tokens", "n", "seed", "stop", "logit_bias", "logprobs", "top_k", "min_p", "repeat_penalty",
    "ignore_eos", "grammar", "speculative"};
// chat_template_kwargs is vLLM's and llama-server's (template variables).
constexpr std::string_view kChatFields[] = {"messages",        "max_completion_tokens", "top_logprobs", "response_format",
                                            "tools",           "tool_choice",           "parallel_tool_calls",
                                            "chat_template_kwargs"};
constexpr std::string_view kCompletionFields[] = {"prompt", "echo", "best_of"};
// Fields OpenAI documents as not changing the answer: accepted and not used.
constexpr std::string_view kAdvisoryFields[] = {"user", "metadata", "store", "service_tier", "prediction"};

bool Listed(std::span<const std::string_view> list, std::string_view key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

bool IsEmptyOr(const json& v, std::string_view none) {
  return v.is_null() || (v.is_array() && v.empty()) || (v.is_string() && v.get<std::string>() == none);
}

// Fields that trit does not implement and that would change the answer are
// refused by name; so are fields no endpoint knows (as OpenAI refuses them).
std::optional<ApiError> CheckFields(const json& body, Endpoint endpoint) {
  const bool chat = endpoint == Endpoint::kChatCompletions;
  for (const auto& [key, value] : body.items()) {
    if (Listed(kCommonFields, key) || Listed(kAdvisoryFields, key) ||
        Listed(chat ? std::span<const std::string_view>(kChatFields) : kCompletionFields, key)) {
      continue;
    }
    // Present but saying "none" changes nothing.
    if (key == "functions" && IsEmptyOr(value, "")) continue;
    if (key == "function_call" && IsEmptyOr(value, "none")) continue;
    if (key == "modalities" && value.is_array() && value.size() == 1 && value[0] == "text") continue;
    if (key == "functions" || key == "function_call") {
      ApiError e = Invalid(key, fmt::format("'{}' is OpenAI's deprecated form of tools; send 'tools' and "
                                            "'tool_choice' instead", key));
      e.code = "unsupported_parameter";
      return e;
    }
    if (key == "suffix" || key == "audio" || key == "modalities" || key == "reasoning_effort" ||
        key == "web_search_options" || key == "verbosity") {
      ApiError e = Invalid(key, fmt::format("'{}' is not supported by trit serve; send the request without it "
                                            "(trit refuses what it would otherwise ignore)", key));
      e.code = "unsupported_parameter";
      return e;
    }
    const bool other_endpoint = chat ? Listed(kCompletionFields, key) : Listed(kChatFields, key);
    ApiError e = Invalid(key, other_endpoint
                                  ? fmt::format("'{}' is a parameter of {}, not of this endpoint", key,
                                                chat ? "/v1/completions" : "/v1/chat/completions")
                                  : fmt::format("unrecognized request argument '{}'", key));
    e.code = "unknown_parameter";
    return e;
  }
  return std::nullopt;
}

// logit_bias: {"<token id>": bias in [-100, 100], ...}.
std::optional<ApiError> ReadLogitBias(const json& body, std::vector<std::pair<int32_t, float>>* out) {
  auto it = body.find("logit_bias");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) return Invalid("logit_bias", "'logit_bias' must be an object mapping token ids to numbers");
  for (const auto& [key, value] : it->items()) {
    int64_t id = -1;
    const bool digits = !key.empty() && key.size() <= 10 &&
                        std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) id = std::stoll(key);
    if (id < 0 || id > INT32_MAX) {
      return Invalid("logit_bias", fmt::format("'logit_bias' key '{}' is not a token id", key));
    }
    if (!value.is_number() || !(value.get<double>() >= -100.0 && value.get<double>() <= 100.0)) {
      return Invalid("logit_bias", fmt::format("'logit_bias' of token {} must be a number in [-100, 100]", key));
    }
    out->emplace_back(static_cast<int32_t>(id), static_cast<float>(value.get<double>()));
  }
  std::sort(out->begin(), out->end());  // by id ("17" sorts before "5" as a key)
  return std::nullopt;
}

bool ValidFunctionName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// tools, tool_choice, parallel_tool_calls (chat). `body` is the request's
// text: the tools are read again keeping their keys' order, which templates
// print.
std::optional<ApiError> ReadTools(const json& j, std::string_view body, ToolsRequest* out) {
  auto it = j.find("tools");
  const bool given = it != j.end() && !it->is_null() && !(it->is_array() && it->empty());
  if (given) {
    if (!it->is_array()) return Invalid("tools", "'tools' must be an array of {\"type\": \"function\", \"function\": {...}}");
    const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(body.begin(), body.end(), nullptr, false);
    const nlohmann::ordered_json& tools = ordered["tools"];
    for (size_t i = 0; i < tools.size(); ++i) {
      const auto& t = tools[i];
      const std::string p = fmt::format("tools[{}]", i);
      if (!t.is_object() || t.value("type", nlohmann::ordered_json()) != "function" || !t.contains("function") ||
          !t["function"].is_object()) {
        return Invalid("tools", fmt::format("'{}' must be {{\"type\": \"function\", \"function\": {{...}}}}", p));
      }
      const auto& fn = t["function"];
      const std::string name = fn.value("name", nlohmann::ordered_json()).is_string() ? fn["name"].get<std::string>() : "";
      if (!ValidFunctionName(name)) {
        return Invalid("tools", fmt::format("'{}.function.name' must be 1 to 64 characters of a-z, A-Z, 0-9, _ and -", p));
      }
      for (const ToolSpec& other : out->functions) {
        if (other.name == name) return Invalid("tools", fmt::format("two tools are named '{}'", name));
      }
      ToolSpec spec{name, ""};
      if (auto params = fn.find("parameters"); params != fn.end() && !params->is_null()) {
        if (!params->is_object()) {
          return Invalid("tools", fmt::format("'{}.function.parameters' must be a JSON Schema object", p));
        }
        spec.parameters = params->dump();
      }
      out->functions.push_back(std::move(spec));
    }
    out->tools_json = tools.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    out->choice = ToolChoice::kAuto;
  }
  if (auto c = j.find("tool_choice"); c != j.end() && !c->is_null()) {
    if (c->is_string() && (*c == "none" || *c == "auto" || *c == "required")) {
      out->choice = *c == "none" ? ToolChoice::kNone : *c == "auto" ? ToolChoice::kAuto : ToolChoice::kRequired;
    } else if (c->is_object() && c->value("type", json()) == "function" && c->contains("function") &&
               (*c)["function"].is_object() && (*c)["function"].value("name", json()).is_string()) {
      out->choice = ToolChoice::kFunction;
      out->function = (*c)["function"]["name"].get<std::string>();
      const bool offered = std::any_of(out->functions.begin(), out->functions.end(),
                                       [&](const ToolSpec& s) { return s.name == out->function; });
      if (!offered) {
        return Invalid("tool_choice", fmt::format("'tool_choice' names function '{}', which 'tools' does not offer",
                                                  out->function));
      }
    } else {
      return Invalid("tool_choice", "'tool_choice' must be \"none\", \"auto\", \"required\" or "
                                    "{\"type\": \"function\", \"function\": {\"name\": ...}}");
    }
    if (!given && (out->choice == ToolChoice::kRequired || out->choice == ToolChoice::kFunction)) {
      return Invalid("tool_choice", "'tool_choice' asks for a tool call, but the request offers no 'tools'");
    }
    if (!given) out->choice = ToolChoice::kNone;
  }
  if (auto e = ReadBool(j, "parallel_tool_calls", &out->parallel)) return e;
  return std::nullopt;
}

// chat_template_kwargs (chat): an object of extra template variables, kept
// as text in the body's key order (a template may print them). Names the
// renderer sets itself are refused here, before any model is involved.
std::optional<ApiError> ReadTemplateKwargs(const json& j, std::string_view body, std::string* out) {
  auto it = j.find("chat_template_kwargs");
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) {
    return Invalid("chat_template_kwargs", fmt::format("'chat_template_kwargs' must be an object of template "
                                                       "variables, got {}", TypeName(*it)));
  }
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(body.begin(), body.end(), nullptr, false);
  *out = ordered["chat_template_kwargs"].dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (Status s = chat::CheckTemplateKwargs(*out); !s.ok()) return Invalid("chat_template_kwargs", s.message());
  return std::nullopt;
}

// `grammar` (GBNF text) or `response_format`, compiled into a grammar.
std::optional<ApiError> ReadConstraint(const json& body, Endpoint endpoint, CompletionRequest* out) {
  std::string gbnf;
  const char* param = "";
  if (auto it = body.find("grammar"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) return Invalid("grammar", "'grammar' must be a string of GBNF rules");
    gbnf = it->get<std::string>();
    param = "grammar";
    out->constraint = Constraint::kGbnf;
  }
  auto rf = body.find("response_format");
  if (endpoint == Endpoint::kChatCompletions && rf != body.end() && !rf->is_null()) {
    if (!rf->is_object() || !rf->contains("type") || !(*rf)["type"].is_string()) {
      return Invalid("response_format", "'response_format' must be an object with a string 'type'");
    }
    const std::string type = (*rf)["type"].get<std::string>();
    if (type != "text") {
      if (out->constraint != Constraint::kNone) {
        return Invalid("response_format", "give 'grammar' or 'response_format', not both");
      }
      param = "response_format";
      if (type == "json_object") {
        out->constraint = Constraint::kJsonObject;
        gbnf = grammar::JsonObjectGbnf();
      } else if (type == "json_schema") {
        auto spec = rf->find("json_schema");
        if (spec == rf->end() || !spec->is_object()) {
          return Invalid("response_format", "'response_format' of type json_schema needs a 'json_schema' object");
        }
        out->constraint = Constraint::kJsonSchema;
        auto schema = spec->find("schema");
        // No schema: any JSON value.
        const std::string text = schema == spec->end() || schema->is_null() ? "{}" : Dump(*schema);
        Expected<std::string> converted = grammar::JsonSchemaToGbnf(text);
        if (!converted.ok()) {
          return Invalid("response_format", fmt::format("'response_format.json_schema.schema': {}",
                                                        converted.status().message()));
        }
        gbnf = std::move(converted).value();
      } else {
        return Invalid("response_format", fmt::format("'response_format.type' is '{}'; expected text, json_object "
                                                      "or json_schema", type));
      }
    }
  }
  if (out->constraint == Constraint::kNone) return std::nullopt;
  Expected<std::shared_ptr<const grammar::Grammar>> compiled = grammar::ParseGbnf(gbnf);
  if (!compiled.ok()) {
    return Invalid(param, fmt::format("'{}' {}: {}", param,
                                      out->constraint == Constraint::kGbnf ? "is not a valid GBNF grammar"
                                                                           : "gave a grammar trit cannot compile",
                                      compiled.status().message()));
  }
  out->params.grammar = std::move(compiled).value();
  return std::nullopt;
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
  if (auto e = CheckFields(j, endpoint)) return e;
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
  double temperature = 1.0, top_p = 1.0, presence = 0.0, frequency = 0.0, min_p = 0.0, repeat = 1.0;
  if (auto e = ReadNumber(j, "temperature", 0.0, 2.0, &temperature)) return e;
  if (auto e = ReadNumber(j, "min_p", 0.0, 1.0, &min_p)) return e;
  if (auto e = ReadNumber(j, "repeat_penalty", 0.0, 10.0, &repeat)) return e;
  if (repeat <= 0.0) return Invalid("repeat_penalty", "'repeat_penalty' must be greater than 0");
  if (auto e = ReadNumber(j, "top_p", 0.0, 1.0, &top_p)) return e;
  if (auto e = ReadNumber(j, "presence_penalty", -2.0, 2.0, &presence)) return e;
  if (auto e = ReadNumber(j, "frequency_penalty", -2.0, 2.0, &frequency)) return e;
  if (top_p <= 0.0) return Invalid("top_p", "'top_p' must be greater than 0");
  s.temperature = static_cast<float>(temperature);
  s.top_p = static_cast<float>(top_p);
  s.top_k = 0;
  s.min_p = static_cast<float>(min_p);
  s.repeat_penalty = static_cast<float>(repeat);
  s.presence_penalty = static_cast<float>(presence);
  s.frequency_penalty = static_cast<float>(frequency);
  std::optional<int64_t> max_tokens, max_completion_tokens, n, seed, top_logprobs, top_k;
  if (auto e = ReadInt(j, "max_tokens", 1, INT32_MAX, &max_tokens)) return e;
  if (auto e = ReadInt(j, "max_completion_tokens", 1, INT32_MAX, &max_completion_tokens)) return e;
  p.max_tokens = max_completion_tokens.value_or(max_tokens.value_or(-1));
  if (auto e = ReadInt(j, "n", 1, kMaxChoices, &n)) return e;
  out->n = static_cast<int32_t>(n.value_or(1));
  if (auto e = ReadInt(j, "seed", INT64_MIN, INT64_MAX, &seed)) return e;
  s.seed = seed.has_value() ? static_cast<uint64_t>(*seed) : std::random_device{}();
  // top_k is not OpenAI's, but llama.cpp's server and many clients send it.
  if (auto e = ReadInt(j, "top_k", 0, INT32_MAX, &top_k)) return e;
  s.top_k = static_cast<int32_t>(top_k.value_or(0));
  if (auto e = ReadBool(j, "ignore_eos", &p.ignore_eos)) return e;
  if (auto e = ReadBool(j, "speculative", &p.speculative)) return e;
  if (auto e = ReadStop(j, &p.stop)) return e;
  if (auto e = ReadLogitBias(j, &p.logit_bias)) return e;
  if (endpoint == Endpoint::kCompletions) {
    std::optional<int64_t> best_of;
    if (auto e = ReadInt(j, "best_of", 1, 1, &best_of)) {
      e->message = "'best_of' must be 1: trit serve returns one completion per request";
      return e;
    }
    if (auto e = ReadBool(j, "echo", &out->echo)) return e;
  }
  if (auto e = ReadConstraint(j, endpoint, out)) return e;
  if (endpoint == Endpoint::kChatCompletions) {
    if (auto e = ReadTools(j, body, &out->tools)) return e;
    if (auto e = ReadTemplateKwargs(j, body, &out->chat_template_kwargs)) return e;
    const bool forced = out->tools.choice == ToolChoice::kRequired || out->tools.choice == ToolChoice::kFunction;
    if (forced && out->constraint != Constraint::kNone) {
      return Invalid("tool_choice", "a required tool call cannot be combined with 'response_format' or 'grammar'");
    }
  }
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
    if (out->echo && p.top_logprobs >= 0) {
      return Invalid("echo", "'echo' with 'logprobs' is not supported: trit serve gives no logprobs for prompt tokens");
    }
  }
  return std::nullopt;
}

const char* FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "cancelled";
    case FinishReason::kToolCalls: return "tool_calls";
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
              {"total_tokens", u.prompt_tokens + u.completion_tokens},
              {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
}

json ToolCallsJson(const std::vector<ReplyToolCall>& calls, bool with_index) {
  json out = json::array();
  for (size_t k = 0; k < calls.size(); ++k) {
    json call = {{"id", calls[k].id},
                 {"type", "function"},
                 {"function", {{"name", calls[k].call.name}, {"arguments", calls[k].call.arguments}}}};
    if (with_index) call["index"] = k;  // stream deltas say which call they extend
    out.push_back(std::move(call));
  }
  return out;
}

json Finish(FinishReason f) { return f == FinishReason::kNone ? json(nullptr) : json(FinishReasonName(f)); }

}  // namespace

std::string CompletionBody(Endpoint endpoint, const ResponseInfo& info, std::span<const Choice> choices,
                           const Usage& usage) {
  json out = json::array();
  for (size_t i = 0; i < choices.size(); ++i) {
    const Choice& c = choices[i];
    if (endpoint == Endpoint::kChatCompletions) {
      json message = {{"role", "assistant"},
                      {"content", c.text.empty() && !c.tool_calls.empty() ? json(nullptr) : json(c.text)}};
      if (!c.tool_calls.empty()) message["tool_calls"] = ToolCallsJson(c.tool_calls, /*with_index=*/false);
      out.push_back({{"index", i},
                     {"message", message},
                     {"logprobs", c.logprobs != nullptr ? ChatLogprobs(*c.logprobs) : json(nullptr)},
                     {"finish_reason", Finish(c.finish)}});
    } else {
      out.push_back({{"index", i},
                     {"text", c.text},
                     {"logprobs", c.logprobs != nullptr ? CompletionLogprobs(*c.logprobs, 0) : json(nullptr)},
                     {"finish_reason", Finish(c.finish)}});
    }
  }
  return Dump(json{{"id", info.id},
                   {"object", endpoint == Endpoint::kChatCompletions ? "chat.completion" : "text_completion"},
                   {"created", info.created},
                   {"model", info.model},
                   {"system_fingerprint", "trit"},
                   {"choices", out},
                   {"usage", UsageJson(usage)}});
}

std::string ChunkBody(Endpoint endpoint, const ResponseInfo& info, int index, const std::string& text,
                      const std::vector<TokenLogprob>* logprobs, FinishReason finish, bool first, bool usage_null) {
  json choice;
  if (endpoint == Endpoint::kChatCompletions) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (!text.empty() || first) delta["content"] = text;
    choice = {{"index", index},
              {"delta", delta},
              {"logprobs", logprobs != nullptr ? ChatLogprobs(*logprobs) : json(nullptr)},
              {"finish_reason", Finish(finish)}};
  } else {
    choice = {{"index", index},
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

std::string ToolCallsChunkBody(const ResponseInfo& info, int index, const std::vector<ReplyToolCall>& calls,
                               bool usage_null) {
  json chunk = {{"id", info.id},
                {"object", "chat.completion.chunk"},
                {"created", info.created},
                {"model", info.model},
                {"system_fingerprint", "trit"},
                {"choices", json::array({{{"index", index},
                                          {"delta", {{"tool_calls", ToolCallsJson(calls, /*with_index=*/true)}}},
                                          {"logprobs", nullptr},
                                          {"finish_reason", nullptr}}})}};
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

std::string ModelBody(const ModelEntry& model, int64_t created) {
  return Dump(json{{"id", model.id}, {"object", "model"}, {"created", created}, {"owned_by", "trit"},
                   {"loaded", model.loaded}});
}

std::string ModelsBody(const std::vector<ModelEntry>& models, int64_t created) {
  json data = json::array();
  for (const ModelEntry& m : models) data.push_back(json::parse(ModelBody(m, created)));
  return Dump(json{{"object", "list"}, {"data", data}});
}

}  // namespace trit::server
