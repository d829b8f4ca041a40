// GGUF metadata values: the 13 value types of the format, arrays included
// (arrays of strings, arrays of arrays). Scalar arrays are kept packed, so a
// value costs memory proportional to its bytes in the file.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace trit::gguf {

// Values as stored in the file (`enum gguf_type`).
enum class ValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
inline constexpr uint32_t kValueTypeCount = 13;

// "uint8", "string", "array", ...; "type#N" for an unknown id.
std::string ValueTypeName(ValueType type);
// Bytes of one scalar of `type` in the file; 0 for string and array.
uint64_t ScalarSize(ValueType type);

// An array: one element type; elements in exactly one of the three vectors.
struct Array {
  ValueType element_type = ValueType::kUint8;
  std::vector<uint8_t> packed;        // scalar element types: size() * ScalarSize bytes, little-endian
  std::vector<std::string> strings;   // element_type == kString
  std::vector<Array> arrays;          // element_type == kArray (nested arrays)

  size_t size() const;

  // Element i of a scalar array. Precondition: T is the element type's C++ type.
  template <typename T>
  T At(size_t i) const {
    static_assert(std::is_arithmetic_v<T>);
    T v;
    std::memcpy(&v, packed.data() + i * sizeof(T), sizeof(T));
    return v;
  }

  template <typename T>
  static Array Of(ValueType element_type, const std::vector<T>& values);
  static Array OfStrings(std::vector<std::string> values);

  bool operator==(const Array&) const = default;
};

// One metadata value. The variant index equals the ValueType id.
class Value {
 public:
  using Storage = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                               std::string, Array, uint64_t, int64_t, double>;

  Value() = default;
  template <typename T>
  explicit Value(T v) : v_(std::move(v)) {}
  explicit Value(const char* s) : v_(std::string(s)) {}

  ValueType type() const { return static_cast<ValueType>(v_.index()); }
  const Storage& storage() const { return v_; }

  template <typename T>
  const T* get_if() const { return std::get_if<T>(&v_); }

  // Any integer type (and bool) widened to int64/uint64; nullopt-like false when not integral
  // or out of range.
  bool AsInt64(int64_t* out) const;
  bool AsUint64(uint64_t* out) const;

  bool operator==(const Value&) const = default;

 private:
  Storage v_;
};

template <typename T>
Array Array::Of(ValueType element_type, const std::vector<T>& values) {
  static_assert(std::is_arithmetic_v<T>);
  Array a;
  a.element_type = element_type;
  a.packed.resize(values.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is packed bits with no data(): one byte (0 or 1) per element.
    for (size_t i = 0; i < values.size(); ++i) a.packed[i] = values[i] ? 1 : 0;
  } else if (!values.empty()) {
    std::memcpy(a.packed.data(), values.data(), a.packed.size());
  }
  return a;
}

}  // namespace trit::gguf
