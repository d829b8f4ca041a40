// The value model of the template language: what a Jinja expression can
// evaluate to. Mirrors the Python objects a HF chat template sees (None, bool,
// int, float, str, list, dict) plus Jinja's Undefined, namespace() objects and
// callables (macros, built-in globals).
//
// Lists and dicts are shared by reference like Python objects; templates run
// as in HF's ImmutableSandboxedEnvironment, so only namespace attributes are
// ever mutated.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace trit::chat {

struct Stmt;
class Value;

using List = std::vector<Value>;

// An insertion-ordered string-keyed map (Python dicts keep insertion order).
struct Dict {
  std::vector<std::pair<std::string, Value>> entries;

  const Value* Find(std::string_view key) const;
  Value* Find(std::string_view key);
  void Set(std::string key, Value value);
};

// A macro defined by the template or a built-in global function (range, ...).
struct Callable {
  const Stmt* macro = nullptr;  // set for macros; owned by the compiled template
  std::string name;             // the macro's or the built-in's name
};

class Value {
 public:
  enum class Kind { kUndefined, kNone, kBool, kInt, kFloat, kString, kList, kDict, kNamespace, kCallable };

  Value() : kind_(Kind::kUndefined), v_(std::string()) {}
  static Value Undefined(std::string name) { return Value(Kind::kUndefined, std::move(name)); }
  static Value None() { return Value(Kind::kNone, std::monostate()); }
  static Value Bool(bool b) { return Value(Kind::kBool, b); }
  static Value Int(int64_t i) { return Value(Kind::kInt, i); }
  static Value Float(double f) { return Value(Kind::kFloat, f); }
  static Value String(std::string s) { return Value(Kind::kString, std::move(s)); }
  static Value MakeList(List items = {}) { return Value(Kind::kList, std::make_shared<List>(std::move(items))); }
  static Value MakeDict(Dict d = {}) { return Value(Kind::kDict, std::make_shared<Dict>(std::move(d))); }
  static Value MakeNamespace(Dict d = {}) { return Value(Kind::kNamespace, std::make_shared<Dict>(std::move(d))); }
  static Value MakeCallable(Callable c) { return Value(Kind::kCallable, std::make_shared<const Callable>(std::move(c))); }

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  // Python numbers: bool is an int subclass.
  bool is_number() const { return kind_ == Kind::kInt || kind_ == Kind::kFloat || kind_ == Kind::kBool; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_dict() const { return kind_ == Kind::kDict; }
  bool is_namespace() const { return kind_ == Kind::kNamespace; }
  bool is_callable() const { return kind_ == Kind::kCallable; }

  // Accessors; the caller checks the kind first.
  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return kind_ == Kind::kBool ? (std::get<bool>(v_) ? 1 : 0) : std::get<int64_t>(v_); }
  double as_float() const { return kind_ == Kind::kFloat ? std::get<double>(v_) : static_cast<double>(as_int()); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const List& as_list() const { return *std::get<std::shared_ptr<List>>(v_); }
  const Dict& as_dict() const { return *std::get<std::shared_ptr<Dict>>(v_); }
  Dict& mutable_dict() const { return *std::get<std::shared_ptr<Dict>>(v_); }  // namespaces only
  const Callable& as_callable() const { return *std::get<std::shared_ptr<const Callable>>(v_); }
  // For an undefined value: the expression that produced it (for error messages).
  const std::string& undefined_name() const { return std::get<std::string>(v_); }

  // Python truthiness (Undefined is falsy).
  bool Truthy() const;
  // Python type name, for error messages ("str", "int", "dict", ...).
  std::string_view TypeName() const;

 private:
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, std::shared_ptr<List>,
                               std::shared_ptr<Dict>, std::shared_ptr<const Callable>>;
  Value(Kind kind, Storage v) : kind_(kind), v_(std::move(v)) {}

  Kind kind_;
  Storage v_;
};

// Python's == (1 == 1.0 == True; lists and dicts compare deeply).
bool Equal(const Value& a, const Value& b);

// Python's repr() of a float (shortest round-trip digits, "1e-05", "inf").
std::string FloatRepr(double f);
// Python's repr() of a value as it appears inside a list or dict ('it''s' quoted).
std::string Repr(const Value& v);
// Jinja's rendering of a value in {{ }}: str() for strings and numbers, "" for
// Undefined, "None"/"True"/"False", Python repr for lists and dicts.
std::string ToDisplayString(const Value& v);

}  // namespace trit::chat
