// Stop strings for streamed text: text is appended piece by piece; the
// matcher says how much of it may be sent now (never a prefix of a stop
// string that the next piece could complete) and where a stop string ends
// the answer. OpenAI semantics: the stop string itself is not returned.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace trit::server {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops);

  // Appends `piece`. Returns true when a stop string now occurs in the text;
  // the text is then cut just before its first occurrence, and later
  // pieces are ignored.
  bool Append(const std::string& piece);
  // Text that can be sent now and was not taken before (all of it when `final`).
  std::string Take(bool final);

  const std::string& text() const { return text_; }

 private:
  std::vector<std::string> stops_;
  std::string text_;
  size_t sent_ = 0;
  size_t searched_ = 0;  // stop strings cannot start before this offset
  bool stopped_ = false;
};

}  // namespace trit::server
