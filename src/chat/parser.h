// Parses the token stream of lexer.h into the syntax tree of ast.h, with
// jinja2's operator precedence: or < and < not < comparisons/in < + - < ~ <
// * / // % < ** < unary - + < filters, tests, calls, attributes, subscripts.
#pragma once

#include <vector>

#include "chat/ast.h"
#include "chat/lexer.h"

namespace trit::chat {

// Nesting bound for expressions and blocks: deeper templates are refused
// (jinja2 itself stops at Python's recursion limit).
inline constexpr int kMaxNesting = 128;

// Throws TemplateError at line:column naming what was expected, e.g.
// "expected '%}' after 'endif', found 'x'"; unsupported tags (include,
// extends, import, raw, call, filter, ...) are refused by name.
StmtList Parse(const std::vector<Token>& tokens);

}  // namespace trit::chat
