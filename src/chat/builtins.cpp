#include "chat/builtins.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "chat/json_dump.h"
#include "chat/py_string.h"

namespace trit::chat {
namespace {

[[noreturn]] void Fail(SourcePos pos, const std::string& message) { throw TemplateError(pos, message); }

std::string TypeError(std::string_view what, const Value& v) {
  return std::string(what) + ": unsupported type '" + std::string(v.TypeName()) + "'";
}

// jinja2's soft_str: str(value), "" for Undefined.
std::string Str(const Value& v) { return ToDisplayString(v); }

const std::string& ExpectString(const Value& v, std::string_view what, SourcePos pos) {
  if (!v.is_string()) Fail(pos, std::string(what) + ": expected a string, got '" + std::string(v.TypeName()) + "'");
  return v.as_string();
}

int64_t ExpectInt(const Value& v, std::string_view what, SourcePos pos) {
  if (!v.is_int() && !v.is_bool()) {
    Fail(pos, std::string(what) + ": expected an integer, got '" + std::string(v.TypeName()) + "'");
  }
  return v.as_int();
}

std::optional<std::string> OptionalString(const Value* v, std::string_view what, SourcePos pos) {
  if (v == nullptr || v->is_none()) return std::nullopt;
  return ExpectString(*v, what, pos);
}

bool ArgTruthy(const CallArgs& args, size_t index, std::string_view name, bool fallback) {
  const Value* v = args.Get(index, name);
  return v ? v->Truthy() : fallback;
}

Value StringList(const std::vector<std::string>& parts) {
  List items;
  items.reserve(parts.size());
  for (const std::string& p : parts) items.push_back(Value::String(p));
  return Value::MakeList(std::move(items));
}

int64_t LengthOf(const Value& v, SourcePos pos) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return 0;
    case Value::Kind::kString: return static_cast<int64_t>(py::Length(v.as_string()));
    case Value::Kind::kList: return static_cast<int64_t>(v.as_list().size());
    case Value::Kind::kDict: return static_cast<int64_t>(v.as_dict().entries.size());
    default: Fail(pos, "length: object of type '" + std::string(v.TypeName()) + "' has no len()");
  }
}

// Python's int(x) for |int: strings parse as decimal (also "3.7" via float).
Value ToInt(const Value& v, const Value& fallback) {
  if (v.is_int() || v.is_bool()) return Value::Int(v.as_int());
  if (v.is_float()) {
    const double f = v.as_float();
    if (!std::isfinite(f) || std::fabs(f) >= 9.2e18) return fallback;
    return Value::Int(static_cast<int64_t>(f));
  }
  if (v.is_string()) {
    const std::string s = py::Strip(v.as_string(), std::nullopt, true, true);
    if (s.empty()) return fallback;
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str() + s.size() && errno == 0) return Value::Int(i);
    const double f = std::strtod(s.c_str(), &end);
    if (end == s.c_str() + s.size() && std::isfinite(f) && std::fabs(f) < 9.2e18) {
      return Value::Int(static_cast<int64_t>(f));
    }
  }
  return fallback;
}

Value ToFloat(const Value& v, const Value& fallback) {
  if (v.is_number()) return Value::Float(v.as_float());
  if (v.is_string()) {
    const std::string s = py::Strip(v.as_string(), std::nullopt, true, true);
    char* end = nullptr;
    const double f = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) return Value::Float(f);
  }
  return fallback;
}

// Python's < for sorting; throws for mixed types.
bool Less(const Value& a, const Value& b, SourcePos pos) {
  if (a.is_number() && b.is_number()) return a.as_float() < b.as_float();
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
  Fail(pos, "'<' not supported between '" + std::string(a.TypeName()) + "' and '" + std::string(b.TypeName()) + "'");
}

// Resolves "a.b.c" attribute paths as jinja2's make_attrgetter does.
Value AttributePath(const Value& item, const std::string& path, SourcePos pos) {
  Value v = item;
  for (const std::string& part : py::Split(path, std::string("."), -1)) {
    const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!numeric) {
      v = GetAttribute(v, part, pos);
      continue;
    }
    int64_t index = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (error != std::errc() || end != part.data() + part.size()) {
      Fail(pos, "attribute path index '" + part + "' is too large");
    }
    v = GetItem(v, Value::Int(index), pos);
  }
  return v;
}

CallArgs RestArgs(const CallArgs& args, size_t from) {
  CallArgs rest;
  if (args.positional.size() > from) {
    rest.positional.assign(args.positional.begin() + static_cast<std::ptrdiff_t>(from), args.positional.end());
  }
  return rest;
}

Value SelectOrReject(const Value& input, const CallArgs& args, bool by_attribute, bool keep_if, SourcePos pos) {
  List out;
  size_t next = 0;
  std::string attribute;
  if (by_attribute) {
    const Value* a = args.Get(0, "attribute");
    if (a == nullptr) Fail(pos, "selectattr/rejectattr: missing the attribute name");
    attribute = ExpectString(*a, "selectattr/rejectattr attribute", pos);
    next = 1;
  }
  std::optional<std::string> test;
  if (const Value* t = args.Get(next, "test")) test = ExpectString(*t, "test name", pos);
  if (test && !IsKnownTest(*test)) Fail(pos, "unknown test '" + *test + "'");
  const CallArgs test_args = RestArgs(args, next + 1);
  for (const Value& item : Iterate(input, pos)) {
    const Value subject = by_attribute ? AttributePath(item, attribute, pos) : item;
    const bool passed = test ? ApplyTest(*test, subject, test_args, pos) : subject.Truthy();
    if (passed == keep_if) out.push_back(item);
  }
  return Value::MakeList(std::move(out));
}

Value Indent(const std::string& text, const CallArgs& args, SourcePos pos) {
  std::string indention;
  const Value* width = args.Get(0, "width");
  if (width == nullptr) indention = "    ";
  else if (width->is_string()) indention = width->as_string();
  else {
    const int64_t n = ExpectInt(*width, "indent width", pos);
    if (n < 0 || n > 4096) Fail(pos, "indent: width out of range");
    indention = std::string(static_cast<size_t>(n), ' ');
  }
  const bool first = ArgTruthy(args, 1, "first", false);
  const bool blank = ArgTruthy(args, 2, "blank", false);
  std::vector<std::string> lines = py::SplitLines(text + "\n");  // jinja2 appends "\n" first
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) rv += (i ? "\n" + indention : "") + lines[i];
  } else {
    rv = lines.empty() ? "" : lines[0];
    if (lines.size() > 1) {
      rv += "\n";
      for (size_t i = 1; i < lines.size(); ++i) {
        if (i > 1) rv += "\n";
        rv += lines[i].empty() ? lines[i] : indention + lines[i];
      }
    }
  }
  return Value::String(first ? indention + rv : rv);
}

std::string JoinValues(const List& items, const std::string& sep, const Budget& budget, SourcePos pos) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += Str(items[i]);
    budget.CheckSize(out.size(), pos);
  }
  return out;
}

}  // namespace

const Value* CallArgs::Get(size_t index, std::string_view name) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [k, v] : keyword) {
    if (k == name) return &v;
  }
  return nullptr;
}

void Budget::CheckSize(size_t size, SourcePos pos) const {
  if (size > max_bytes) Fail(pos, "output limit exceeded: a value grew past " + std::to_string(max_bytes) + " bytes");
}

bool IsKnownFilter(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "trim", "upper", "lower", "length", "count", "default", "d", "join", "replace", "tojson", "first", "last",
      "list", "capitalize", "title", "string", "int", "float", "items", "selectattr", "rejectattr", "select",
      "reject", "map", "indent", "abs", "unique", "reverse", "sort", "sum", "safe", "escape", "e", "attr",
      "wordcount", "batch", "dictsort", "min", "max"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool IsKnownTest(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "defined", "undefined", "none", "boolean", "true", "false", "integer", "float", "number", "string",
      "mapping", "iterable", "sequence", "callable", "even", "odd", "divisibleby", "eq", "equalto", "==", "ne",
      "!=", "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">", "ge", ">=", "in", "sameas", "lower",
      "upper", "escaped"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool IsGlobalFunction(std::string_view name) {
  return name == "range" || name == "namespace" || name == "dict" || name == "raise_exception" ||
         name == "strftime_now";
}

List Iterate(const Value& v, SourcePos pos) {
  switch (v.kind()) {
    case Value::Kind::kUndefined: return {};
    case Value::Kind::kList: return v.as_list();
    case Value::Kind::kDict: {
      List keys;
      for (const auto& [k, item] : v.as_dict().entries) keys.push_back(Value::String(k));
      return keys;
    }
    case Value::Kind::kString: {
      List chars;
      for (std::string_view cp : py::CodePoints(v.as_string())) chars.push_back(Value::String(std::string(cp)));
      return chars;
    }
    default: Fail(pos, "'" + std::string(v.TypeName()) + "' object is not iterable");
  }
}

Value GetAttribute(const Value& object, std::string_view name, SourcePos pos) {
  if (object.is_undefined()) {
    Fail(pos, "'" + object.undefined_name() + "' is undefined (reading attribute '" + std::string(name) + "')");
  }
  if (object.is_dict() || object.is_namespace()) {
    if (const Value* v = object.as_dict().Find(name)) return *v;
  }
  return Value::Undefined(std::string(object.TypeName()) + " object' has no attribute '" + std::string(name));
}

Value GetItem(const Value& object, const Value& key, SourcePos pos) {
  if (object.is_undefined()) Fail(pos, "'" + object.undefined_name() + "' is undefined (subscripted)");
  // jinja2 turns any failed lookup into Undefined, an undefined key included
  // (Hermes-2-Pro's tool template does `type_map[spec.type]` on specs without a type).
  if (key.is_undefined()) return Value::Undefined(std::string(object.TypeName()) + " object' has no element 'Undefined");
  if ((object.is_dict() || object.is_namespace()) && key.is_string()) {
    if (const Value* v = object.as_dict().Find(key.as_string())) return *v;
  } else if ((object.is_list() || object.is_string()) && (key.is_int() || key.is_bool())) {
    std::vector<std::string_view> cps;
    if (object.is_string()) cps = py::CodePoints(object.as_string());
    const int64_t size = object.is_list() ? static_cast<int64_t>(object.as_list().size())
                                          : static_cast<int64_t>(cps.size());
    int64_t i = key.as_int();
    if (i < 0) i += size;
    if (i >= 0 && i < size) {
      if (object.is_list()) return object.as_list()[static_cast<size_t>(i)];
      return Value::String(std::string(cps[static_cast<size_t>(i)]));
    }
  } else if (key.is_string()) {
    return GetAttribute(object, key.as_string(), pos);
  }
  return Value::Undefined(std::string(object.TypeName()) + " object' has no item '" + Str(key));
}

bool ApplyTest(std::string_view name, const Value& v, const CallArgs& args, SourcePos pos) {
  const auto arg = [&](size_t i) -> const Value& {
    const Value* a = args.Get(i, "");
    if (a == nullptr) Fail(pos, "test '" + std::string(name) + "' needs an argument");
    return *a;
  };
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "boolean") return v.is_bool();
  if (name == "true") return v.is_bool() && v.as_bool();
  if (name == "false") return v.is_bool() && !v.as_bool();
  if (name == "integer") return v.is_int();
  if (name == "float") return v.is_float();
  if (name == "number") return v.is_number();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_dict();
  if (name == "iterable") return v.is_list() || v.is_dict() || v.is_string() || v.is_undefined();
  if (name == "sequence") return v.is_list() || v.is_dict() || v.is_string() || v.is_undefined();
  if (name == "callable") return v.is_callable();
  if (name == "escaped") return false;
  if (name == "lower") return Str(v) == py::Lower(Str(v)) && Str(v) != py::Upper(Str(v));
  if (name == "upper") return Str(v) == py::Upper(Str(v)) && Str(v) != py::Lower(Str(v));
  if (name == "even" || name == "odd") {
    const int64_t i = ExpectInt(v, name, pos);
    return (i % 2 == 0) == (name == "even");
  }
  if (name == "divisibleby") {
    const int64_t d = ExpectInt(arg(0), "divisibleby", pos);
    if (d == 0) Fail(pos, "divisibleby: division by zero");
    return ExpectInt(v, "divisibleby", pos) % d == 0;
  }
  if (name == "eq" || name == "equalto" || name == "==") return Equal(v, arg(0));
  if (name == "ne" || name == "!=") return !Equal(v, arg(0));
  if (name == "lt" || name == "lessthan" || name == "<") return Less(v, arg(0), pos);
  if (name == "gt" || name == "greaterthan" || name == ">") return Less(arg(0), v, pos);
  if (name == "le" || name == "<=") return !Less(arg(0), v, pos);
  if (name == "ge" || name == ">=") return !Less(v, arg(0), pos);
  if (name == "in") {
    const Value& seq = arg(0);
    if (seq.is_string()) return v.is_string() && seq.as_string().find(v.as_string()) != std::string::npos;
    if (seq.is_dict()) return v.is_string() && seq.as_dict().Find(v.as_string()) != nullptr;
    for (const Value& item : Iterate(seq, pos)) {
      if (Equal(item, v)) return true;
    }
    return false;
  }
  if (name == "sameas") {
    const Value& other = arg(0);
    if (v.is_none() || other.is_none()) return v.is_none() && other.is_none();
    if (v.is_bool() || other.is_bool()) return v.is_bool() && other.is_bool() && v.as_bool() == other.as_bool();
    return false;
  }
  Fail(pos, "unknown test '" + std::string(name) + "'");
}

Value ApplyFilter(std::string_view name, const Value& v, const CallArgs& args, const Budget& budget, SourcePos pos) {
  if (name == "safe") return v;
  if (name == "trim") {
    return Value::String(py::Strip(Str(v), OptionalString(args.Get(0, "chars"), "trim chars", pos), true, true));
  }
  if (name == "upper") return Value::String(py::Upper(Str(v)));
  if (name == "lower") return Value::String(py::Lower(Str(v)));
  if (name == "capitalize") return Value::String(py::Capitalize(Str(v)));
  if (name == "title") return Value::String(py::TitleFilter(Str(v)));
  if (name == "string") return Value::String(Str(v));
  if (name == "length" || name == "count") return Value::Int(LengthOf(v, pos));
  if (name == "wordcount") return Value::Int(static_cast<int64_t>(py::Split(Str(v), std::nullopt, -1).size()));
  if (name == "default" || name == "d") {
    const Value* fallback = args.Get(0, "default_value");
    const bool boolean = ArgTruthy(args, 1, "boolean", false);
    if (v.is_undefined() || (boolean && !v.Truthy())) return fallback ? *fallback : Value::String("");
    return v;
  }
  if (name == "join") {
    const Value* sep = args.Get(0, "d");
    const std::string separator = sep ? Str(*sep) : "";
    List items = Iterate(v, pos);
    if (const Value* attribute = args.Get(1, "attribute")) {
      for (Value& item : items) item = AttributePath(item, Str(*attribute), pos);
    }
    return Value::String(JoinValues(items, separator, budget, pos));
  }
  if (name == "replace") {
    const Value* old_text = args.Get(0, "old");
    const Value* new_text = args.Get(1, "new");
    if (old_text == nullptr || new_text == nullptr) Fail(pos, "replace: needs the old and the new text");
    const Value* count = args.Get(2, "count");
    const std::string s = Str(v);
    const std::string out = py::Replace(s, Str(*old_text), Str(*new_text),
                                        count && !count->is_none() ? ExpectInt(*count, "replace count", pos) : -1);
    budget.CheckSize(out.size(), pos);
    return Value::String(out);
  }
  if (name == "tojson") {
    JsonDumpOptions options;
    if (const Value* indent = args.Get(0, "indent"); indent && !indent->is_none()) {
      if (indent->is_string()) {
        options.indent = indent->as_string();
      } else {
        const int64_t n = ExpectInt(*indent, "tojson indent", pos);
        if (n > 64) Fail(pos, "tojson: indent out of range");
        options.indent = std::string(static_cast<size_t>(std::max<int64_t>(n, 0)), ' ');
      }
    }
    options.sort_keys = ArgTruthy(args, 99, "sort_keys", false);
    std::string out = JsonDump(v, options, pos);
    budget.CheckSize(out.size(), pos);
    return Value::String(std::move(out));
  }
  if (name == "first" || name == "last") {
    const List items = Iterate(v, pos);
    if (items.empty()) return Value::Undefined("empty sequence has no " + std::string(name) + " item");
    return name == "first" ? items.front() : items.back();
  }
  if (name == "list") return Value::MakeList(Iterate(v, pos));
  if (name == "int") {
    const Value* fallback = args.Get(0, "default");
    return ToInt(v, fallback ? *fallback : Value::Int(0));
  }
  if (name == "float") {
    const Value* fallback = args.Get(0, "default");
    return ToFloat(v, fallback ? *fallback : Value::Float(0.0));
  }
  if (name == "abs") {
    if (v.is_float()) return Value::Float(std::fabs(v.as_float()));
    if (v.is_int() || v.is_bool()) {
      if (v.as_int() == INT64_MIN) Fail(pos, "abs: integer overflow");
      return Value::Int(v.as_int() < 0 ? -v.as_int() : v.as_int());
    }
    Fail(pos, TypeError("abs", v));
  }
  if (name == "items" || name == "dictsort") {
    if (v.is_undefined()) return Value::MakeList();
    if (!v.is_dict()) Fail(pos, TypeError(name, v));
    List pairs;
    for (const auto& [k, item] : v.as_dict().entries) pairs.push_back(Value::MakeList({Value::String(k), item}));
    if (name == "dictsort") {
      std::stable_sort(pairs.begin(), pairs.end(), [](const Value& a, const Value& b) {
        return py::Lower(a.as_list()[0].as_string()) < py::Lower(b.as_list()[0].as_string());
      });
    }
    return Value::MakeList(std::move(pairs));
  }
  if (name == "selectattr") return SelectOrReject(v, args, true, true, pos);
  if (name == "rejectattr") return SelectOrReject(v, args, true, false, pos);
  if (name == "select") return SelectOrReject(v, args, false, true, pos);
  if (name == "reject") return SelectOrReject(v, args, false, false, pos);
  if (name == "map") {
    List out;
    if (const Value* attribute = args.Get(99, "attribute")) {
      const Value* fallback = args.Get(99, "default");
      for (const Value& item : Iterate(v, pos)) {
        Value x = AttributePath(item, Str(*attribute), pos);
        out.push_back(x.is_undefined() && fallback ? *fallback : x);
      }
      return Value::MakeList(std::move(out));
    }
    if (args.positional.empty()) Fail(pos, "map: needs a filter name or attribute=");
    const std::string filter = ExpectString(args.positional[0], "map filter name", pos);
    if (!IsKnownFilter(filter) || filter == "map") Fail(pos, "map: unknown filter '" + filter + "'");
    const CallArgs rest = RestArgs(args, 1);
    for (const Value& item : Iterate(v, pos)) out.push_back(ApplyFilter(filter, item, rest, budget, pos));
    return Value::MakeList(std::move(out));
  }
  if (name == "indent") {
    Value out = Indent(Str(v), args, pos);
    budget.CheckSize(out.as_string().size(), pos);
    return out;
  }
  if (name == "unique") {
    List out;
    for (const Value& item : Iterate(v, pos)) {
      const bool seen = std::any_of(out.begin(), out.end(), [&](const Value& o) {
        if (item.is_string() && o.is_string()) return py::Lower(item.as_string()) == py::Lower(o.as_string());
        return Equal(item, o);
      });
      if (!seen) out.push_back(item);
    }
    return Value::MakeList(std::move(out));
  }
  if (name == "reverse") {
    if (v.is_string()) {
      std::vector<std::string_view> cps = py::CodePoints(v.as_string());
      std::string out;
      for (auto it = cps.rbegin(); it != cps.rend(); ++it) out += *it;
      return Value::String(out);
    }
    List items = Iterate(v, pos);
    std::reverse(items.begin(), items.end());
    return Value::MakeList(std::move(items));
  }
  if (name == "sort" || name == "min" || name == "max") {
    List items = Iterate(v, pos);
    const bool reverse = ArgTruthy(args, name == "sort" ? 0 : 99, "reverse", false);
    const bool case_sensitive = ArgTruthy(args, name == "sort" ? 1 : 0, "case_sensitive", false);
    const Value* attribute = args.Get(name == "sort" ? 2 : 1, "attribute");
    const auto key = [&](const Value& item) {
      Value k = attribute ? AttributePath(item, Str(*attribute), pos) : item;
      if (!case_sensitive && k.is_string()) k = Value::String(py::Lower(k.as_string()));
      return k;
    };
    std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
      return reverse ? Less(key(b), key(a), pos) : Less(key(a), key(b), pos);
    });
    if (name == "sort") return Value::MakeList(std::move(items));
    if (items.empty()) return Value::Undefined("empty sequence has no " + std::string(name));
    return name == "min" ? items.front() : items.back();
  }
  if (name == "sum") {
    const Value* attribute = args.Get(0, "attribute");
    const Value* start = args.Get(1, "start");
    bool is_float = start && start->is_float();
    int64_t isum = start ? ExpectInt(start->is_float() ? Value::Int(0) : *start, "sum start", pos) : 0;
    double fsum = start && start->is_float() ? start->as_float() : 0.0;
    for (const Value& item : Iterate(v, pos)) {
      const Value x = attribute ? AttributePath(item, Str(*attribute), pos) : item;
      if (!x.is_number()) Fail(pos, TypeError("sum", x));
      if (x.is_float() && !is_float) {
        is_float = true;
        fsum = static_cast<double>(isum);
      }
      if (is_float) fsum += x.as_float();
      else if (__builtin_add_overflow(isum, x.as_int(), &isum)) Fail(pos, "sum: integer overflow");
    }
    return is_float ? Value::Float(fsum) : Value::Int(isum);
  }
  if (name == "escape" || name == "e") {
    std::string out;
    for (char c : Str(v)) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
      }
    }
    return Value::String(out);
  }
  if (name == "attr") {
    const Value* attribute = args.Get(0, "name");
    if (attribute == nullptr) Fail(pos, "attr: needs an attribute name");
    return GetAttribute(v, ExpectString(*attribute, "attr name", pos), pos);
  }
  if (name == "batch") {
    const Value* n_arg = args.Get(0, "linecount");
    const int64_t n = n_arg ? ExpectInt(*n_arg, "batch size", pos) : 0;
    if (n <= 0) Fail(pos, "batch: size must be positive");
    List out;
    List current;
    for (const Value& item : Iterate(v, pos)) {
      current.push_back(item);
      if (static_cast<int64_t>(current.size()) == n) {
        out.push_back(Value::MakeList(std::move(current)));
        current.clear();
      }
    }
    if (!current.empty()) out.push_back(Value::MakeList(std::move(current)));
    return Value::MakeList(std::move(out));
  }
  Fail(pos, "unknown filter '" + std::string(name) + "'");
}

Value CallMethod(const Value& object, std::string_view name, const CallArgs& args, const Budget& budget,
                 SourcePos pos) {
  const std::string method(name);
  if (object.is_string()) {
    const std::string& s = object.as_string();
    if (method == "strip" || method == "lstrip" || method == "rstrip") {
      return Value::String(py::Strip(s, OptionalString(args.Get(0, "chars"), "strip chars", pos),
                                     method != "rstrip", method != "lstrip"));
    }
    if (method == "startswith" || method == "endswith") {
      const Value* arg = args.Get(0, "prefix");
      if (arg == nullptr) Fail(pos, method + ": needs an argument");
      const List candidates = arg->is_list() ? arg->as_list() : List{*arg};
      for (const Value& c : candidates) {
        const std::string& x = ExpectString(c, method, pos);
        const bool hit = method == "startswith" ? s.compare(0, x.size(), x) == 0
                                                : s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
        if (hit) return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    if (method == "split") {
      const std::optional<std::string> sep = OptionalString(args.Get(0, "sep"), "split separator", pos);
      if (sep && sep->empty()) Fail(pos, "split: empty separator");
      const Value* max_split = args.Get(1, "maxsplit");
      return StringList(py::Split(s, sep, max_split ? ExpectInt(*max_split, "maxsplit", pos) : -1));
    }
    if (method == "splitlines") return StringList(py::SplitLines(s));
    if (method == "upper") return Value::String(py::Upper(s));
    if (method == "lower") return Value::String(py::Lower(s));
    if (method == "title") return Value::String(py::TitleMethod(s));
    if (method == "capitalize") return Value::String(py::Capitalize(s));
    if (method == "replace") {
      const Value* old_text = args.Get(0, "old");
      const Value* new_text = args.Get(1, "new");
      if (old_text == nullptr || new_text == nullptr) Fail(pos, "replace: needs the old and the new text");
      const Value* count = args.Get(2, "count");
      std::string out = py::Replace(s, ExpectString(*old_text, "replace", pos), ExpectString(*new_text, "replace", pos),
                                    count ? ExpectInt(*count, "replace count", pos) : -1);
      budget.CheckSize(out.size(), pos);
      return Value::String(std::move(out));
    }
    if (method == "join") {
      const Value* items = args.Get(0, "iterable");
      if (items == nullptr) Fail(pos, "join: needs a list");
      List list = Iterate(*items, pos);
      for (const Value& item : list) ExpectString(item, "join item", pos);
      return Value::String(JoinValues(list, s, budget, pos));
    }
    if (method == "find" || method == "count") {
      const Value* sub = args.Get(0, "sub");
      if (sub == nullptr) Fail(pos, method + ": needs an argument");
      const std::string& x = ExpectString(*sub, method, pos);
      if (method == "find") {
        const size_t hit = s.find(x);
        return Value::Int(hit == std::string::npos ? -1 : static_cast<int64_t>(py::Length(s.substr(0, hit))));
      }
      if (x.empty()) return Value::Int(static_cast<int64_t>(py::Length(s)) + 1);
      int64_t n = 0;
      for (size_t at = s.find(x); at != std::string::npos; at = s.find(x, at + x.size())) ++n;
      return Value::Int(n);
    }
  } else if (object.is_dict()) {
    const Dict& d = object.as_dict();
    if (method == "get") {
      const Value* key = args.Get(0, "key");
      if (key == nullptr) Fail(pos, "get: needs a key");
      const Value* fallback = args.Get(1, "default");
      if (key->is_string()) {
        if (const Value* v = d.Find(key->as_string())) return *v;
      }
      return fallback ? *fallback : Value::None();
    }
    if (method == "items" || method == "keys" || method == "values") {
      List out;
      for (const auto& [k, v] : d.entries) {
        if (method == "items") out.push_back(Value::MakeList({Value::String(k), v}));
        else out.push_back(method == "keys" ? Value::String(k) : v);
      }
      return Value::MakeList(std::move(out));
    }
  } else if (object.is_list()) {
    if (method == "append" || method == "extend" || method == "pop" || method == "insert" || method == "remove") {
      Fail(pos, "lists are immutable in chat templates ('" + method + "' is refused, as in HF's sandbox)");
    }
  } else if (object.is_undefined()) {
    Fail(pos, "'" + object.undefined_name() + "' is undefined (calling ." + method + "())");
  }
  Fail(pos, "'" + std::string(object.TypeName()) + "' object has no method '" + method + "'");
}

Value CallGlobal(std::string_view name, const CallArgs& args, const Budget& budget, SourcePos pos) {
  if (name == "raise_exception") {
    const Value* message = args.Get(0, "message");
    Fail(pos, "raise_exception: " + (message ? Str(*message) : std::string()));
  }
  if (name == "namespace" || name == "dict") {
    Dict d;
    if (!args.positional.empty()) {
      if (!args.positional[0].is_dict() && !args.positional[0].is_namespace()) Fail(pos, TypeError(name, args.positional[0]));
      d = args.positional[0].as_dict();
    }
    for (const auto& [k, v] : args.keyword) d.Set(k, v);
    return name == "namespace" ? Value::MakeNamespace(std::move(d)) : Value::MakeDict(std::move(d));
  }
  if (name == "range") {
    int64_t start = 0;
    int64_t stop = 0;
    int64_t step = 1;
    if (args.positional.size() == 1) {
      stop = ExpectInt(args.positional[0], "range", pos);
    } else if (args.positional.size() == 2 || args.positional.size() == 3) {
      start = ExpectInt(args.positional[0], "range", pos);
      stop = ExpectInt(args.positional[1], "range", pos);
      if (args.positional.size() == 3) step = ExpectInt(args.positional[2], "range", pos);
    } else {
      Fail(pos, "range: expected 1 to 3 integer arguments");
    }
    if (step == 0) Fail(pos, "range: step must not be zero");
    List out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
      out.push_back(Value::Int(i));
      budget.CheckSize(out.size() * sizeof(Value), pos);
      if (__builtin_add_overflow(i, step, &i)) break;
    }
    return Value::MakeList(std::move(out));
  }
  if (name == "strftime_now") {
    const Value* format = args.Get(0, "format");
    if (format == nullptr) Fail(pos, "strftime_now: needs a format");
    const std::string& f = ExpectString(*format, "strftime_now", pos);
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[256];
    const size_t n = f.size() < 64 ? std::strftime(buf, sizeof(buf), f.c_str(), &local) : 0;
    return Value::String(std::string(buf, n));
  }
  Fail(pos, "'" + std::string(name) + "' is not callable");
}

}  // namespace trit::chat
