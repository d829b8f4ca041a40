// JSON Schema to GBNF, for OpenAI's `response_format`: a grammar whose every
// string is JSON that validates against the schema, so that decoding
// constrained by it (grammar/matcher.h) always yields a valid answer.
//
// The grammar is a SUBSET of the valid documents, never a superset. What a
// string of the grammar looks like:
//   - compact JSON: no whitespace at all between tokens (none is needed, and
//     a model cannot pad forever);
//   - integers of at most 16 digits without leading zeros; numbers with at
//     most 16 integer digits, 16 fraction digits and a 2-digit exponent;
//   - strings of raw UTF-8 characters (no control characters) and escapes
//     \" \\ \/ \b \f \n \r \t \uXXXX (not surrogates: a character beyond the
//     BMP is written raw);
//   - object properties in the schema's order: required ones always, optional
//     ones or not; extra properties (additionalProperties absent, true or a
//     schema) after the listed ones, with keys that are none of the listed
//     names (extra keys are not kept distinct from each other: JSON parsers
//     keep the last of a repeated key, whose value validates all the same).
//
// Supported keywords:
//   type (one or a list; absent: the types its other keywords constrain, or
//   any), enum, const, properties, required, additionalProperties (false,
//   true, a schema), items (a schema, or an array with additionalItems),
//   prefixItems, minItems, maxItems, uniqueItems (false, or with maxItems <= 1),
//   anyOf, oneOf (when its alternatives differ by type or by a required
//   property whose const/enum values differ, so no value matches two), allOf
//   (merged: types intersected, properties merged, bounds tightened, enums
//   intersected, additionalProperties false honoured), $ref to any local
//   pointer ("#", "#/$defs/x", "#/definitions/x"; recursion allowed, one rule
//   per target, with an object or array between a schema and itself),
//   minLength, maxLength, pattern (json_schema_regex.h: a regex subset,
//   converted exactly), format (date, time, date-time, uuid, exactly: real
//   calendar days, leap years), minimum, maximum, exclusiveMinimum,
//   exclusiveMaximum (draft 4's boolean form too): exact for integers; for
//   numbers only at integer bounds (such numbers are written without exponent).
// Ignored as annotations: title, description, $schema, $id, $comment,
//   examples, default, deprecated, readOnly, writeOnly, discriminator
//   (OpenAPI's, which validators ignore), and $defs/definitions (read only
//   through $ref).
// Refused with an error naming the keyword and its JSON pointer path (e.g.
//   "schema keyword 'multipleOf' at /properties/age is not supported"): every
//   other keyword (not, if/then/else, patternProperties, propertyNames,
//   minProperties, contains, multipleOf, ...), unknown ones included, and
//   combinations trit cannot make exact (pattern with minLength/maxLength,
//   enum/const beside keywords other than type, format other than the four).
//
// Limits, so that a hostile schema cannot make a giant grammar: counts
// (maxLength, maxItems, a pattern's {n,m}) above 1000 are refused, not
// dropped (an upper bound must hold); the grammar text is capped at 1 MiB;
// schemas nest at most 64 deep and a conversion takes a bounded number of
// steps (allOf merges through $ref included). Each limit hit is an error
// that says which.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace trit::grammar {

// The GBNF grammar (start rule `root`) of the JSON documents valid under
// `schema_json`, a JSON Schema as JSON text (an object or a boolean).
// Errors (kInvalidArgument for bad JSON or a malformed or unsatisfiable
// schema, kUnsupported for what trit does not convert) name the keyword and
// its path.
Expected<std::string> JsonSchemaToGbnf(std::string_view schema_json);

// Any JSON object, for response_format {"type": "json_object"}.
std::string JsonObjectGbnf();

// Any JSON value (what the schema `true` or `{}` gives).
std::string JsonValueGbnf();

}  // namespace trit::grammar
