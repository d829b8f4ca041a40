#include "formats/gguf/value.h"

#include <fmt/format.h>

#include <limits>

namespace trit::gguf {

std::string ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kUint8: return "uint8";
    case ValueType::kInt8: return "int8";
    case ValueType::kUint16: return "uint16";
    case ValueType::kInt16: return "int16";
    case ValueType::kUint32: return "uint32";
    case ValueType::kInt32: return "int32";
    case ValueType::kFloat32: return "float32";
    case ValueType::kBool: return "bool";
    case ValueType::kString: return "string";
    case ValueType::kArray: return "array";
    case ValueType::kUint64: return "uint64";
    case ValueType::kInt64: return "int64";
    case ValueType::kFloat64: return "float64";
  }
  return fmt::format("type#{}", static_cast<uint32_t>(type));
}

uint64_t ScalarSize(ValueType type) {
  switch (type) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kBool: return 1;
    case ValueType::kUint16:
    case ValueType::kInt16: return 2;
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kFloat32: return 4;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64: return 8;
    case ValueType::kString:
    case ValueType::kArray: return 0;
  }
  return 0;
}

size_t Array::size() const {
  if (element_type == ValueType::kString) return strings.size();
  if (element_type == ValueType::kArray) return arrays.size();
  const uint64_t scalar = ScalarSize(element_type);
  return scalar == 0 ? 0 : packed.size() / scalar;
}

Array Array::OfStrings(std::vector<std::string> values) {
  Array a;
  a.element_type = ValueType::kString;
  a.strings = std::move(values);
  return a;
}

namespace {

// The value as a signed/unsigned pair: `negative` set when the integer is below zero.
struct WideInt {
  bool integral = false;
  bool negative = false;
  uint64_t magnitude = 0;  // the value itself when !negative; -(value) as uint64 when negative
};

template <typename T>
WideInt Widen(T v) {
  WideInt w;
  if constexpr (std::is_same_v<T, bool>) {
    w.integral = true;
    w.magnitude = v ? 1 : 0;
  } else if constexpr (std::is_integral_v<T>) {
    w.integral = true;
    if constexpr (std::is_signed_v<T>) {
      if (v < 0) {
        w.negative = true;
        w.magnitude = static_cast<uint64_t>(0) - static_cast<uint64_t>(static_cast<int64_t>(v));
        return w;
      }
    }
    w.magnitude = static_cast<uint64_t>(v);
  }
  return w;
}

WideInt WidenValue(const Value::Storage& storage) {
  return std::visit([](const auto& v) -> WideInt {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_integral_v<T>) return Widen(v);
    return WideInt{};
  }, storage);
}

}  // namespace

bool Value::AsInt64(int64_t* out) const {
  const WideInt w = WidenValue(v_);
  if (!w.integral) return false;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (w.negative) {
    if (w.magnitude > kMax + 1) return false;
    *out = w.magnitude == kMax + 1 ? std::numeric_limits<int64_t>::min()
                                   : -static_cast<int64_t>(w.magnitude);
    return true;
  }
  if (w.magnitude > kMax) return false;
  *out = static_cast<int64_t>(w.magnitude);
  return true;
}

bool Value::AsUint64(uint64_t* out) const {
  const WideInt w = WidenValue(v_);
  if (!w.integral || w.negative) return false;
  *out = w.magnitude;
  return true;
}

}  // namespace trit::gguf
