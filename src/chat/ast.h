// The syntax tree of a compiled template. Every node keeps the source
// position it starts at, for error messages.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/template_error.h"
#include "chat/value.h"

namespace trit::chat {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtList = std::vector<std::unique_ptr<Stmt>>;

struct Expr {
  enum class Kind {
    kLiteral,  // literal
    kName,     // name
    kList,     // args: items
    kTuple,    // args: items
    kDict,     // args: key0, value0, key1, value1, ...
    kGetAttr,  // args[0].name
    kGetItem,  // args[0][args[1]]
    kSlice,    // args[0][args[1]:args[2]:args[3]] (null parts omitted)
    kCall,     // args[0](args[1..], kwargs)
    kFilter,   // args[0] | name(args[1..], kwargs)
    kTest,     // args[0] is [not] name(args[1..])
    kUnary,    // name (-, +, not) args[0]
    kBinary,   // args[0] name args[1]: + - * / // % ** ~ and or
    kCompare,  // args[0] ops[0] args[1] ops[1] args[2] ... (chained)
    kTernary,  // args[0] if args[1] else args[2] (args[2] may be null)
  };

  Expr(Kind k, SourcePos p) : kind(k), pos(p) {}

  Kind kind;
  SourcePos pos;
  std::string name;               // variable, attribute, filter, test or operator
  Value literal;                  // kLiteral
  std::vector<ExprPtr> args;      // operands (see kinds)
  std::vector<std::pair<std::string, ExprPtr>> kwargs;  // kCall, kFilter
  std::vector<std::string> ops;   // kCompare
  bool negated = false;           // kTest: "is not"
  int height = 1;                 // longest path to a leaf (bounded by the parser)
};

struct IfBranch {
  ExprPtr condition;
  StmtList body;
};

struct MacroParam {
  std::string name;
  ExprPtr default_value;  // may be null
};

struct Stmt {
  enum class Kind {
    kText,      // text
    kOutput,    // {{ expr }}
    kIf,        // branches, else_body
    kFor,       // targets in expr [if filter]: body [else else_body]
    kSet,       // {% set targets = expr %} or {% set target.attr = expr %}; block form: body
    kMacro,     // {% macro name(params) %} body
    kBreak,
    kContinue,
  };

  Stmt(Kind k, SourcePos p) : kind(k), pos(p) {}

  Kind kind;
  SourcePos pos;
  std::string text;                  // kText; kSet: attribute for "ns.attr"; kMacro: name
  ExprPtr expr;                      // kOutput, kFor (iterable), kSet (value, null for the block form)
  ExprPtr filter;                    // kFor: "if" filter, may be null
  std::vector<std::string> targets;  // kFor, kSet
  std::vector<IfBranch> branches;    // kIf
  StmtList body;                     // kFor, kMacro, kSet (block form)
  StmtList else_body;                // kIf, kFor
  std::vector<MacroParam> params;    // kMacro
};

}  // namespace trit::chat
