#include "chat/evaluator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <memory>

#include "chat/builtins.h"
#include "chat/py_string.h"

namespace trit::chat {
namespace {

enum class Flow { kNormal, kBreak, kContinue };

[[noreturn]] void Fail(SourcePos pos, const std::string& message) { throw TemplateError(pos, message); }

std::string OperandError(std::string_view op, const Value& a, const Value& b) {
  return "unsupported operand types for " + std::string(op) + ": '" + std::string(a.TypeName()) + "' and '" +
         std::string(b.TypeName()) + "'";
}

class Evaluator {
 public:
  Evaluator(const Dict& globals, const RenderLimits& limits)
      : limits_(limits), budget_{limits.max_output_bytes} {
    frames_.push_back(std::make_unique<Dict>(globals));
  }

  std::string Run(const StmtList& program) {
    if (ExecBody(program) != Flow::kNormal) Fail({1, 1}, "'break' or 'continue' outside a loop");
    return std::move(out_);
  }

 private:
  // ---- bookkeeping ----
  void Step(SourcePos pos) {
    if (++steps_ > limits_.max_steps) {
      Fail(pos, "template exceeded its step budget (" + std::to_string(limits_.max_steps) + " steps)");
    }
  }

  void Write(const std::string& text, SourcePos pos) {
    out_ += text;
    budget_.CheckSize(out_.size(), pos);
  }

  const Value* Lookup(const std::string& name) const {
    for (size_t i = frames_.size(); i-- > base_;) {
      if (const Value* v = frames_[i]->Find(name)) return v;
    }
    return base_ > 0 ? frames_[0]->Find(name) : nullptr;
  }

  void Assign(const std::string& name, Value v) { frames_.back()->Set(name, std::move(v)); }

  // ---- statements ----
  Flow ExecBody(const StmtList& body) {
    for (const auto& stmt : body) {
      const Flow flow = Exec(*stmt);
      if (flow != Flow::kNormal) return flow;
    }
    return Flow::kNormal;
  }

  Flow Exec(const Stmt& s) {
    Step(s.pos);
    switch (s.kind) {
      case Stmt::Kind::kText: Write(s.text, s.pos); return Flow::kNormal;
      case Stmt::Kind::kOutput: Write(ToDisplayString(Eval(*s.expr)), s.pos); return Flow::kNormal;
      case Stmt::Kind::kIf:
        for (const IfBranch& branch : s.branches) {
          if (Eval(*branch.condition).Truthy()) return ExecBody(branch.body);
        }
        return ExecBody(s.else_body);
      case Stmt::Kind::kFor: return ExecFor(s);
      case Stmt::Kind::kSet: ExecSet(s); return Flow::kNormal;
      case Stmt::Kind::kMacro: Assign(s.text, Value::MakeCallable(Callable{&s, s.text})); return Flow::kNormal;
      case Stmt::Kind::kBreak: return Flow::kBreak;
      case Stmt::Kind::kContinue: return Flow::kContinue;
    }
    return Flow::kNormal;
  }

  void Bind(const std::vector<std::string>& targets, const Value& v, SourcePos pos) {
    if (targets.size() == 1) {
      Assign(targets[0], v);
      return;
    }
    if (!v.is_list() || v.as_list().size() != targets.size()) {
      Fail(pos, "cannot unpack '" + std::string(v.TypeName()) + "' into " + std::to_string(targets.size()) + " names");
    }
    for (size_t i = 0; i < targets.size(); ++i) Assign(targets[i], v.as_list()[i]);
  }

  Flow ExecFor(const Stmt& s) {
    const List all = Iterate(Eval(*s.expr), s.expr->pos);
    List items;
    if (s.filter) {
      for (const Value& item : all) {
        Step(s.pos);
        frames_.push_back(std::make_unique<Dict>());
        Bind(s.targets, item, s.pos);
        const bool keep = Eval(*s.filter).Truthy();
        frames_.pop_back();
        if (keep) items.push_back(item);
      }
    } else {
      items = all;
    }
    if (items.empty()) return ExecBody(s.else_body);
    const int64_t n = static_cast<int64_t>(items.size());
    for (int64_t i = 0; i < n; ++i) {
      Step(s.pos);
      Dict loop;
      loop.Set("index", Value::Int(i + 1));
      loop.Set("index0", Value::Int(i));
      loop.Set("revindex", Value::Int(n - i));
      loop.Set("revindex0", Value::Int(n - i - 1));
      loop.Set("first", Value::Bool(i == 0));
      loop.Set("last", Value::Bool(i == n - 1));
      loop.Set("length", Value::Int(n));
      loop.Set("depth", Value::Int(1));
      loop.Set("depth0", Value::Int(0));
      if (i > 0) loop.Set("previtem", items[static_cast<size_t>(i - 1)]);
      if (i + 1 < n) loop.Set("nextitem", items[static_cast<size_t>(i + 1)]);
      frames_.push_back(std::make_unique<Dict>());  // a fresh scope per iteration, as in jinja2
      Assign("loop", Value::MakeDict(std::move(loop)));
      Bind(s.targets, items[static_cast<size_t>(i)], s.pos);
      const Flow flow = ExecBody(s.body);
      frames_.pop_back();
      if (flow == Flow::kBreak) break;
    }
    return Flow::kNormal;
  }

  void ExecSet(const Stmt& s) {
    Value v;
    if (s.expr) {
      v = Eval(*s.expr);
    } else {  // {% set x %}...{% endset %}
      std::string saved = std::move(out_);
      out_.clear();
      const Flow flow = ExecBody(s.body);
      v = Value::String(std::move(out_));
      out_ = std::move(saved);
      if (flow != Flow::kNormal) Fail(s.pos, "'break' or 'continue' inside a set block");
    }
    if (!s.text.empty()) {  // {% set ns.attr = value %}
      const Value* target = Lookup(s.targets[0]);
      if (target == nullptr || !target->is_namespace()) {
        Fail(s.pos, "cannot assign attribute '" + s.text + "' of '" + s.targets[0] + "': not a namespace() object");
      }
      target->mutable_dict().Set(s.text, std::move(v));
      return;
    }
    Bind(s.targets, v, s.pos);
  }

  // ---- expressions ----
  Value Eval(const Expr& e) {
    Step(e.pos);
    switch (e.kind) {
      case Expr::Kind::kLiteral: return e.literal;
      case Expr::Kind::kName: {
        if (const Value* v = Lookup(e.name)) return *v;
        if (IsGlobalFunction(e.name)) return Value::MakeCallable(Callable{nullptr, e.name});
        return Value::Undefined(e.name);
      }
      case Expr::Kind::kList:
      case Expr::Kind::kTuple: {
        List items;
        for (const auto& a : e.args) items.push_back(Eval(*a));
        return Value::MakeList(std::move(items));
      }
      case Expr::Kind::kDict: {
        Dict d;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          const Value key = Eval(*e.args[i]);
          if (!key.is_string()) Fail(e.args[i]->pos, "dict keys must be strings");
          d.Set(key.as_string(), Eval(*e.args[i + 1]));
        }
        return Value::MakeDict(std::move(d));
      }
      case Expr::Kind::kGetAttr: return GetAttribute(Eval(*e.args[0]), e.name, e.pos);
      case Expr::Kind::kGetItem: return GetItem(Eval(*e.args[0]), Eval(*e.args[1]), e.pos);
      case Expr::Kind::kSlice: return EvalSlice(e);
      case Expr::Kind::kCall: return EvalCall(e);
      case Expr::Kind::kFilter: {
        const Value input = Eval(*e.args[0]);
        return ApplyFilter(e.name, input, EvalArgs(e, 1), budget_, e.pos);
      }
      case Expr::Kind::kTest: {
        const Value input = Eval(*e.args[0]);
        return Value::Bool(ApplyTest(e.name, input, EvalArgs(e, 1), e.pos) != e.negated);
      }
      case Expr::Kind::kUnary: {
        const Value v = Eval(*e.args[0]);
        if (e.name == "not") return Value::Bool(!v.Truthy());
        if (!v.is_number()) Fail(e.pos, "bad operand type for unary " + e.name + ": '" + std::string(v.TypeName()) + "'");
        if (e.name == "+") return v.is_float() ? v : Value::Int(v.as_int());
        if (v.is_float()) return Value::Float(-v.as_float());
        if (v.as_int() == INT64_MIN) Fail(e.pos, "integer overflow");
        return Value::Int(-v.as_int());
      }
      case Expr::Kind::kBinary: return EvalBinary(e);
      case Expr::Kind::kCompare: {
        Value left = Eval(*e.args[0]);
        for (size_t i = 0; i < e.ops.size(); ++i) {
          Value right = Eval(*e.args[i + 1]);
          if (!Compare(e.ops[i], left, right, e.pos)) return Value::Bool(false);
          left = std::move(right);
        }
        return Value::Bool(true);
      }
      case Expr::Kind::kTernary:
        if (Eval(*e.args[1]).Truthy()) return Eval(*e.args[0]);
        return e.args[2] ? Eval(*e.args[2]) : Value::Undefined("ternary without else");
    }
    return Value();
  }

  CallArgs EvalArgs(const Expr& e, size_t first) {
    CallArgs args;
    for (size_t i = first; i < e.args.size(); ++i) args.positional.push_back(Eval(*e.args[i]));
    for (const auto& [name, value] : e.kwargs) args.keyword.emplace_back(name, Eval(*value));
    return args;
  }

  Value EvalCall(const Expr& e) {
    const Expr& callee = *e.args[0];
    if (callee.kind == Expr::Kind::kGetAttr) {
      const Value object = Eval(*callee.args[0]);
      if (object.is_dict() || object.is_namespace()) {
        const Value* member = object.as_dict().Find(callee.name);
        if (member != nullptr && member->is_callable()) return Invoke(*member, EvalArgs(e, 1), e.pos);
      }
      return CallMethod(object, callee.name, EvalArgs(e, 1), budget_, callee.pos);
    }
    const Value fn = Eval(callee);
    if (fn.is_undefined()) Fail(callee.pos, "'" + fn.undefined_name() + "' is undefined (called as a function)");
    if (!fn.is_callable()) Fail(callee.pos, "'" + std::string(fn.TypeName()) + "' object is not callable");
    return Invoke(fn, EvalArgs(e, 1), e.pos);
  }

  Value Invoke(const Value& fn, const CallArgs& args, SourcePos pos) {
    const Callable& c = fn.as_callable();
    if (c.macro == nullptr) return CallGlobal(c.name, args, budget_, pos);
    const Stmt& macro = *c.macro;
    if (call_depth_ >= limits_.max_call_depth) {
      Fail(pos, "macro calls nested deeper than " + std::to_string(limits_.max_call_depth));
    }
    if (args.positional.size() > macro.params.size()) Fail(pos, "macro '" + c.name + "' takes " + std::to_string(macro.params.size()) + " arguments");
    auto frame = std::make_unique<Dict>();
    for (size_t i = 0; i < macro.params.size(); ++i) {
      const MacroParam& p = macro.params[i];
      const Value* given = args.Get(i, p.name);
      if (given) frame->Set(p.name, *given);
      else if (p.default_value) frame->Set(p.name, Eval(*p.default_value));
      else frame->Set(p.name, Value::Undefined(p.name));
    }
    for (const auto& [k, v] : args.keyword) {
      if (frame->Find(k) == nullptr) Fail(pos, "macro '" + c.name + "' has no parameter '" + k + "'");
    }
    // The macro sees its parameters and the template's top level, not the caller's locals.
    const size_t saved_base = base_;
    frames_.push_back(std::move(frame));
    base_ = frames_.size() - 1;
    std::string saved_out = std::move(out_);
    out_.clear();
    ++call_depth_;
    ExecBody(macro.body);
    --call_depth_;
    std::string result = std::move(out_);
    out_ = std::move(saved_out);
    frames_.pop_back();
    base_ = saved_base;
    return Value::String(std::move(result));
  }

  Value EvalSlice(const Expr& e) {
    const Value object = Eval(*e.args[0]);
    std::optional<int64_t> parts[3];
    for (int i = 0; i < 3; ++i) {
      if (!e.args[static_cast<size_t>(i) + 1]) continue;
      const Value v = Eval(*e.args[static_cast<size_t>(i) + 1]);
      if (v.is_none()) continue;
      if (!v.is_int() && !v.is_bool()) Fail(e.pos, "slice indices must be integers");
      parts[i] = v.as_int();
    }
    const int64_t step = parts[2].value_or(1);
    if (step == 0) Fail(e.pos, "slice step cannot be zero");
    if (object.is_undefined()) Fail(e.pos, "'" + object.undefined_name() + "' is undefined (sliced)");
    std::vector<std::string_view> cps;
    if (object.is_string()) cps = py::CodePoints(object.as_string());
    else if (!object.is_list()) Fail(e.pos, "'" + std::string(object.TypeName()) + "' object is not subscriptable");
    const int64_t n = object.is_string() ? static_cast<int64_t>(cps.size()) : static_cast<int64_t>(object.as_list().size());
    // Python's slice.indices().
    const auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
      if (!v) return fallback;
      int64_t x = *v;
      if (x < 0) x += n;
      if (step > 0) return std::clamp<int64_t>(x, 0, n);
      return std::clamp<int64_t>(x, -1, n - 1);
    };
    const int64_t start = clamp(parts[0], step > 0 ? 0 : n - 1);
    const int64_t stop = clamp(parts[1], step > 0 ? n : -1);
    List items;
    std::string text;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (object.is_string()) text += cps[static_cast<size_t>(i)];
      else items.push_back(object.as_list()[static_cast<size_t>(i)]);
    }
    return object.is_string() ? Value::String(std::move(text)) : Value::MakeList(std::move(items));
  }

  static void RequireDefined(const Value& v, SourcePos pos) {
    if (v.is_undefined()) Fail(pos, "'" + v.undefined_name() + "' is undefined");
  }

  Value EvalBinary(const Expr& e) {
    if (e.name == "and" || e.name == "or") {
      Value left = Eval(*e.args[0]);
      if (left.Truthy() == (e.name == "or")) return left;
      return Eval(*e.args[1]);
    }
    const Value a = Eval(*e.args[0]);
    const Value b = Eval(*e.args[1]);
    if (e.name == "~") {
      std::string s = ToDisplayString(a) + ToDisplayString(b);
      budget_.CheckSize(s.size(), e.pos);
      return Value::String(std::move(s));
    }
    RequireDefined(a, e.args[0]->pos);
    RequireDefined(b, e.args[1]->pos);
    const std::string& op = e.name;
    if (a.is_number() && b.is_number()) return Arithmetic(op, a, b, e.pos);
    if (op == "+" && a.is_string() && b.is_string()) {
      budget_.CheckSize(a.as_string().size() + b.as_string().size(), e.pos);
      return Value::String(a.as_string() + b.as_string());
    }
    if (op == "+" && a.is_list() && b.is_list()) {
      List items = a.as_list();
      items.insert(items.end(), b.as_list().begin(), b.as_list().end());
      budget_.CheckSize(items.size() * sizeof(Value), e.pos);
      return Value::MakeList(std::move(items));
    }
    if (op == "*" && (a.is_string() || a.is_list() || b.is_string() || b.is_list())) {
      const Value& seq = a.is_string() || a.is_list() ? a : b;
      const Value& count = a.is_string() || a.is_list() ? b : a;
      if (count.is_int() || count.is_bool()) {
        const int64_t n = std::max<int64_t>(count.as_int(), 0);
        const size_t unit = seq.is_string() ? seq.as_string().size() : seq.as_list().size() * sizeof(Value);
        if (unit > 0 && static_cast<uint64_t>(n) > budget_.max_bytes / unit) budget_.CheckSize(budget_.max_bytes + 1, e.pos);
        if (seq.is_string()) {
          std::string s;
          for (int64_t i = 0; i < n; ++i) s += seq.as_string();
          return Value::String(std::move(s));
        }
        List items;
        for (int64_t i = 0; i < n; ++i) items.insert(items.end(), seq.as_list().begin(), seq.as_list().end());
        return Value::MakeList(std::move(items));
      }
    }
    Fail(e.pos, OperandError(op, a, b));
  }

  static Value Arithmetic(const std::string& op, const Value& a, const Value& b, SourcePos pos) {
    const bool ints = !a.is_float() && !b.is_float();
    if (ints) {
      const int64_t x = a.as_int();
      const int64_t y = b.as_int();
      int64_t r = 0;
      if (op == "+" && !__builtin_add_overflow(x, y, &r)) return Value::Int(r);
      if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return Value::Int(r);
      if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return Value::Int(r);
      if (op == "//" || op == "%") {
        if (y == 0) Fail(pos, "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) Fail(pos, "integer overflow");
        int64_t q = x / y;
        int64_t m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {  // Python floors
          --q;
          m += y;
        }
        return Value::Int(op == "//" ? q : m);
      }
      if (op == "**" && y >= 0) {
        int64_t result = 1;
        for (int64_t i = 0; i < y; ++i) {
          if (__builtin_mul_overflow(result, x, &result)) Fail(pos, "integer overflow in '**'");
          if (result == 0 || result == 1) break;
        }
        return Value::Int(result);
      }
      if (op == "+" || op == "-" || op == "*") Fail(pos, "integer overflow in '" + op + "'");
    }
    const double x = a.as_float();
    const double y = b.as_float();
    if (op == "+") return Value::Float(x + y);
    if (op == "-") return Value::Float(x - y);
    if (op == "*") return Value::Float(x * y);
    if (op == "/") {
      if (y == 0) Fail(pos, "division by zero");
      return Value::Float(x / y);
    }
    if (op == "//" || op == "%") {
      if (y == 0) Fail(pos, "float division or modulo by zero");
      double m = std::fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return Value::Float(op == "//" ? std::floor((x - m) / y + 0.5) : m);
    }
    if (op == "**") return Value::Float(std::pow(x, y));
    Fail(pos, "unknown operator '" + op + "'");
  }

  static bool LessThan(const Value& a, const Value& b, const std::string& op, SourcePos pos) {
    if (a.is_number() && b.is_number()) {
      if (!a.is_float() && !b.is_float()) return a.as_int() < b.as_int();
      return a.as_float() < b.as_float();
    }
    if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
    if (a.is_list() && b.is_list()) {
      const List& x = a.as_list();
      const List& y = b.as_list();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (!Equal(x[i], y[i])) return LessThan(x[i], y[i], op, pos);
      }
      return x.size() < y.size();
    }
    Fail(pos, "'" + op + "' not supported between '" + std::string(a.TypeName()) + "' and '" + std::string(b.TypeName()) + "'");
  }

  static bool Compare(const std::string& op, const Value& a, const Value& b, SourcePos pos) {
    if (op == "==") return Equal(a, b);
    if (op == "!=") return !Equal(a, b);
    if (op == "in" || op == "not in") {
      bool found = false;
      if (b.is_undefined()) Fail(pos, "'" + b.undefined_name() + "' is undefined (right of 'in')");
      if (b.is_string()) {
        if (!a.is_string()) Fail(pos, "'in <string>' requires a string on the left, not '" + std::string(a.TypeName()) + "'");
        found = b.as_string().find(a.as_string()) != std::string::npos;
      } else if (b.is_dict() || b.is_namespace()) {
        found = a.is_string() && b.as_dict().Find(a.as_string()) != nullptr;
      } else if (b.is_list()) {
        for (const Value& item : b.as_list()) {
          if (Equal(item, a)) {
            found = true;
            break;
          }
        }
      } else {
        Fail(pos, "argument of type '" + std::string(b.TypeName()) + "' is not iterable");
      }
      return found == (op == "in");
    }
    RequireDefined(a, pos);
    RequireDefined(b, pos);
    if (op == "<") return LessThan(a, b, op, pos);
    if (op == ">") return LessThan(b, a, op, pos);
    if (op == "<=") return !LessThan(b, a, op, pos);
    return !LessThan(a, b, op, pos);  // >=
  }

  RenderLimits limits_;
  Budget budget_;
  std::vector<std::unique_ptr<Dict>> frames_;
  size_t base_ = 0;  // frames below base_ (except the top level) are hidden: a macro's caller
  std::string out_;
  uint64_t steps_ = 0;
  int call_depth_ = 0;
};

}  // namespace

std::string Render(const StmtList& program, const Dict& globals, const RenderLimits& limits) {
  return Evaluator(globals, limits).Run(program);
}

}  // namespace trit::chat
