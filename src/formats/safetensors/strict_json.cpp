#include "formats/safetensors/strict_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/json_nesting.h"

namespace trit::safetensors {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxShownBytes = 120;

// Sees every event of the parser: the keys of each open object (innermost
// last), and the key under which each depth was entered.
class KeyTracker {
 public:
  explicit KeyTracker(std::optional<std::vector<std::string>>* duplicate) : duplicate_(duplicate) {}

  bool OnEvent(int depth, Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        open_.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_.empty()) open_.pop_back();
        break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        // A key read at depth d names what depth d holds; deeper entries are stale.
        path_.resize(static_cast<size_t>(std::max(depth, 1)));
        path_.back() = key;
        if (!open_.empty() && !open_.back().insert(key).second && !duplicate_->has_value()) *duplicate_ = path_;
        break;
      }
      default:
        break;
    }
    return true;
  }

 private:
  std::optional<std::vector<std::string>>* duplicate_;
  std::vector<std::set<std::string>> open_;
  std::vector<std::string> path_;
};

}  // namespace

Expected<StrictJson> ParseStrictJson(std::string_view text, int max_depth, std::string_view what) {
  if (!JsonNestingWithin(text, max_depth)) {
    return Error(ErrorCode::kCorrupt, "{} nests deeper than {} levels", what, max_depth);
  }
  StrictJson out;
  KeyTracker tracker(&out.duplicate_key);
  const Json::parser_callback_t callback = [&tracker](int depth, Json::parse_event_t event, Json& parsed) {
    return tracker.OnEvent(depth, event, parsed);
  };
  try {
    out.doc = Json::parse(text, callback);
  } catch (const Json::exception& e) {
    // what() reads "[json.exception.parse_error.101] parse error at line 1, column 9: ..."
    std::string_view message = e.what();
    if (const size_t at = message.find("] "); at != std::string_view::npos) message.remove_prefix(at + 2);
    return Error(ErrorCode::kCorrupt, "{} is not valid JSON: {}", what, Quoted(message));
  }
  return out;
}

std::string Quoted(std::string_view text) {
  std::string out = "'";
  const size_t n = std::min(text.size(), kMaxShownBytes);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (n < text.size()) out += "...";
  return out + "'";
}

std::string Found(const Json& v) {
  if (v.is_number()) return v.dump();
  if (v.is_string()) return "the string " + Quoted(v.get_ref<const std::string&>());
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.type_name();
}

}  // namespace trit::safetensors
