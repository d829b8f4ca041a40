#include "server/stop_matcher.h"

#include <algorithm>

namespace trit::server {

StopMatcher::StopMatcher(std::vector<std::string> stops) {
  for (std::string& s : stops) {
    if (!s.empty()) stops_.push_back(std::move(s));
  }
}

bool StopMatcher::Append(const std::string& piece) {
  if (stopped_) return true;
  text_ += piece;
  size_t first = std::string::npos;
  size_t longest = 0;
  for (const std::string& s : stops_) {
    longest = std::max(longest, s.size());
    const size_t at = text_.find(s, searched_);
    if (at != std::string::npos) first = std::min(first, at);
  }
  if (first != std::string::npos) {
    text_.resize(first);
    sent_ = std::min(sent_, first);
    stopped_ = true;
    return true;
  }
  // A stop string found later must end in new text, so it starts at most
  // longest - 1 bytes before the end of what was searched now.
  if (text_.size() >= longest) searched_ = std::max(searched_, text_.size() - longest + 1);
  return false;
}

std::string StopMatcher::Take(bool final) {
  size_t safe = text_.size();
  if (!final) {
    // Hold back the longest tail that is a proper prefix of a stop string.
    for (const std::string& s : stops_) {
      const size_t max_len = std::min(s.size() - 1, text_.size() - sent_);
      for (size_t len = max_len; len > 0; --len) {
        if (text_.compare(text_.size() - len, len, s, 0, len) == 0) {
          safe = std::min(safe, text_.size() - len);
          break;
        }
      }
    }
  }
  std::string out = safe > sent_ ? text_.substr(sent_, safe - sent_) : std::string();
  sent_ = std::max(sent_, safe);
  return out;
}

}  // namespace trit::server
