#include "chat/parser.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string_view>

namespace trit::chat {
namespace {

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kText: return "text";
    case TokenKind::kVarBegin: return "'{{'";
    case TokenKind::kVarEnd: return "'}}'";
    case TokenKind::kBlockBegin: return "'{%'";
    case TokenKind::kBlockEnd: return "'%}'";
    case TokenKind::kString: return "a string";
    case TokenKind::kEnd: return "end of template";
    default: return "'" + t.text + "'";
  }
}

class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : t_(tokens) {}

  StmtList ParseTemplate() {
    StmtList body = ParseBody({});
    return body;
  }

 private:
  // ---- token helpers ----
  const Token& Cur() const { return t_[i_]; }
  const Token& Peek(size_t ahead) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  void Advance() {
    if (i_ + 1 < t_.size()) ++i_;
  }
  bool IsOp(std::string_view op, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kOperator && t.text == op;
  }
  bool IsName(std::string_view name, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kName && t.text == name;
  }
  [[noreturn]] void Fail(const std::string& expected) const {
    throw TemplateError(Cur().pos, "expected " + expected + ", found " + Describe(Cur()));
  }
  void ExpectOp(std::string_view op, std::string_view context) {
    if (!IsOp(op)) Fail("'" + std::string(op) + "' " + std::string(context));
    Advance();
  }
  std::string ExpectName(std::string_view what) {
    if (Cur().kind != TokenKind::kName) Fail(std::string(what));
    std::string name = Cur().text;
    Advance();
    return name;
  }
  void ExpectBlockEnd(std::string_view after) {
    if (Cur().kind != TokenKind::kBlockEnd) Fail("'%}' after '" + std::string(after) + "'");
    Advance();
  }

  // Bounds recursion: every nested block or expression level passes here.
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting) {
        throw TemplateError(p_.Cur().pos, "template nested deeper than " + std::to_string(kMaxNesting) + " levels");
      }
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  ExprPtr Node(Expr::Kind kind, SourcePos pos, std::vector<ExprPtr> args = {}) {
    auto e = std::make_unique<Expr>(kind, pos);
    e->args = std::move(args);
    return Finish(std::move(e));
  }
  // Computes the node's height and refuses trees too deep to evaluate
  // recursively (long operator chains such as a+a+a+... build deep trees).
  ExprPtr Finish(ExprPtr e) {
    int h = 0;
    for (const auto& a : e->args) {
      if (a) h = std::max(h, a->height);
    }
    for (const auto& [k, v] : e->kwargs) h = std::max(h, v->height);
    e->height = h + 1;
    if (e->height > 4 * kMaxNesting) {
      throw TemplateError(e->pos, "expression nested deeper than " + std::to_string(4 * kMaxNesting) + " levels");
    }
    return e;
  }

  // ---- statements ----

  // Parses until "{% <one of end_tags>": stops with the current token on
  // that tag name. With no end tags, parses to the end of the template.
  StmtList ParseBody(std::initializer_list<std::string_view> end_tags) {
    DepthGuard guard(*this);
    StmtList body;
    while (true) {
      const Token& tok = Cur();
      switch (tok.kind) {
        case TokenKind::kText: {
          auto s = std::make_unique<Stmt>(Stmt::Kind::kText, tok.pos);
          s->text = tok.text;
          body.push_back(std::move(s));
          Advance();
          break;
        }
        case TokenKind::kVarBegin: {
          auto s = std::make_unique<Stmt>(Stmt::Kind::kOutput, tok.pos);
          Advance();
          s->expr = ParseExpression();
          if (Cur().kind != TokenKind::kVarEnd) Fail("'}}'");
          Advance();
          body.push_back(std::move(s));
          break;
        }
        case TokenKind::kBlockBegin: {
          Advance();
          if (Cur().kind == TokenKind::kName &&
              std::find(end_tags.begin(), end_tags.end(), Cur().text) != end_tags.end()) {
            return body;
          }
          body.push_back(ParseStatement(end_tags));
          break;
        }
        case TokenKind::kEnd: {
          if (end_tags.size() != 0) {
            std::string names;
            for (std::string_view n : end_tags) names += (names.empty() ? "'{% " : " or '{% ") + std::string(n) + " %}'";
            Fail(names);
          }
          return body;
        }
        default: Fail("text, '{{' or '{%'");
      }
    }
  }

  std::unique_ptr<Stmt> ParseStatement(std::initializer_list<std::string_view> enclosing) {
    const Token& tok = Cur();
    if (tok.kind != TokenKind::kName) Fail("a tag name");
    const std::string tag = tok.text;
    const SourcePos pos = tok.pos;
    if (tag == "if") return ParseIf(pos);
    if (tag == "for") return ParseFor(pos);
    if (tag == "set") return ParseSet(pos);
    if (tag == "macro") return ParseMacro(pos);
    if (tag == "break" || tag == "continue") {
      Advance();
      ExpectBlockEnd(tag);
      return std::make_unique<Stmt>(tag == "break" ? Stmt::Kind::kBreak : Stmt::Kind::kContinue, pos);
    }
    static constexpr std::string_view kUnsupported[] = {"include", "extends", "import", "from", "block", "raw",
                                                        "call", "filter", "with", "autoescape", "do", "generation",
                                                        "trans"};
    if (std::find(std::begin(kUnsupported), std::end(kUnsupported), tag) != std::end(kUnsupported)) {
      throw TemplateError(pos, "unsupported tag '" + tag + "'");
    }
    std::string expected;
    for (std::string_view n : enclosing) expected += (expected.empty() ? "" : ", ") + std::string(n);
    throw TemplateError(pos, "unknown tag '" + tag + "'" +
                                 (expected.empty() ? std::string() : " (expected " + expected + ")"));
  }

  std::unique_ptr<Stmt> ParseIf(SourcePos pos) {
    auto s = std::make_unique<Stmt>(Stmt::Kind::kIf, pos);
    Advance();  // if
    while (true) {
      IfBranch branch;
      branch.condition = ParseExpression();
      ExpectBlockEnd("if");
      branch.body = ParseBody({"elif", "else", "endif"});
      s->branches.push_back(std::move(branch));
      const std::string tag = Cur().text;
      Advance();
      if (tag == "elif") continue;
      if (tag == "else") {
        ExpectBlockEnd("else");
        s->else_body = ParseBody({"endif"});
        Advance();
      }
      ExpectBlockEnd("endif");
      return s;
    }
  }

  std::unique_ptr<Stmt> ParseFor(SourcePos pos) {
    auto s = std::make_unique<Stmt>(Stmt::Kind::kFor, pos);
    Advance();  // for
    const bool parenthesized = IsOp("(");
    if (parenthesized) Advance();
    s->targets.push_back(ExpectName("a loop variable name"));
    while (IsOp(",")) {
      Advance();
      s->targets.push_back(ExpectName("a loop variable name"));
    }
    if (parenthesized) ExpectOp(")", "after the loop variables");
    if (!IsName("in")) Fail("'in' after the loop variables");
    Advance();
    s->expr = ParseTupleOrExpression(/*with_ternary=*/false);
    if (IsName("if")) {
      Advance();
      s->filter = ParseExpression();
    }
    if (IsName("recursive")) throw TemplateError(Cur().pos, "unsupported: recursive for loops");
    ExpectBlockEnd("for");
    s->body = ParseBody({"else", "endfor"});
    if (Cur().text == "else") {
      Advance();
      ExpectBlockEnd("else");
      s->else_body = ParseBody({"endfor"});
    }
    Advance();
    ExpectBlockEnd("endfor");
    return s;
  }

  std::unique_ptr<Stmt> ParseSet(SourcePos pos) {
    auto s = std::make_unique<Stmt>(Stmt::Kind::kSet, pos);
    Advance();  // set
    s->targets.push_back(ExpectName("a variable name after 'set'"));
    if (IsOp(".")) {
      Advance();
      s->text = ExpectName("an attribute name after '.'");
    } else {
      while (IsOp(",")) {
        Advance();
        s->targets.push_back(ExpectName("a variable name"));
      }
    }
    if (Cur().kind == TokenKind::kBlockEnd && s->targets.size() == 1 && s->text.empty()) {
      Advance();
      s->body = ParseBody({"endset"});
      Advance();
      ExpectBlockEnd("endset");
      return s;
    }
    ExpectOp("=", "in 'set'");
    s->expr = ParseTupleOrExpression(/*with_ternary=*/true);
    ExpectBlockEnd("set");
    return s;
  }

  std::unique_ptr<Stmt> ParseMacro(SourcePos pos) {
    auto s = std::make_unique<Stmt>(Stmt::Kind::kMacro, pos);
    Advance();  // macro
    s->text = ExpectName("a macro name");
    ExpectOp("(", "after the macro name");
    while (!IsOp(")")) {
      MacroParam param;
      param.name = ExpectName("a parameter name");
      if (IsOp("=")) {
        Advance();
        param.default_value = ParseExpression();
      }
      s->params.push_back(std::move(param));
      if (!IsOp(",")) break;
      Advance();
    }
    ExpectOp(")", "after the macro parameters");
    ExpectBlockEnd("macro");
    s->body = ParseBody({"endmacro"});
    Advance();
    if (Cur().kind == TokenKind::kName) Advance();  // {% endmacro name %}
    ExpectBlockEnd("endmacro");
    return s;
  }

  // ---- expressions ----

  // "a, b" (a tuple) or a single expression, as in set and for.
  ExprPtr ParseTupleOrExpression(bool with_ternary) {
    const SourcePos pos = Cur().pos;
    ExprPtr first = ParseExpression(with_ternary);
    if (!IsOp(",")) return first;
    std::vector<ExprPtr> items;
    items.push_back(std::move(first));
    while (IsOp(",")) {
      Advance();
      if (Cur().kind == TokenKind::kBlockEnd || IsName("if")) break;
      items.push_back(ParseExpression(with_ternary));
    }
    return Node(Expr::Kind::kTuple, pos, std::move(items));
  }

  ExprPtr ParseExpression(bool with_ternary = true) {
    DepthGuard guard(*this);
    ExprPtr expr = ParseOr();
    if (with_ternary && IsName("if")) {
      const SourcePos pos = Cur().pos;
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(std::move(expr));
      args.push_back(ParseOr());
      if (IsName("else")) {
        Advance();
        args.push_back(ParseExpression());
      } else {
        args.push_back(nullptr);
      }
      return Node(Expr::Kind::kTernary, pos, std::move(args));
    }
    return expr;
  }

  ExprPtr Binary(std::string op, SourcePos pos, ExprPtr a, ExprPtr b) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    auto e = std::make_unique<Expr>(Expr::Kind::kBinary, pos);
    e->name = std::move(op);
    e->args = std::move(args);
    return Finish(std::move(e));
  }

  ExprPtr ParseOr() {
    ExprPtr left = ParseAnd();
    while (IsName("or")) {
      const SourcePos pos = Cur().pos;
      Advance();
      left = Binary("or", pos, std::move(left), ParseAnd());
    }
    return left;
  }

  ExprPtr ParseAnd() {
    ExprPtr left = ParseNot();
    while (IsName("and")) {
      const SourcePos pos = Cur().pos;
      Advance();
      left = Binary("and", pos, std::move(left), ParseNot());
    }
    return left;
  }

  ExprPtr ParseNot() {
    if (IsName("not")) {
      DepthGuard guard(*this);
      const SourcePos pos = Cur().pos;
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(ParseNot());
      auto e = Node(Expr::Kind::kUnary, pos, std::move(args));
      e->name = "not";
      return e;
    }
    return ParseCompare();
  }

  ExprPtr ParseCompare() {
    const SourcePos pos = Cur().pos;
    ExprPtr first = ParseMath1();
    std::vector<ExprPtr> args;
    std::vector<std::string> ops;
    while (true) {
      std::string op;
      if (Cur().kind == TokenKind::kOperator &&
          (Cur().text == "==" || Cur().text == "!=" || Cur().text == "<" || Cur().text == "<=" ||
           Cur().text == ">" || Cur().text == ">=")) {
        op = Cur().text;
        Advance();
      } else if (IsName("in")) {
        op = "in";
        Advance();
      } else if (IsName("not") && IsName("in", 1)) {
        op = "not in";
        Advance();
        Advance();
      } else {
        break;
      }
      if (args.empty()) args.push_back(std::move(first));
      args.push_back(ParseMath1());
      ops.push_back(std::move(op));
    }
    if (args.empty()) return first;
    auto e = std::make_unique<Expr>(Expr::Kind::kCompare, pos);
    e->args = std::move(args);
    e->ops = std::move(ops);
    return Finish(std::move(e));
  }

  ExprPtr ParseMath1() {
    ExprPtr left = ParseConcat();
    while (IsOp("+") || IsOp("-")) {
      const Token op = Cur();
      Advance();
      left = Binary(op.text, op.pos, std::move(left), ParseConcat());
    }
    return left;
  }

  ExprPtr ParseConcat() {
    ExprPtr left = ParseMath2();
    while (IsOp("~")) {
      const SourcePos pos = Cur().pos;
      Advance();
      left = Binary("~", pos, std::move(left), ParseMath2());
    }
    return left;
  }

  ExprPtr ParseMath2() {
    ExprPtr left = ParsePow();
    while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
      const Token op = Cur();
      Advance();
      left = Binary(op.text, op.pos, std::move(left), ParsePow());
    }
    return left;
  }

  ExprPtr ParsePow() {
    ExprPtr left = ParseUnary(/*with_filter=*/true);
    while (IsOp("**")) {
      const SourcePos pos = Cur().pos;
      Advance();
      left = Binary("**", pos, std::move(left), ParseUnary(true));
    }
    return left;
  }

  ExprPtr ParseUnary(bool with_filter) {
    DepthGuard guard(*this);
    ExprPtr node;
    if (IsOp("-") || IsOp("+")) {
      const Token op = Cur();
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(ParseUnary(/*with_filter=*/false));
      node = Node(Expr::Kind::kUnary, op.pos, std::move(args));
      node->name = op.text;
    } else {
      node = ParsePrimary();
    }
    node = ParsePostfix(std::move(node));
    if (with_filter) node = ParseFilterExpr(std::move(node));
    return node;
  }

  ExprPtr ParsePrimary() {
    const Token tok = Cur();
    switch (tok.kind) {
      case TokenKind::kName: {
        Advance();
        auto e = std::make_unique<Expr>(Expr::Kind::kLiteral, tok.pos);
        if (tok.text == "true" || tok.text == "True") {
          e->literal = Value::Bool(true);
        } else if (tok.text == "false" || tok.text == "False") {
          e->literal = Value::Bool(false);
        } else if (tok.text == "none" || tok.text == "None") {
          e->literal = Value::None();
        } else {
          e->kind = Expr::Kind::kName;
          e->name = tok.text;
        }
        return Finish(std::move(e));
      }
      case TokenKind::kString: {
        std::string text;
        while (Cur().kind == TokenKind::kString) {  // adjacent literals concatenate
          text += Cur().text;
          Advance();
        }
        auto e = std::make_unique<Expr>(Expr::Kind::kLiteral, tok.pos);
        e->literal = Value::String(std::move(text));
        return Finish(std::move(e));
      }
      case TokenKind::kInteger: {
        Advance();
        auto e = std::make_unique<Expr>(Expr::Kind::kLiteral, tok.pos);
        e->literal = Value::Int(IntegerValue(tok));
        return Finish(std::move(e));
      }
      case TokenKind::kFloat: {
        Advance();
        auto e = std::make_unique<Expr>(Expr::Kind::kLiteral, tok.pos);
        e->literal = Value::Float(std::strtod(tok.text.c_str(), nullptr));
        return Finish(std::move(e));
      }
      case TokenKind::kOperator: {
        if (tok.text == "(") return ParseParenthesized();
        if (tok.text == "[") {
          Advance();
          std::vector<ExprPtr> items;
          while (!IsOp("]")) {
            items.push_back(ParseExpression());
            if (!IsOp(",")) break;
            Advance();
          }
          ExpectOp("]", "to close the list");
          return Node(Expr::Kind::kList, tok.pos, std::move(items));
        }
        if (tok.text == "{") {
          Advance();
          std::vector<ExprPtr> items;
          while (!IsOp("}")) {
            items.push_back(ParseExpression());
            ExpectOp(":", "after a dict key");
            items.push_back(ParseExpression());
            if (!IsOp(",")) break;
            Advance();
          }
          ExpectOp("}", "to close the dict");
          return Node(Expr::Kind::kDict, tok.pos, std::move(items));
        }
        break;
      }
      default: break;
    }
    Fail("an expression");
  }

  ExprPtr ParseParenthesized() {
    const SourcePos pos = Cur().pos;
    Advance();  // (
    if (IsOp(")")) {
      Advance();
      return Node(Expr::Kind::kTuple, pos);
    }
    ExprPtr first = ParseExpression();
    if (IsOp(")")) {
      Advance();
      return first;
    }
    std::vector<ExprPtr> items;
    items.push_back(std::move(first));
    while (IsOp(",")) {
      Advance();
      if (IsOp(")")) break;
      items.push_back(ParseExpression());
    }
    ExpectOp(")", "to close '('");
    return Node(Expr::Kind::kTuple, pos, std::move(items));
  }

  // An integer token's value; a TemplateError when it does not fit int64.
  static int64_t IntegerValue(const Token& tok) {
    int64_t v = 0;
    for (char c : tok.text) {
      if (v > (INT64_MAX - (c - '0')) / 10) throw TemplateError(tok.pos, "integer literal too large");
      v = v * 10 + (c - '0');
    }
    return v;
  }

  ExprPtr ParsePostfix(ExprPtr node) {
    while (true) {
      if (IsOp(".")) {
        const SourcePos pos = Cur().pos;
        Advance();
        if (Cur().kind == TokenKind::kInteger) {
          auto index = std::make_unique<Expr>(Expr::Kind::kLiteral, Cur().pos);
          // Checked like any literal: `m.55555555555555555555` once threw
          // std::out_of_range out of the parser (found by chat_template_fuzz).
          index->literal = Value::Int(IntegerValue(Cur()));
          Advance();
          std::vector<ExprPtr> args;
          args.push_back(std::move(node));
          args.push_back(Finish(std::move(index)));
          node = Node(Expr::Kind::kGetItem, pos, std::move(args));
          continue;
        }
        std::vector<ExprPtr> args;
        args.push_back(std::move(node));
        const std::string name = ExpectName("an attribute name after '.'");
        node = Node(Expr::Kind::kGetAttr, pos, std::move(args));
        node->name = name;
      } else if (IsOp("[")) {
        node = ParseSubscript(std::move(node));
      } else if (IsOp("(")) {
        node = ParseCall(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr ParseSubscript(ExprPtr target) {
    const SourcePos pos = Cur().pos;
    Advance();  // [
    std::vector<ExprPtr> args;
    args.push_back(std::move(target));
    ExprPtr first;
    if (!IsOp(":")) first = ParseExpression();
    if (IsOp("]")) {
      Advance();
      args.push_back(std::move(first));
      return Node(Expr::Kind::kGetItem, pos, std::move(args));
    }
    args.push_back(std::move(first));
    for (int part = 0; part < 2; ++part) {
      if (!IsOp(":")) {
        args.push_back(nullptr);
        continue;
      }
      Advance();
      if (IsOp(":") || IsOp("]")) {
        args.push_back(nullptr);
      } else {
        args.push_back(ParseExpression());
      }
    }
    ExpectOp("]", "to close the subscript");
    return Node(Expr::Kind::kSlice, pos, std::move(args));
  }

  // Parses "(args, name=value)" into node->args (after any already there) and kwargs.
  void ParseArguments(Expr& node) {
    ExpectOp("(", "to open the argument list");
    while (!IsOp(")")) {
      if (Cur().kind == TokenKind::kName && IsOp("=", 1)) {
        std::string name = Cur().text;
        Advance();
        Advance();
        node.kwargs.emplace_back(std::move(name), ParseExpression());
      } else {
        if (!node.kwargs.empty()) Fail("a keyword argument (positional arguments come first)");
        node.args.push_back(ParseExpression());
      }
      if (!IsOp(",")) break;
      Advance();
    }
    ExpectOp(")", "to close the argument list");
  }

  ExprPtr ParseCall(ExprPtr callee) {
    auto e = std::make_unique<Expr>(Expr::Kind::kCall, Cur().pos);
    e->args.push_back(std::move(callee));
    ParseArguments(*e);
    return Finish(std::move(e));
  }

  ExprPtr ParseFilterExpr(ExprPtr node) {
    while (true) {
      if (IsOp("|")) {
        Advance();
        auto e = std::make_unique<Expr>(Expr::Kind::kFilter, Cur().pos);
        e->name = ExpectName("a filter name after '|'");
        e->args.push_back(std::move(node));
        if (IsOp("(")) ParseArguments(*e);
        node = Finish(std::move(e));
      } else if (IsName("is")) {
        Advance();
        auto e = std::make_unique<Expr>(Expr::Kind::kTest, Cur().pos);
        if (IsName("not")) {
          e->negated = true;
          Advance();
        }
        e->name = ExpectName("a test name after 'is'");
        e->args.push_back(std::move(node));
        const Token& next = Cur();
        const bool bare_arg =
            next.kind == TokenKind::kString || next.kind == TokenKind::kInteger || next.kind == TokenKind::kFloat ||
            (next.kind == TokenKind::kName && next.text != "else" && next.text != "or" && next.text != "and" &&
             next.text != "if" && next.text != "in" && next.text != "is" && next.text != "not") ||
            IsOp("[") || IsOp("{");
        if (IsOp("(")) {
          ParseArguments(*e);
        } else if (bare_arg) {
          e->args.push_back(ParsePostfix(ParsePrimary()));
        }
        node = Finish(std::move(e));
      } else if (IsOp("(")) {
        node = ParseCall(std::move(node));
      } else {
        return node;
      }
    }
  }

  const std::vector<Token>& t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

StmtList Parse(const std::vector<Token>& tokens) { return Parser(tokens).ParseTemplate(); }

}  // namespace trit::chat
