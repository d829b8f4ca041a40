#include "server/tool_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/check.h"
#include "grammar/json_schema.h"

namespace trit::server {

using nlohmann::json;

namespace {

constexpr std::string_view kHermesOpen = "<tool_call>";
constexpr std::string_view kHermesClose = "</tool_call>";
constexpr std::string_view kMistralMarker = "[TOOL_CALLS]";
constexpr std::string_view kPythonTag = "<|python_tag|>";
constexpr std::string_view kGemma4Open = "<|tool_call>";
constexpr std::string_view kGemma4Call = "<|tool_call>call:";
constexpr std::string_view kGemma4Close = "<tool_call|>";
constexpr std::string_view kGemma4Quote = "<|\"|>";
// Qwen3.5's (and Qwen3-Coder's) calls sit between Hermes' <tool_call> marks.
constexpr std::string_view kQwenFunction = "<function=";
constexpr std::string_view kQwenFunctionClose = "</function>";
constexpr std::string_view kQwenParameter = "<parameter=";
constexpr std::string_view kQwenParameterClose = "</parameter>";

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

json Parse(std::string_view text) { return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false); }

// One call object: {"name": one of `functions`, "arguments" or "parameters":
// an object, or a string holding one}. Missing arguments: none ({}).
bool ReadCall(const json& call, std::span<const std::string> functions, ToolCall* out) {
  if (!call.is_object()) return false;
  auto name = call.find("name");
  if (name == call.end() || !name->is_string()) return false;
  const std::string n = name->get<std::string>();
  if (std::find(functions.begin(), functions.end(), n) == functions.end()) return false;
  auto args = call.find("arguments");
  if (args == call.end()) args = call.find("parameters");
  json value = json::object();
  if (args != call.end()) {
    value = args->is_string() ? Parse(args->get<std::string>()) : *args;
    if (!value.is_object()) return false;
  }
  *out = ToolCall{n, value.dump()};
  return true;
}

// An object that is a call, an array of calls, or {"tool_calls": [...]}:
// every element must be a call.
bool ReadCalls(const json& value, std::span<const std::string> functions, std::vector<ToolCall>* out) {
  const json* list = &value;
  json single;
  if (value.is_object() && value.contains("tool_calls") && !value.contains("name")) {
    list = &value["tool_calls"];
  } else if (value.is_object()) {
    single = json::array({value});
    list = &single;
  }
  if (!list->is_array() || list->empty()) return false;
  std::vector<ToolCall> calls;
  for (const json& element : *list) {
    // OpenAI's own shape, {"type": "function", "function": {...}}, too.
    const json& call = element.is_object() && element.contains("function") ? element["function"] : element;
    ToolCall c;
    if (!ReadCall(call, functions, &c)) return false;
    calls.push_back(std::move(c));
  }
  *out = std::move(calls);
  return true;
}

// Calls written between an opening and a closing marker amid text (Hermes,
// Gemma 4): `read` turns one body into a call; a body it refuses stays
// content, markers included. A reply cut off at the end of its turn may lack
// the last closing marker.
template <class ReadBody>
ToolReply ParseMarkedCalls(std::string_view text, std::string_view open_marker, std::string_view close_marker,
                           const ReadBody& read) {
  ToolReply reply;
  std::string content;
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find(open_marker, at);
    if (open == std::string_view::npos) break;
    const size_t inner = open + open_marker.size();
    size_t close = text.find(close_marker, inner);
    const size_t end = close == std::string_view::npos ? text.size() : close + close_marker.size();
    if (close == std::string_view::npos) close = text.size();
    ToolCall call;
    if (!read(text.substr(inner, close - inner), &call)) {
      content.append(text.substr(at, end - at));
    } else {
      content.append(text.substr(at, open - at));
      reply.calls.push_back(std::move(call));
    }
    at = end;
  }
  content.append(text.substr(std::min(at, text.size())));
  reply.content = std::string(Trim(content));
  return reply;
}

ToolReply ParseHermes(std::string_view text, std::span<const std::string> functions) {
  return ParseMarkedCalls(text, kHermesOpen, kHermesClose, [&](std::string_view body, ToolCall* call) {
    return ReadCall(Parse(Trim(body)), functions, call);
  });
}

ToolReply ParseLlama3(std::string_view text, std::span<const std::string> functions) {
  std::string_view body = Trim(text);
  if (body.starts_with(kPythonTag)) body = Trim(body.substr(kPythonTag.size()));
  ToolReply reply;
  // Several calls may be separated by ';' (as Llama's examples write them).
  std::vector<ToolCall> calls;
  json value = Parse(body);
  if (value.is_object()) {
    ToolCall c;
    if (ReadCall(value, functions, &c)) calls.push_back(std::move(c));
  } else if (body.starts_with('{')) {
    std::string_view rest = body;
    while (!rest.empty()) {
      const size_t semi = rest.find("};");
      const std::string_view piece = Trim(rest.substr(0, semi == std::string_view::npos ? rest.size() : semi + 1));
      ToolCall c;
      if (!ReadCall(Parse(piece), functions, &c)) {
        calls.clear();
        break;
      }
      calls.push_back(std::move(c));
      rest = semi == std::string_view::npos ? std::string_view() : Trim(rest.substr(semi + 2));
    }
  }
  if (calls.empty()) {
    reply.content = std::string(Trim(text));
  } else {
    reply.calls = std::move(calls);
  }
  return reply;
}

ToolReply ParseMistral(std::string_view text, std::span<const std::string> functions) {
  ToolReply reply;
  const size_t marker = text.find(kMistralMarker);
  if (marker == std::string_view::npos ||
      !ReadCalls(Parse(Trim(text.substr(marker + kMistralMarker.size()))), functions, &reply.calls)) {
    reply.content = std::string(Trim(text));
    return reply;
  }
  reply.content = std::string(Trim(text.substr(0, marker)));
  return reply;
}

ToolReply ParseJson(std::string_view text, std::span<const std::string> functions) {
  std::string_view body = Trim(text);
  // A fenced block: ```json ... ``` or ``` ... ```.
  if (body.starts_with("```") && body.ends_with("```") && body.size() >= 6) {
    body = body.substr(3, body.size() - 6);
    if (body.starts_with("json")) body.remove_prefix(4);
    body = Trim(body);
  }
  ToolReply reply;
  if (!ReadCalls(Parse(body), functions, &reply.calls)) reply.content = std::string(Trim(text));
  return reply;
}

// Gemma 4's call arguments (its chat template's format_argument with bare
// keys) read into JSON: strings between <|"|> marks, bare or quoted keys,
// numbers, true/false/null, objects and arrays. `at` advances past the value.
class Gemma4ArgumentReader {
 public:
  explicit Gemma4ArgumentReader(std::string_view text) : text_(text) {}

  bool Value(size_t* at, int depth, json* out) const {
    if (depth > 64) return false;
    SkipSpaces(at);
    if (*at >= text_.size()) return false;
    if (text_.substr(*at).starts_with(kGemma4Quote)) return Quoted(at, out);
    if (text_[*at] == '{') return Object(at, depth, out);
    if (text_[*at] == '[') {
      ++*at;
      *out = json::array();
      SkipSpaces(at);
      if (*at < text_.size() && text_[*at] == ']') return ++*at, true;
      while (true) {
        json item;
        if (!Value(at, depth + 1, &item)) return false;
        out->push_back(std::move(item));
        SkipSpaces(at);
        if (*at >= text_.size()) return false;
        if (text_[(*at)++] == ']') return true;
        if (text_[*at - 1] != ',') return false;
      }
    }
    // A bare scalar: up to the next delimiter, and it must be a JSON number or literal.
    const size_t end = text_.find_first_of(",}]", *at);
    const std::string_view bare = Trim(text_.substr(*at, (end == std::string_view::npos ? text_.size() : end) - *at));
    json v = Parse(bare);
    if (bare.empty() || !(v.is_number() || v.is_boolean() || v.is_null())) return false;
    *out = std::move(v);
    *at = end == std::string_view::npos ? text_.size() : end;
    return true;
  }

  bool Object(size_t* at, int depth, json* out) const {
    if (*at >= text_.size() || text_[*at] != '{') return false;
    ++*at;
    *out = json::object();
    SkipSpaces(at);
    if (*at < text_.size() && text_[*at] == '}') return ++*at, true;
    while (true) {
      SkipSpaces(at);
      std::string key;
      if (text_.substr(*at).starts_with(kGemma4Quote)) {
        json k;
        if (!Quoted(at, &k)) return false;
        key = k.get<std::string>();
      } else {
        const size_t colon = text_.find(':', *at);
        if (colon == std::string_view::npos) return false;
        key = std::string(Trim(text_.substr(*at, colon - *at)));
        if (key.empty() || key.find_first_of("{}[],") != std::string::npos) return false;
        *at = colon;
      }
      SkipSpaces(at);
      if (*at >= text_.size() || text_[*at] != ':') return false;
      ++*at;
      json value;
      if (!Value(at, depth + 1, &value)) return false;
      (*out)[key] = std::move(value);
      SkipSpaces(at);
      if (*at >= text_.size()) return false;
      if (text_[(*at)++] == '}') return true;
      if (text_[*at - 1] != ',') return false;
    }
  }

 private:
  bool Quoted(size_t* at, json* out) const {
    const size_t begin = *at + kGemma4Quote.size();
    const size_t end = text_.find(kGemma4Quote, begin);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(begin, end - begin));
    *at = end + kGemma4Quote.size();
    return true;
  }
  void SkipSpaces(size_t* at) const {
    while (*at < text_.size() && (text_[*at] == ' ' || text_[*at] == '\n' || text_[*at] == '\t' || text_[*at] == '\r')) {
      ++*at;
    }
  }

  std::string_view text_;
};

// One Gemma 4 call's body (after "<|tool_call>call:", up to "<tool_call|>"):
// a function name, then its arguments object.
bool ReadGemma4Call(std::string_view body, std::span<const std::string> functions, ToolCall* out) {
  const size_t brace = body.find('{');
  if (brace == std::string_view::npos) return false;
  const std::string name(Trim(body.substr(0, brace)));
  if (std::find(functions.begin(), functions.end(), name) == functions.end()) return false;
  const Gemma4ArgumentReader reader(body);
  size_t at = brace;
  json args;
  if (!reader.Object(&at, 0, &args) || !Trim(body.substr(at)).empty()) return false;
  *out = ToolCall{name, args.dump()};
  return true;
}

ToolReply ParseGemma4(std::string_view text, std::span<const std::string> functions) {
  return ParseMarkedCalls(text, kGemma4Call, kGemma4Close, [&](std::string_view body, ToolCall* call) {
    return ReadGemma4Call(body, functions, call);
  });
}

using ojson = nlohmann::ordered_json;

// Whether a parameter's JSON Schema makes its value text: "type" "string"
// (or a list of types holding it), or no type and an enum or const of
// strings only. Such a value stays a string even when it reads as JSON
// ("42", "true"), as llama.cpp's qwen3-coder parser keeps it.
bool StringTyped(const ojson& schema) {
  if (!schema.is_object()) return false;
  if (auto type = schema.find("type"); type != schema.end()) {
    if (type->is_array()) return std::find(type->begin(), type->end(), ojson("string")) != type->end();
    return *type == "string";
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array() && !e->empty()) {
    return std::all_of(e->begin(), e->end(), [](const ojson& v) { return v.is_string(); });
  }
  auto c = schema.find("const");
  return c != schema.end() && c->is_string();
}

// One argument's text as the template writes it (`value | string`, or
// |tojson for objects and lists): JSON where it parses to anything but a
// string and the schema does not ask for text, else the text itself.
// Python's True/False (what `| string` makes of a bool) count for a
// boolean parameter.
ojson QwenArgument(std::string_view text, const ojson* schema) {
  if (schema != nullptr && StringTyped(*schema)) return std::string(text);
  if (schema != nullptr && schema->is_object() && schema->value("type", ojson()) == "boolean" &&
      (text == "True" || text == "False")) {
    return text == "True";
  }
  ojson value = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded() && !value.is_string()) return value;
  return std::string(text);
}

// One Qwen XML call's body (between <tool_call> and </tool_call>):
// <function=NAME>, then a <parameter=KEY>\nVALUE\n</parameter> block per
// argument (one newline each side of the value is the template's, the rest
// is the value's), then </function>. Arguments keep the order written.
bool ReadQwenXmlCall(std::string_view body, std::span<const ToolSpec> functions, ToolCall* out) {
  std::string_view rest = Trim(body);
  if (!rest.starts_with(kQwenFunction)) return false;
  rest.remove_prefix(kQwenFunction.size());
  const size_t name_end = rest.find('>');
  if (name_end == std::string_view::npos) return false;
  const std::string name(Trim(rest.substr(0, name_end)));
  const auto spec = std::find_if(functions.begin(), functions.end(), [&](const ToolSpec& f) { return f.name == name; });
  if (spec == functions.end()) return false;
  rest.remove_prefix(name_end + 1);
  const ojson schema = spec->parameters.empty() ? ojson()
                                                : ojson::parse(spec->parameters.begin(), spec->parameters.end(),
                                                               nullptr, /*allow_exceptions=*/false);
  const ojson* properties = nullptr;
  if (schema.is_object() && schema.contains("properties") && schema["properties"].is_object()) {
    properties = &schema["properties"];
  }
  ojson args = ojson::object();
  while (true) {
    rest = Trim(rest);
    if (rest.starts_with(kQwenFunctionClose)) break;
    if (!rest.starts_with(kQwenParameter)) return false;
    rest.remove_prefix(kQwenParameter.size());
    const size_t key_end = rest.find('>');
    if (key_end == std::string_view::npos) return false;
    const std::string key(Trim(rest.substr(0, key_end)));
    if (key.empty() || key.find_first_of("<\n") != std::string::npos || args.contains(key)) return false;
    rest.remove_prefix(key_end + 1);
    const size_t close = rest.find(kQwenParameterClose);
    if (close == std::string_view::npos) return false;
    std::string_view value = rest.substr(0, close);
    if (value.starts_with('\n')) value.remove_prefix(1);
    if (value.ends_with('\n')) value.remove_suffix(1);
    const ojson* property = nullptr;
    if (properties != nullptr && properties->contains(key)) property = &(*properties)[key];
    args[key] = QwenArgument(value, property);
    rest.remove_prefix(close + kQwenParameterClose.size());
  }
  if (!Trim(rest.substr(kQwenFunctionClose.size())).empty()) return false;
  *out = ToolCall{name, args.dump()};
  return true;
}

ToolReply ParseQwenXml(std::string_view text, std::span<const ToolSpec> functions) {
  return ParseMarkedCalls(text, kHermesOpen, kHermesClose, [&](std::string_view body, ToolCall* call) {
    return ReadQwenXmlCall(body, functions, call);
  });
}

// GBNF string literal of `text` (quotes included).
std::string Literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The length of `text` without the longest tail that is a proper prefix of
// `marker` (a marker arriving in pieces).
size_t BeforePartialMarker(std::string_view text, std::string_view marker) {
  for (size_t n = std::min(text.size(), marker.size() - 1); n > 0; --n) {
    if (marker.starts_with(text.substr(text.size() - n))) return text.size() - n;
  }
  return text.size();
}

}  // namespace

std::string_view StreamableContent(std::string_view text, ToolCallFormat format) {
  size_t begin = 0;
  while (begin < text.size() && IsSpace(text[begin])) ++begin;
  size_t end = text.size();
  if (format == ToolCallFormat::kHermes || format == ToolCallFormat::kQwenXml || format == ToolCallFormat::kMistral ||
      format == ToolCallFormat::kGemma4) {
    const std::string_view marker = format == ToolCallFormat::kGemma4    ? kGemma4Open
                                    : format == ToolCallFormat::kMistral ? kMistralMarker
                                                                         : kHermesOpen;
    const size_t at = text.find(marker);
    end = at != std::string_view::npos ? at : BeforePartialMarker(text, marker);
  } else {
    // A call is the whole reply: what begins like one (or may yet) is held.
    const std::string_view rest = text.substr(begin);
    for (std::string_view opener : {std::string_view("{"), std::string_view("["), std::string_view("```"), kPythonTag}) {
      if (rest.starts_with(opener) || opener.starts_with(rest)) return {};
    }
  }
  while (end > begin && IsSpace(text[end - 1])) --end;
  return end > begin ? text.substr(begin, end - begin) : std::string_view();
}

std::string_view ToolCallFormatName(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::kHermes: return "hermes";
    case ToolCallFormat::kLlama3: return "llama3";
    case ToolCallFormat::kMistral: return "mistral";
    case ToolCallFormat::kGemma4: return "gemma4";
    case ToolCallFormat::kQwenXml: return "qwen-xml";
    case ToolCallFormat::kJson: return "json";
  }
  return "json";
}

ToolCallFormat DetectToolCallFormat(std::string_view chat_template) {
  if (chat_template.find(kGemma4Call) != std::string_view::npos) return ToolCallFormat::kGemma4;
  // Before Hermes: Qwen3.5's template writes its XML calls inside <tool_call>.
  if (chat_template.find(kQwenFunction) != std::string_view::npos &&
      chat_template.find(kQwenParameter) != std::string_view::npos) {
    return ToolCallFormat::kQwenXml;
  }
  if (chat_template.find(kHermesOpen) != std::string_view::npos) return ToolCallFormat::kHermes;
  if (chat_template.find(kMistralMarker) != std::string_view::npos) return ToolCallFormat::kMistral;
  // Llama 3.1-3.3 announce "Environment: ipython" and ask for "parameters".
  if (chat_template.find(kPythonTag) != std::string_view::npos ||
      (chat_template.find("ipython") != std::string_view::npos &&
       chat_template.find("<|start_header_id|>") != std::string_view::npos)) {
    return ToolCallFormat::kLlama3;
  }
  return ToolCallFormat::kJson;
}

ToolReply ParseToolReply(std::string_view text, ToolCallFormat format, std::span<const ToolSpec> tools) {
  if (format == ToolCallFormat::kQwenXml) return ParseQwenXml(text, tools);
  // The JSON forms check names only; their arguments arrive typed.
  std::vector<std::string> names;
  for (const ToolSpec& tool : tools) names.push_back(tool.name);
  const std::span<const std::string> functions(names);
  switch (format) {
    case ToolCallFormat::kHermes: return ParseHermes(text, functions);
    case ToolCallFormat::kLlama3: return ParseLlama3(text, functions);
    case ToolCallFormat::kMistral: return ParseMistral(text, functions);
    case ToolCallFormat::kGemma4: return ParseGemma4(text, functions);
    case ToolCallFormat::kQwenXml:  // read above
    case ToolCallFormat::kJson: return ParseJson(text, functions);
  }
  return ParseJson(text, functions);
}

namespace {

// Gemma 4's call syntax over the given function names (its arguments are not
// JSON, so no JSON Schema grammar applies to them).
std::string Gemma4CallGbnf(std::span<const ToolSpec> tools, bool parallel) {
  std::string names;
  for (const ToolSpec& tool : tools) names += (names.empty() ? "" : " | ") + Literal(tool.name);
  const std::string quote = Literal(kGemma4Quote);
  std::string g;
  g += fmt::format("root ::= CALL{}\n", parallel ? " CALL*" : "");
  g += fmt::format("CALL ::= {} NAME \"{{\" (PAIR (\",\" PAIR)*)? \"}}\" {}\n", Literal(kGemma4Call), Literal(kGemma4Close));
  g += fmt::format("NAME ::= {}\n", names);
  g += "PAIR ::= KEY \":\" VALUE\n";
  g += "KEY ::= [a-zA-Z_] [a-zA-Z0-9_]*\n";
  g += "VALUE ::= STR | NUM | \"true\" | \"false\" | \"null\" | \"{\" (PAIR (\",\" PAIR)*)? \"}\" | "
       "\"[\" (VALUE (\",\" VALUE)*)? \"]\"\n";
  // A string holds anything but the start of a mark ("<|").
  g += fmt::format("STR ::= {} ([^<] | \"<\" [^|])* {}\n", quote, quote);
  g += "NUM ::= \"-\"? [0-9]+ (\".\" [0-9]+)? ([eE] [-+]? [0-9]+)?\n";
  return g;
}

// Qwen XML's call syntax over the given function names, as the template
// writes it: newlines around each value, calls apart by one newline. A value
// holds anything but "</" (which would begin its closing tag); the
// arguments' names and values are not checked against the schema.
std::string QwenXmlCallGbnf(std::span<const ToolSpec> tools, bool parallel) {
  std::string names;
  for (const ToolSpec& tool : tools) names += (names.empty() ? "" : " | ") + Literal(tool.name);
  std::string g;
  g += fmt::format("root ::= CALL{}\n", parallel ? " (\"\\n\" CALL)*" : "");
  g += fmt::format("CALL ::= {} NAME \">\\n\" PARAM* {}\n", Literal("<tool_call>\n<function="),
                   Literal("</function>\n</tool_call>"));
  g += fmt::format("NAME ::= {}\n", names);
  g += fmt::format("PARAM ::= {} KEY \">\\n\" VALUE {}\n", Literal(kQwenParameter), Literal("\n</parameter>\n"));
  g += "KEY ::= [^<>\\n]+\n";
  g += "VALUE ::= ([^<] | \"<\" [^/])*\n";
  return g;
}

}  // namespace

Expected<std::string> ToolCallGbnf(ToolCallFormat format, std::span<const ToolSpec> tools, bool parallel) {
  if (tools.empty()) return Error(ErrorCode::kInvalidArgument, "no function to call");
  if (format == ToolCallFormat::kGemma4) return Gemma4CallGbnf(tools, parallel);
  if (format == ToolCallFormat::kQwenXml) return QwenXmlCallGbnf(tools, parallel);
  const char* args_key = format == ToolCallFormat::kLlama3 ? "parameters" : "arguments";
  using ojson = nlohmann::ordered_json;
  ojson alternatives = ojson::array();
  for (const ToolSpec& tool : tools) {
    ojson params = tool.parameters.empty()
                       ? ojson{{"type", "object"}}
                       : ojson::parse(tool.parameters.begin(), tool.parameters.end(), nullptr, false);
    if (params.is_discarded()) {
      return Error(ErrorCode::kInvalidArgument, "the parameters of function '{}' are not valid JSON", tool.name);
    }
    // Name first: the model picks the function, then writes its arguments.
    alternatives.push_back(ojson{{"type", "object"},
                                 {"properties", ojson{{"name", ojson{{"const", tool.name}}}, {args_key, params}}},
                                 {"required", ojson::array({"name", args_key})},
                                 {"additionalProperties", false}});
  }
  ojson call = alternatives.size() == 1 ? alternatives[0] : ojson{{"anyOf", alternatives}};
  ojson schema = call;
  if (format == ToolCallFormat::kMistral) {
    schema = ojson{{"type", "array"}, {"items", call}, {"minItems", 1}};
    if (!parallel) schema["maxItems"] = 1;
  }
  Expected<std::string> gbnf = grammar::JsonSchemaToGbnf(schema.dump());
  if (!gbnf.ok()) {
    return Error(gbnf.status().code(), "the parameters of the functions cannot be enforced: {}",
                 gbnf.status().message());
  }
  // The schema's grammar starts with its `root` rule; it becomes CALL
  // (generated names are lowercase, so this one cannot clash).
  std::string rules = std::move(gbnf).value();
  constexpr std::string_view kRoot = "root ::= ";
  TRIT_CHECK(rules.starts_with(kRoot));
  rules.replace(0, kRoot.size(), "CALL ::= ");
  std::string root;
  switch (format) {
    case ToolCallFormat::kHermes: {
      const std::string one = fmt::format("{} CALL {}", Literal("<tool_call>\n"), Literal("\n</tool_call>"));
      root = parallel ? fmt::format("root ::= {} ({} {})*\n", one, Literal("\n"), one) : "root ::= " + one + "\n";
      break;
    }
    case ToolCallFormat::kMistral: root = fmt::format("root ::= {} CALL\n", Literal(kMistralMarker)); break;
    case ToolCallFormat::kGemma4:  // answered above
    case ToolCallFormat::kQwenXml:
    case ToolCallFormat::kLlama3:
    case ToolCallFormat::kJson:
      // One call; several are the array form of kJson.
      root = parallel && format == ToolCallFormat::kJson ? "root ::= \"[\" CALL (\",\" CALL)* \"]\"\n"
                                                         : "root ::= CALL\n";
      break;
  }
  return root + rules;
}

bool TemplateSpeaksTools(std::string_view chat_template) {
  return chat_template.find("tool_calls") != std::string_view::npos;
}

std::vector<chat::ChatMessage> SpellOutTools(std::vector<chat::ChatMessage> messages, std::string_view tools_json) {
  for (chat::ChatMessage& m : messages) {
    if (!m.tool_calls.empty()) {
      // As the system message asks for calls: name first, arguments in the client's order.
      using ojson = nlohmann::ordered_json;
      ojson calls = ojson::array();
      for (const chat::ToolCall& c : m.tool_calls) {
        ojson args = ojson::parse(c.arguments.begin(), c.arguments.end(), nullptr, false);
        calls.push_back({{"name", c.name}, {"arguments", args.is_discarded() ? ojson(c.arguments) : args}});
      }
      const std::string text = (calls.size() == 1 ? calls[0] : calls).dump();
      m.content = m.content_is_null || m.content.empty() ? text : m.content + "\n" + text;
      m.content_is_null = false;
      m.tool_calls.clear();
    } else if (m.role == "tool") {
      const std::string who = !m.name.empty() ? fmt::format("{} ", m.name) : "";
      const std::string id = !m.tool_call_id.empty() ? fmt::format(" (call {})", m.tool_call_id) : "";
      m = chat::ChatMessage{"user", fmt::format("Result of {}function call{}: {}", who, id, m.content)};
    }
  }
  if (tools_json.empty()) return messages;
  const std::string about = fmt::format(
      "You may call these functions (their parameters are JSON Schemas):\n{}\nTo call functions, reply with only "
      "JSON: {{\"name\": <function name>, \"arguments\": <an object of arguments>}}, or an array of such objects "
      "for several calls.",
      tools_json);
  if (!messages.empty() && messages.front().role == "system") {
    messages.front().content += "\n\n" + about;
  } else {
    messages.insert(messages.begin(), chat::ChatMessage{"system", about});
  }
  return messages;
}

std::string ToolCallId(uint64_t random) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string id;
  for (int i = 0; i < 9; ++i) {
    id += kAlphabet[random % 62];
    random /= 62;
  }
  return id;
}

}  // namespace trit::server
