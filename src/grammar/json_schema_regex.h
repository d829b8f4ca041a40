// Internal to the JSON-schema converter: a JSON Schema `pattern` (an ECMA-262
// regular expression) as a GBNF expression for the JSON strings it matches.
//
// The strings the expression accepts match the pattern under both ECMA-262
// and Python's `re` (what validators use), unanchored as JSON Schema says: a
// top-level branch without `^` may be preceded, and one without `$`
// followed, by any characters. Where the two engines differ (Unicode digits
// in \d, \s, `.` and \r), only characters that both count are produced.
//
// Supported: literals, `.`, classes `[...]` and `[^...]` with ranges, \d \w
// \s \D \W \S, escapes \t \n \r \f \v \xXX \uXXXX and escaped punctuation,
// groups `(...)`, `(?:...)`, `(?<name>...)`, `(?P<name>...)`, alternation,
// quantifiers * + ? {n} {n,} {n,m} (lazy forms too; counts up to
// kMaxSchemaCount), `^` at the start and `$` at the end of a top-level branch.
// Refused, naming the construct: backreferences, lookaround, \b \B, inline
// flags, \p{...}, anchors elsewhere, a `{` that is not a quantifier.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "grammar/json_schema_rules.h"

namespace trit::grammar::schema {

// The expression includes the string's quotes. Errors name the pattern and
// the offending construct (the caller adds the schema path).
Expected<std::string> PatternToGbnf(std::string_view pattern, RuleSet* rules);

}  // namespace trit::grammar::schema
