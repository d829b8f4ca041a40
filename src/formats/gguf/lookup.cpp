#include "formats/gguf/lookup.h"

namespace trit::gguf {

namespace {

Status Missing(std::string_view key) {
  return Error(ErrorCode::kNotFound, "metadata '{}' is missing", key);
}

Status WrongType(std::string_view key, const Value& value, std::string_view expected) {
  return Error(ErrorCode::kInvalidArgument, "metadata '{}' is {}, expected {}", key, ValueTypeName(value.type()),
               expected);
}

bool IsInteger(const Value& value) {
  switch (value.type()) {
    case ValueType::kFloat32:
    case ValueType::kFloat64:
    case ValueType::kString:
    case ValueType::kArray: return false;
    default: return true;
  }
}

// The integer as text, for "does not fit" errors.
std::string IntegerText(const Value& value) {
  int64_t i = 0;
  if (value.AsInt64(&i)) return fmt::format("{}", i);
  uint64_t u = 0;
  if (value.AsUint64(&u)) return fmt::format("{}", u);
  return "?";
}

}  // namespace

Expected<std::string> ValueAsString(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  const auto* s = value->get_if<std::string>();
  if (s == nullptr) return WrongType(key, *value, "string");
  return *s;
}

Expected<uint64_t> ValueAsUint(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  if (!IsInteger(*value)) return WrongType(key, *value, "an integer");
  uint64_t out = 0;
  if (!value->AsUint64(&out)) {
    return Error(ErrorCode::kInvalidArgument, "metadata '{}' is {} {}, expected a non-negative integer", key,
                 ValueTypeName(value->type()), IntegerText(*value));
  }
  return out;
}

Expected<int64_t> ValueAsInt(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  if (!IsInteger(*value)) return WrongType(key, *value, "an integer");
  int64_t out = 0;
  if (!value->AsInt64(&out)) {
    return Error(ErrorCode::kInvalidArgument, "metadata '{}' is {} {}, which does not fit int64", key,
                 ValueTypeName(value->type()), IntegerText(*value));
  }
  return out;
}

Expected<float> ValueAsFloat(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  if (const auto* f = value->get_if<float>()) return *f;
  if (const auto* d = value->get_if<double>()) return static_cast<float>(*d);
  return WrongType(key, *value, "float32 or float64");
}

Expected<bool> ValueAsBool(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  const auto* b = value->get_if<bool>();
  if (b == nullptr) return WrongType(key, *value, "bool");
  return *b;
}

Expected<const Array*> ValueAsArray(std::string_view key, const Value* value) {
  if (value == nullptr) return Missing(key);
  const auto* a = value->get_if<Array>();
  if (a == nullptr) return WrongType(key, *value, "array");
  return a;
}

}  // namespace trit::gguf
