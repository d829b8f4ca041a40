#include "chat/chat_template.h"

#include <algorithm>
#include <iterator>

#include "chat/builtins.h"
#include "chat/evaluator.h"
#include "chat/json_parse.h"
#include "chat/lexer.h"
#include "chat/parser.h"

namespace trit::chat {

struct ChatTemplate::Program {
  StmtList statements;
};

namespace {

std::string Where(const TemplateError& e) {
  return "chat template " + std::to_string(e.pos().line) + ":" + std::to_string(e.pos().column) + ": " + e.what();
}

// jinja2 refuses unknown filters and tests when compiling, even in branches
// never taken; so does trit.
void CheckNames(const Expr& e) {
  if (e.kind == Expr::Kind::kFilter && !IsKnownFilter(e.name)) {
    throw TemplateError(e.pos, "unknown filter '" + e.name + "'");
  }
  if (e.kind == Expr::Kind::kTest && !IsKnownTest(e.name)) throw TemplateError(e.pos, "unknown test '" + e.name + "'");
  for (const auto& a : e.args) {
    if (a) CheckNames(*a);
  }
  for (const auto& [k, v] : e.kwargs) CheckNames(*v);
}

void CheckNames(const StmtList& body) {
  for (const auto& s : body) {
    if (s->expr) CheckNames(*s->expr);
    if (s->filter) CheckNames(*s->filter);
    for (const IfBranch& b : s->branches) {
      CheckNames(*b.condition);
      CheckNames(b.body);
    }
    for (const MacroParam& p : s->params) {
      if (p.default_value) CheckNames(*p.default_value);
    }
    CheckNames(s->body);
    CheckNames(s->else_body);
  }
}

// A message as HF hands it to the template: the request's dict, with each
// tool call's arguments parsed to an object.
Expected<Value> MessageValue(const ChatMessage& m) {
  Dict d;
  d.Set("role", Value::String(m.role));
  d.Set("content", m.content_is_null ? Value::None() : Value::String(m.content));
  if (!m.name.empty()) d.Set("name", Value::String(m.name));
  if (!m.tool_calls.empty()) {
    List calls;
    for (size_t i = 0; i < m.tool_calls.size(); ++i) {
      const ToolCall& call = m.tool_calls[i];
      Expected<Value> arguments = ToolArgumentsValue(call.arguments);
      if (!arguments.ok()) {
        return arguments.status().WithContext("tool_calls[" + std::to_string(i) + "].function.arguments");
      }
      Dict function;
      function.Set("name", Value::String(call.name));
      function.Set("arguments", std::move(arguments).value());
      Dict c;
      if (!call.id.empty()) c.Set("id", Value::String(call.id));
      c.Set("type", Value::String("function"));
      c.Set("function", Value::MakeDict(std::move(function)));
      calls.push_back(Value::MakeDict(std::move(c)));
    }
    d.Set("tool_calls", Value::MakeList(std::move(calls)));
  }
  if (!m.tool_call_id.empty()) d.Set("tool_call_id", Value::String(m.tool_call_id));
  return Value::MakeDict(std::move(d));
}

// The `tools` variable: None without tools, else the parsed array of objects
// (HF refuses tools that are not dicts).
Expected<Value> ToolsValue(std::string_view tools_json) {
  if (tools_json.empty()) return Value::None();
  Expected<Value> tools = ParseJson(tools_json);
  if (!tools.ok()) return tools.status();
  if (!tools->is_list()) {
    return Status(ErrorCode::kInvalidArgument, "expected a JSON array of tool definitions");
  }
  for (size_t i = 0; i < tools->as_list().size(); ++i) {
    const Value& tool = tools->as_list()[i];
    if (!tool.is_dict()) {
      return Status(ErrorCode::kInvalidArgument, "element " + std::to_string(i) + " is not a JSON object");
    }
  }
  return tools;
}

// The variables Apply sets for every render besides extra_variables.
constexpr std::string_view kRendererVariables[] = {"messages",  "tools",     "documents", "add_generation_prompt",
                                                   "bos_token", "eos_token"};

// chat_template_kwargs' members, each refused when it would replace a
// variable the renderer sets (in `globals` or always) or hide a global
// function: a kwarg named "messages" would otherwise silently swap the
// conversation the request sent.
Expected<Dict> KwargsDict(std::string_view kwargs_json, const Dict& globals) {
  Expected<Value> kwargs = ParseJson(kwargs_json);
  if (!kwargs.ok()) return kwargs.status().WithContext("chat_template_kwargs");
  if (!kwargs->is_dict()) {
    return Status(ErrorCode::kInvalidArgument, "chat_template_kwargs: expected a JSON object of template variables");
  }
  for (const auto& [name, value] : kwargs->as_dict().entries) {
    const bool reserved = globals.Find(name) != nullptr || IsGlobalFunction(name) ||
                          std::find(std::begin(kRendererVariables), std::end(kRendererVariables), name) !=
                              std::end(kRendererVariables);
    if (reserved) {
      return Status(ErrorCode::kInvalidArgument,
                    "chat_template_kwargs: key '" + name +
                        "' is set by the renderer (messages, tools, add_generation_prompt, bos_token, ...), "
                        "not by chat_template_kwargs");
    }
  }
  return kwargs->as_dict();
}

}  // namespace

Status CheckTemplateKwargs(std::string_view kwargs_json) {
  if (kwargs_json.empty()) return Status::Ok();
  Expected<Dict> kwargs = KwargsDict(kwargs_json, Dict{});
  return kwargs.ok() ? Status::Ok() : kwargs.status();
}

ChatTemplate::ChatTemplate(std::unique_ptr<Program> program) : program_(std::move(program)) {}
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;
ChatTemplate::~ChatTemplate() = default;

Expected<ChatTemplate> ChatTemplate::Compile(std::string_view source) {
  try {
    auto program = std::make_unique<Program>();
    program->statements = Parse(Tokenize(source));
    CheckNames(program->statements);
    return ChatTemplate(std::move(program));
  } catch (const TemplateError& e) {
    const std::string what = e.what();
    const bool unsupported = what.rfind("unsupported", 0) == 0 || what.rfind("unknown filter", 0) == 0 ||
                             what.rfind("unknown test", 0) == 0;
    return Status(unsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidArgument, Where(e));
  }
}

Expected<std::string> ChatTemplate::Apply(const std::vector<ChatMessage>& messages,
                                          const ApplyOptions& options) const {
  Dict globals;
  List message_values;
  for (size_t i = 0; i < messages.size(); ++i) {
    Expected<Value> m = MessageValue(messages[i]);
    if (!m.ok()) return m.status().WithContext("chat template: messages[" + std::to_string(i) + "]");
    message_values.push_back(std::move(m).value());
  }
  globals.Set("messages", Value::MakeList(std::move(message_values)));
  Expected<Value> tools = ToolsValue(options.tools_json);
  if (!tools.ok()) return tools.status().WithContext("chat template: tools");
  // HF always passes tools= and documents=, None when the request has none.
  globals.Set("tools", std::move(tools).value());
  globals.Set("documents", Value::None());
  globals.Set("add_generation_prompt", Value::Bool(options.add_generation_prompt));
  globals.Set("bos_token", Value::String(options.bos_token));
  globals.Set("eos_token", Value::String(options.eos_token));
  for (const auto& [name, value] : options.extra_variables) globals.Set(name, Value::String(value));
  if (!options.kwargs_json.empty()) {
    Expected<Dict> kwargs = KwargsDict(options.kwargs_json, globals);
    if (!kwargs.ok()) return kwargs.status().WithContext("chat template");
    for (auto& [name, value] : kwargs->entries) globals.Set(name, std::move(value));
  }
  RenderLimits limits;
  limits.max_output_bytes = options.max_output_bytes;
  try {
    return Render(program_->statements, globals, limits);
  } catch (const TemplateError& e) {
    return Status(ErrorCode::kInvalidArgument, Where(e));
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kInvalidArgument, "chat template: out of memory while rendering");
  }
}

}  // namespace trit::chat
