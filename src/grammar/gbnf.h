// GBNF, llama.cpp's grammar notation, parsed into a Grammar (grammar.h) that
// matchers (matcher.h) run over Unicode code points.
//
// What is accepted (llama.cpp's syntax):
//   name ::= alternatives        rule names are [a-zA-Z0-9-]+; the start rule is `root`
//   a b | c d                    sequences and alternatives
//   ( ... )                      groups (newlines inside are spaces)
//   x* x+ x? x{m} x{m,} x{m,n} x{,n}   repetitions of the element before
//   "..."  [a-z0-9_]  [^"\\]  .  literals, character classes (negated), any code point
//   \n \r \t \\ \" \' \[ \] \- \^ \/   escapes in literals and classes, and \xHH \uHHHH \UHHHHHHHH
//   # ...                        comments to the end of the line
// As in llama.cpp, a newline ends a rule except inside a group and right
// after `::=` or `|`.
//
// Requests are untrusted, so the grammar is bounded (kMax* below): every
// limit hit is an error that names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/status.h"

namespace trit::grammar {

class Grammar;  // grammar.h; immutable after parsing, shared read-only by matchers and threads

inline constexpr size_t kMaxGbnfBytes = size_t{4} << 20;       // the grammar text
inline constexpr size_t kMaxGrammarElements = 500'000;         // symbols after repetitions are expanded
inline constexpr size_t kMaxGrammarRules = 100'000;            // named rules and generated helpers
inline constexpr uint32_t kMaxRepetition = 10'000;             // m and n of {m,n}
inline constexpr int kMaxGroupDepth = 256;                     // nested parentheses

// Parses `text`; the start rule is `root`. Errors (kInvalidArgument) give
// line:column and what was expected there, or name the rule that is
// undefined, defined twice, or left-recursive (a rule that can reach itself
// before reading a character cannot be matched), or say the text is empty
// or a limit was passed.
Expected<std::shared_ptr<const Grammar>> ParseGbnf(std::string_view text);

}  // namespace trit::grammar
