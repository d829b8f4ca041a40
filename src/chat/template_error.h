// Errors inside the template engine. The lexer, parser and evaluator throw
// TemplateError (their call depth is bounded); chat_template.cpp catches it at
// the public API and returns a Status, so no exception ever leaves trit_chat.
#pragma once

#include <stdexcept>
#include <string>

namespace trit::chat {

// A place in the template source, 1-based.
struct SourcePos {
  int line = 1;
  int column = 1;
};

class TemplateError : public std::runtime_error {
 public:
  TemplateError(SourcePos pos, const std::string& message)
      : std::runtime_error(message), pos_(pos) {}
  SourcePos pos() const { return pos_; }

 private:
  SourcePos pos_;
};

}  // namespace trit::chat
