// The |tojson filter as HF transformers defines it for chat templates:
// json.dumps(x, ensure_ascii=False, indent=indent, sort_keys=sort_keys), so
// non-ASCII text stays raw and nothing is HTML-escaped (unlike jinja2's own).
#pragma once

#include <optional>
#include <string>

#include "chat/template_error.h"
#include "chat/value.h"

namespace trit::chat {

struct JsonDumpOptions {
  std::optional<std::string> indent;  // per-level indent; nullopt: one line with ", " and ": "
  bool sort_keys = false;
};

// Throws TemplateError (at pos) for values JSON cannot hold (Undefined,
// macros, namespaces), as json.dumps raises TypeError.
std::string JsonDump(const Value& v, const JsonDumpOptions& options, SourcePos pos);

}  // namespace trit::chat
