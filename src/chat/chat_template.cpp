#include "chat/chat_template.h"

#include "chat/builtins.h"
#include "chat/evaluator.h"
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

}  // namespace

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
  for (const ChatMessage& m : messages) {
    Dict d;
    d.Set("role", Value::String(m.role));
    d.Set("content", Value::String(m.content));
    message_values.push_back(Value::MakeDict(std::move(d)));
  }
  globals.Set("messages", Value::MakeList(std::move(message_values)));
  globals.Set("add_generation_prompt", Value::Bool(options.add_generation_prompt));
  globals.Set("bos_token", Value::String(options.bos_token));
  globals.Set("eos_token", Value::String(options.eos_token));
  for (const auto& [name, value] : options.extra_variables) globals.Set(name, Value::String(value));
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
