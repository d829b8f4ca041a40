// Renders a parsed template: runs the statements of ast.h against a set of
// global variables and returns the text, within explicit bounds so that a
// hostile template can neither loop forever nor exhaust memory.
#pragma once

#include <cstdint>
#include <string>

#include "chat/ast.h"
#include "chat/value.h"

namespace trit::chat {

struct RenderLimits {
  size_t max_output_bytes = size_t{16} << 20;  // also bounds every string or list built
  // Statements + expression nodes evaluated. 4 million bounds a hostile
  // template (one comes inside any downloaded GGUF, and renders on the
  // server's event loop) while leaving room for long conversations.
  uint64_t max_steps = 4'000'000;
  int max_call_depth = 64;                     // nested macro calls
};

// Throws TemplateError (with the position of the failing construct) for
// type errors, undefined values used where jinja2 refuses them,
// raise_exception(), and exceeded limits.
std::string Render(const StmtList& program, const Dict& globals, const RenderLimits& limits);

}  // namespace trit::chat
