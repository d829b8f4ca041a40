#include "cli/metadata_json.h"

#include <fmt/format.h>

#include <type_traits>

#include "cli/format_util.h"

namespace trit::cli {
namespace {

// Calls `f` with element i of a scalar array, converted to its C++ type.
template <typename F>
auto VisitScalarElement(const gguf::Array& a, size_t i, F&& f) {
  using gguf::ValueType;
  switch (a.element_type) {
    case ValueType::kUint8: return f(a.At<uint8_t>(i));
    case ValueType::kInt8: return f(a.At<int8_t>(i));
    case ValueType::kUint16: return f(a.At<uint16_t>(i));
    case ValueType::kInt16: return f(a.At<int16_t>(i));
    case ValueType::kUint32: return f(a.At<uint32_t>(i));
    case ValueType::kInt32: return f(a.At<int32_t>(i));
    case ValueType::kFloat32: return f(a.At<float>(i));
    case ValueType::kBool: return f(a.At<uint8_t>(i) != 0);
    case ValueType::kUint64: return f(a.At<uint64_t>(i));
    case ValueType::kInt64: return f(a.At<int64_t>(i));
    case ValueType::kFloat64: return f(a.At<double>(i));
    case ValueType::kString:
    case ValueType::kArray: break;
  }
  return f(0);  // unreachable for a parsed array: strings and arrays are not packed
}

std::string ScalarText(const gguf::Value::Storage& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return Quoted(x, 200);
        } else if constexpr (std::is_same_v<T, gguf::Array>) {
          return "";
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
          return fmt::format("{}", static_cast<int>(x));
        } else {
          return fmt::format("{}", x);
        }
      },
      v);
}

std::string ArrayText(const gguf::Array& a, size_t max_chars) {
  std::string out = fmt::format("[{} x {}]", a.size(), gguf::ValueTypeName(a.element_type));
  for (size_t i = 0; i < a.size(); ++i) {
    if (out.size() >= max_chars) {
      out += " ...";
      break;
    }
    out += i == 0 ? " " : ", ";
    if (a.element_type == gguf::ValueType::kString) {
      out += Quoted(a.strings[i], 40);
    } else if (a.element_type == gguf::ValueType::kArray) {
      out += ArrayText(a.arrays[i], max_chars / 2);
    } else {
      out += VisitScalarElement(a, i, [](auto x) { return ScalarText(gguf::Value::Storage(x)); });
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json ArrayToJson(const gguf::Array& a, size_t max_array_items) {
  if (a.size() > max_array_items) {
    return {{"element_type", gguf::ValueTypeName(a.element_type)}, {"length", a.size()}};
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.element_type == gguf::ValueType::kString) {
      out.push_back(a.strings[i]);
    } else if (a.element_type == gguf::ValueType::kArray) {
      out.push_back(ArrayToJson(a.arrays[i], max_array_items));
    } else {
      out.push_back(VisitScalarElement(a, i, [](auto x) { return nlohmann::ordered_json(x); }));
    }
  }
  return out;
}

nlohmann::ordered_json ValueToJson(const gguf::Value& value, size_t max_array_items) {
  return std::visit(
      [&](const auto& x) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, gguf::Array>) {
          return ArrayToJson(x, max_array_items);
        } else {
          return nlohmann::ordered_json(x);
        }
      },
      value.storage());
}

std::string ValueToText(const gguf::Value& value, size_t max_chars) {
  if (const gguf::Array* a = value.get_if<gguf::Array>()) return ArrayText(*a, max_chars);
  return ScalarText(value.storage());
}

}  // namespace trit::cli
