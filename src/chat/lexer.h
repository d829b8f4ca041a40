// Splits a template into tokens the way jinja2's lexer does with HF's
// settings (trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False):
// text runs, the delimiters of {{ }} and {% %} (comments are dropped), and the
// expression tokens between them. Whitespace control (-, +) and the block
// trimming rules are applied here, so the parser sees final text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "chat/template_error.h"

namespace trit::chat {

enum class TokenKind {
  kText,        // literal output
  kVarBegin,    // {{
  kVarEnd,      // }}
  kBlockBegin,  // {%
  kBlockEnd,    // %}
  kName,        // identifier or keyword
  kString,      // string literal, escapes already decoded
  kInteger,
  kFloat,
  kOperator,    // + - * / // % ** ~ == != < <= > >= = | . , : ( ) [ ] { }
  kEnd,         // end of input
};

struct Token {
  TokenKind kind;
  std::string text;  // decoded text, name, literal digits or operator
  SourcePos pos;
};

struct LexOptions {
  bool trim_blocks = true;
  bool lstrip_blocks = true;
};

// Throws TemplateError naming line:column for an unterminated tag, comment or
// string, or a character that cannot start a token.
std::vector<Token> Tokenize(std::string_view source, const LexOptions& options = {});

// Decodes the escapes of a Python string literal body as jinja2 does
// (\n \t \\ \' \x41 \u00e9 ...; unknown escapes are kept).
std::string DecodeStringEscapes(std::string_view body);

}  // namespace trit::chat
