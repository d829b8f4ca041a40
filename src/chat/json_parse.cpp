#include "chat/json_parse.h"

#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace trit::chat {
namespace {

// ordered_json keeps the text's key order, as Python dicts do.
using Json = nlohmann::ordered_json;

Expected<Value> ToValue(const Json& j, int depth) {
  switch (j.type()) {
    case Json::value_t::null: return Value::None();
    case Json::value_t::boolean: return Value::Bool(j.get<bool>());
    case Json::value_t::number_integer: return Value::Int(j.get<int64_t>());
    case Json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Value::Int(static_cast<int64_t>(u));
      return Value::Float(static_cast<double>(u));
    }
    case Json::value_t::number_float: return Value::Float(j.get<double>());
    case Json::value_t::string: return Value::String(j.get<std::string>());
    case Json::value_t::array:
    case Json::value_t::object: break;
    default: return Status(ErrorCode::kInvalidArgument, "unexpected JSON value");  // binary, discarded
  }
  if (depth >= kMaxJsonNesting) {
    return Error(ErrorCode::kInvalidArgument, "JSON nested deeper than {} levels", kMaxJsonNesting);
  }
  if (j.is_array()) {
    List items;
    items.reserve(j.size());
    for (const Json& item : j) {
      Expected<Value> v = ToValue(item, depth + 1);
      if (!v.ok()) return v.status();
      items.push_back(std::move(v).value());
    }
    return Value::MakeList(std::move(items));
  }
  Dict dict;
  dict.entries.reserve(j.size());
  for (const auto& [key, item] : j.items()) {
    Expected<Value> v = ToValue(item, depth + 1);
    if (!v.ok()) return v.status();
    dict.entries.emplace_back(key, std::move(v).value());  // keys are unique in an ordered_json
  }
  return Value::MakeDict(std::move(dict));
}

}  // namespace

Expected<Value> ParseJson(std::string_view text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
    return Status(ErrorCode::kInvalidArgument, "invalid JSON: " + what);
  }
  return ToValue(j, 0);
}

Expected<Value> ToolArgumentsValue(std::string_view arguments) {
  Json j = Json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Value::String(std::string(arguments));  // not JSON (discarded), or not an object
  return ToValue(j, 0);
}

}  // namespace trit::chat
