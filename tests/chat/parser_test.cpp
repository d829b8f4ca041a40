// Tests of src/chat/parser.*: tree shapes, precedence and error positions.
#include "chat/parser.h"

#include <gtest/gtest.h>

namespace trit::chat {
namespace {

// A compact rendering of an expression tree, e.g. "(+ a (| b trim))".
std::string Show(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kLiteral: return ToDisplayString(e.literal);
    case Expr::Kind::kName: return e.name;
    case Expr::Kind::kBinary: return "(" + e.name + " " + Show(*e.args[0]) + " " + Show(*e.args[1]) + ")";
    case Expr::Kind::kUnary: return "(" + e.name + " " + Show(*e.args[0]) + ")";
    case Expr::Kind::kFilter: return "(| " + Show(*e.args[0]) + " " + e.name + ")";
    case Expr::Kind::kTest: return std::string("(is") + (e.negated ? "not " : " ") + Show(*e.args[0]) + " " + e.name + ")";
    case Expr::Kind::kCompare: return "(" + e.ops[0] + " " + Show(*e.args[0]) + " " + Show(*e.args[1]) + ")";
    case Expr::Kind::kGetAttr: return "(. " + Show(*e.args[0]) + " " + e.name + ")";
    case Expr::Kind::kGetItem: return "([] " + Show(*e.args[0]) + " " + Show(*e.args[1]) + ")";
    case Expr::Kind::kTernary: return "(if " + Show(*e.args[1]) + " " + Show(*e.args[0]) + " " + (e.args[2] ? Show(*e.args[2]) : "-") + ")";
    default: return "?";
  }
}

std::string ParseExpr(const std::string& expr) {
  StmtList program = Parse(Tokenize("{{ " + expr + " }}"));
  EXPECT_EQ(program.size(), 1u);
  return Show(*program[0]->expr);
}

TEST(ChatParser, PrecedenceMatchesJinja) {
  EXPECT_EQ(ParseExpr("a + b | trim"), "(+ a (| b trim))");
  EXPECT_EQ(ParseExpr("a ~ b + c"), "(+ (~ a b) c)");  // ~ binds tighter than +
  EXPECT_EQ(ParseExpr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(ParseExpr("not a is defined"), "(not (is a defined))");
  EXPECT_EQ(ParseExpr("not 'x' in y"), "(not (in x y))");
  EXPECT_EQ(ParseExpr("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(ParseExpr("x is not none and y"), "(and (isnot x none) y)");
  EXPECT_EQ(ParseExpr("-a | abs"), "(| (- a) abs)");
  EXPECT_EQ(ParseExpr("a.b['c']"), "([] (. a b) c)");
  EXPECT_EQ(ParseExpr("a if b else c"), "(if b a c)");
  EXPECT_EQ(ParseExpr("a if b"), "(if b a -)");
  EXPECT_EQ(ParseExpr("a not in b"), "(not in a b)");
}

TEST(ChatParser, StatementsNest) {
  StmtList program = Parse(Tokenize("{% for k, v in d.items() if k %}{% if a %}x{% elif b %}y{% else %}z{% endif %}"
                                    "{% else %}e{% endfor %}"));
  ASSERT_EQ(program.size(), 1u);
  const Stmt& loop = *program[0];
  EXPECT_EQ(loop.kind, Stmt::Kind::kFor);
  EXPECT_EQ(loop.targets, (std::vector<std::string>{"k", "v"}));
  EXPECT_NE(loop.filter, nullptr);
  ASSERT_EQ(loop.body.size(), 1u);
  EXPECT_EQ(loop.body[0]->branches.size(), 2u);
  EXPECT_EQ(loop.body[0]->else_body.size(), 1u);
  EXPECT_EQ(loop.else_body.size(), 1u);
}

TEST(ChatParser, ErrorsNamePositionAndExpectation) {
  const auto error = [](const std::string& source) -> std::string {
    try {
      Parse(Tokenize(source));
    } catch (const TemplateError& e) {
      return std::to_string(e.pos().line) + ":" + std::to_string(e.pos().column) + " " + e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("{% if x %}a"), "1:12 expected '{% elif %}' or '{% else %}' or '{% endif %}', found end of template");
  EXPECT_EQ(error("a\n{% if x y %}"), "2:9 expected '%}' after 'if', found 'y'");
  EXPECT_EQ(error("{{ a + }}"), "1:8 expected an expression, found '}}'");
  EXPECT_EQ(error("{{ (a + }}"), "1:9 unexpected '}'");
  EXPECT_EQ(error("{% include 'x' %}"), "1:4 unsupported tag 'include'");
  EXPECT_EQ(error("{% frobnicate %}"), "1:4 unknown tag 'frobnicate'");
  EXPECT_EQ(error("{% for x %}{% endfor %}"), "1:10 expected 'in' after the loop variables, found '%}'");
}

TEST(ChatParser, HugeIntegersAreRefusedNotACrash) {
  // chat_template_fuzz's finding: a huge integer after '.' threw
  // std::out_of_range from std::stoll, out of the parser (a terminate).
  for (const char* source : {"{%if(m.555555555555555555555)%}", "{{ m.99999999999999999999 }}",
                             "{{ 99999999999999999999 }}"}) {
    EXPECT_THROW(Parse(Tokenize(source)), TemplateError) << source;
  }
  EXPECT_NO_THROW(Parse(Tokenize("{{ m.9223372036854775807 }}")));  // INT64_MAX still fits
}

TEST(ChatParser, DeepNestingIsRefusedNotACrash) {
  EXPECT_THROW(Parse(Tokenize("{{ " + std::string(300, '(') + "a" + std::string(300, ')') + " }}")), TemplateError);
  std::string chain = "{{ a";
  for (int i = 0; i < 2000; ++i) chain += " + a";
  EXPECT_THROW(Parse(Tokenize(chain + " }}")), TemplateError);
  std::string blocks;
  for (int i = 0; i < 300; ++i) blocks += "{% if a %}";
  EXPECT_THROW(Parse(Tokenize(blocks)), TemplateError);
}

}  // namespace
}  // namespace trit::chat
