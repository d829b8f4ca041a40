#include "grammar/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "base/json_nesting.h"
#include "grammar/json_schema_regex.h"
#include "grammar/json_schema_rules.h"

namespace trit::grammar {
namespace {

// ordered_json: properties keep the schema's order, which the grammar follows.
using json = nlohmann::ordered_json;
using schema::CodeSet;
using schema::RuleSet;

constexpr int kMaxSchemaDepth = 64;      // schemas inside schemas (through $ref too)
constexpr int kMaxJsonDepth = 256;       // nesting of the schema's JSON text
constexpr size_t kMaxSteps = 100'000;    // schemas visited or merged in one conversion
constexpr size_t kMaxProperties = 256;   // listed properties of one object (matcher.h: kMaxStacks)

// Every keyword the converter knows, and what it applies to. One table: the
// check for unknown keywords, type inference and the enum/const check read it.
enum class Kind {
  kAnnotation,  // ignored: does not constrain the value
  kContainer,   // $defs/definitions: read through $ref only
  kAny,         // type, enum, const, combinators, $ref
  kObject,
  kArray,
  kString,
  kNumber,
};
struct Keyword {
  std::string_view name;
  Kind kind;
};
constexpr Keyword kKeywords[] = {
    {"title", Kind::kAnnotation},       {"description", Kind::kAnnotation}, {"$schema", Kind::kAnnotation},
    {"$id", Kind::kAnnotation},         {"$comment", Kind::kAnnotation},    {"examples", Kind::kAnnotation},
    {"default", Kind::kAnnotation},     {"deprecated", Kind::kAnnotation},  {"readOnly", Kind::kAnnotation},
    {"writeOnly", Kind::kAnnotation},   {"discriminator", Kind::kAnnotation},
    {"$defs", Kind::kContainer},        {"definitions", Kind::kContainer},
    {"type", Kind::kAny},               {"enum", Kind::kAny},               {"const", Kind::kAny},
    {"anyOf", Kind::kAny},              {"oneOf", Kind::kAny},              {"allOf", Kind::kAny},
    {"$ref", Kind::kAny},
    {"properties", Kind::kObject},      {"required", Kind::kObject},        {"additionalProperties", Kind::kObject},
    {"items", Kind::kArray},            {"prefixItems", Kind::kArray},      {"additionalItems", Kind::kArray},
    {"minItems", Kind::kArray},         {"maxItems", Kind::kArray},         {"uniqueItems", Kind::kArray},
    {"minLength", Kind::kString},       {"maxLength", Kind::kString},       {"pattern", Kind::kString},
    {"format", Kind::kString},
    {"minimum", Kind::kNumber},         {"maximum", Kind::kNumber},         {"exclusiveMinimum", Kind::kNumber},
    {"exclusiveMaximum", Kind::kNumber},
};

const Keyword* FindKeyword(std::string_view name) {
  for (const Keyword& k : kKeywords) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

// JSON types as bits. "number" is kNumber | kInteger, so that intersecting
// with "integer" gives integer and a oneOf check sees them overlap.
enum TypeBits : unsigned {
  kNull = 1,
  kBoolean = 2,
  kObject = 4,
  kArray = 8,
  kString = 16,
  kInteger = 32,
  kNumber = 64,
  kAllTypes = 127,
};
constexpr std::pair<std::string_view, unsigned> kTypeNames[] = {
    {"null", kNull},     {"boolean", kBoolean}, {"object", kObject},           {"array", kArray},
    {"string", kString}, {"integer", kInteger}, {"number", kNumber | kInteger},
};

unsigned KindBits(Kind kind) {
  switch (kind) {
    case Kind::kObject: return kObject;
    case Kind::kArray: return kArray;
    case Kind::kString: return kString;
    case Kind::kNumber: return kNumber | kInteger;
    default: return 0;
  }
}

// The type of one JSON value, for enum values and oneOf checks.
unsigned ValueBits(const json& v) {
  if (v.is_null()) return kNull;
  if (v.is_boolean()) return kBoolean;
  if (v.is_object()) return kObject;
  if (v.is_array()) return kArray;
  if (v.is_string()) return kString;
  if (v.is_number_integer()) return kInteger;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d ? kInteger : kNumber;
}

std::string Where(const std::string& path) { return path.empty() ? "the root" : path; }

// path + "/" + token, escaped as a JSON pointer (RFC 6901).
std::string Child(const std::string& path, std::string_view token) {
  std::string out = path + "/";
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}
std::string Child(const std::string& path, std::string_view key, size_t index) {
  return Child(Child(path, key), std::to_string(index));
}

// A rule name hint from a path: its last plain token (a property or
// definition name), with the keywords and indexes after it, e.g.
// "/properties/pet/oneOf/0" -> "pet-oneOf-0".
std::string Hint(const std::string& path) {
  std::vector<std::string> parts;
  size_t end = path.size();
  while (end > 0 && parts.size() < 3) {
    const size_t slash = path.rfind('/', end - 1);
    const std::string token = path.substr(slash + 1, end - slash - 1);
    end = slash;
    const bool structural = token == "properties" || token == "$defs" || token == "definitions";
    if (!structural || parts.empty()) parts.insert(parts.begin(), token);
    const bool plain = !token.empty() && !std::isdigit(static_cast<unsigned char>(token[0])) && FindKeyword(token) == nullptr;
    if (plain) break;
  }
  std::string hint;
  for (const std::string& p : parts) hint += (hint.empty() ? "" : "-") + p;
  return hint.empty() ? "schema" : hint;
}

std::vector<char32_t> CodePoints(std::string_view utf8) {  // valid UTF-8 (from the JSON parser)
  std::vector<char32_t> out;
  for (size_t i = 0; i < utf8.size();) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < n && i + static_cast<size_t>(k) < utf8.size(); ++k) {
      c = (c << 6) | (static_cast<unsigned char>(utf8[i + static_cast<size_t>(k)]) & 0x3F);
    }
    out.push_back(c);
    i += static_cast<size_t>(n);
  }
  return out;
}

// A schema and a keyword of it to leave out (the anyOf being distributed).
struct Part {
  const json* schema;
  std::string_view skip;
};

class Converter {
 public:
  explicit Converter(const json& root) : root_(root) {}

  Expected<std::string> Run() {
    Expected<std::string> body = Visit(root_, "", 0);
    if (!body) return body;
    if (Status s = CheckSize(); !s.ok()) return s;
    return rules_.Render(*body);
  }

 private:
  Status CheckSize() const {
    if (rules_.text_bytes() > schema::kMaxGrammarBytes) {
      return Error(ErrorCode::kUnsupported, "the schema's grammar passes {} bytes, the most trit writes",
                   schema::kMaxGrammarBytes);
    }
    return Status::Ok();
  }

  Status Step(const std::string& path, int depth) {
    if (++steps_ > kMaxSteps) {
      return Error(ErrorCode::kUnsupported, "the schema takes more than {} conversion steps (at {}); refused",
                   kMaxSteps, Where(path));
    }
    if (depth > kMaxSchemaDepth) {
      return Error(ErrorCode::kUnsupported, "the schema nests deeper than {} levels at {}", kMaxSchemaDepth, Where(path));
    }
    return CheckSize();
  }

  static Status CheckKeywords(const json& s, const std::string& path) {
    for (const auto& [key, value] : s.items()) {
      if (FindKeyword(key) == nullptr) {
        return Error(ErrorCode::kUnsupported, "schema keyword '{}' at {} is not supported", key, Where(path));
      }
    }
    return Status::Ok();
  }

  // True when `s` has a keyword that constrains (not an annotation), other than `except`.
  static bool Constrains(const json& s, std::initializer_list<std::string_view> except) {
    for (const auto& [key, value] : s.items()) {
      const Keyword* k = FindKeyword(key);
      if (k == nullptr || k->kind == Kind::kAnnotation || k->kind == Kind::kContainer) continue;
      if (std::find(except.begin(), except.end(), key) == except.end()) return true;
    }
    return false;
  }

  std::string AsTerm(const std::string& hint, const std::string& expr) {
    return schema::IsTerm(expr) ? expr : rules_.Add(hint, expr);
  }

  // --- Dispatch ------------------------------------------------------------

  // A term (rule name or literal) matching the documents valid under `s`.
  Expected<std::string> Visit(const json& s, const std::string& path, int depth) {
    if (Status st = Step(path, depth); !st.ok()) return st;
    if (s.is_boolean()) {
      if (s.get<bool>()) return rules_.JsonValue();
      return Error(ErrorCode::kInvalidArgument, "the schema at {} is false: no value is valid", Where(path));
    }
    if (!s.is_object()) {
      return Error(ErrorCode::kInvalidArgument, "the schema at {} must be an object or a boolean, not {}", Where(path),
                   s.type_name());
    }
    if (Status st = CheckKeywords(s, path); !st.ok()) return st;
    if (s.contains("$ref") && !Constrains(s, {"$ref"})) return RefRule(s["$ref"], Child(path, "$ref"), depth);
    if (s.contains("$ref") || s.contains("allOf")) {
      Expected<json> merged = Merge({Part{&s, ""}}, path, depth);
      if (!merged) return merged.status();
      if (merged->is_boolean()) {
        return Error(ErrorCode::kInvalidArgument, "no value satisfies all of the schemas combined at {}", Where(path));
      }
      return Visit(*merged, path, depth + 1);
    }
    if (s.contains("anyOf") || s.contains("oneOf")) return Alternatives(s, path, depth);
    return Simple(s, path, depth);
  }

  // --- $ref ----------------------------------------------------------------

  Expected<const json*> Resolve(const std::string& ref, const std::string& path) const {
    if (ref.empty() || ref[0] != '#') {
      return Error(ErrorCode::kUnsupported, "$ref '{}' at {}: only references inside the schema ('#...') are supported",
                   ref, Where(path));
    }
    std::string pointer;  // percent-decoded
    for (size_t i = 1; i < ref.size(); ++i) {
      if (ref[i] == '%' && i + 2 < ref.size() && std::isxdigit(static_cast<unsigned char>(ref[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(ref[i + 2]))) {
        pointer += static_cast<char>(std::stoi(ref.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        pointer += ref[i];
      }
    }
    if (pointer.empty()) return &root_;
    if (pointer[0] != '/') {
      return Error(ErrorCode::kUnsupported, "$ref '{}' at {}: anchors are not supported; use a JSON pointer such as #/$defs/name",
                   ref, Where(path));
    }
    const json* node = &root_;
    size_t start = 1;
    while (true) {
      const size_t end = std::min(pointer.find('/', start), pointer.size());
      std::string token;
      for (size_t i = start; i < end; ++i) {
        if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
          token += pointer[i + 1] == '0' ? '~' : '/';
          ++i;
        } else {
          token += pointer[i];
        }
      }
      const json* next = nullptr;
      if (node->is_object()) {
        auto it = node->find(token);
        if (it != node->end()) next = &*it;
      } else if (node->is_array() && !token.empty() && token.size() < 10 &&
                 std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                 (token == "0" || token[0] != '0')) {
        const size_t index = std::stoul(token);
        if (index < node->size()) next = &(*node)[index];
      }
      if (next == nullptr) {
        return Error(ErrorCode::kInvalidArgument, "$ref '{}' at {} does not resolve: no '{}' there", ref, Where(path), token);
      }
      node = next;
      if (end == pointer.size()) break;
      start = end + 1;
    }
    return node;
  }

  // One rule per $ref target, so recursive schemas become recursive rules.
  Expected<std::string> RefRule(const json& ref_value, const std::string& path, int depth) {
    if (!ref_value.is_string()) {
      return Error(ErrorCode::kInvalidArgument, "$ref at {} must be a string, not {}", Where(path), ref_value.type_name());
    }
    const std::string ref = ref_value.get<std::string>();
    if (open_refs_.count(ref) > 0) {
      return Error(ErrorCode::kInvalidArgument,
                   "$ref '{}' at {} refers back to itself with no object or array in between: no value can match it",
                   ref, Where(path));
    }
    if (auto it = ref_rules_.find(ref); it != ref_rules_.end()) return it->second;
    Expected<const json*> target = Resolve(ref, path);
    if (!target) return target.status();
    const std::string target_path = ref.size() > 1 ? ref.substr(1) : "";
    const std::string name = rules_.Reserve(target_path.empty() ? "schema" : Hint(target_path));
    ref_rules_.emplace(ref, name);
    open_refs_.insert(ref);
    Expected<std::string> body = Visit(**target, target_path, depth + 1);
    open_refs_.erase(ref);
    if (!body) return body;
    rules_.Define(name, *body);
    return name;
  }

  // --- allOf and $ref beside other keywords: one merged schema --------------

  Status Flatten(const Part& part, const std::string& path, int depth, std::vector<Part>* out) {
    if (Status st = Step(path, depth); !st.ok()) return st;
    const json& s = *part.schema;
    if (s.is_boolean()) {
      if (s.get<bool>()) return Status::Ok();
      return Error(ErrorCode::kInvalidArgument, "the schema at {} is false: no value is valid", Where(path));
    }
    if (!s.is_object()) {
      return Error(ErrorCode::kInvalidArgument, "the schema at {} must be an object or a boolean, not {}", Where(path),
                   s.type_name());
    }
    if (Status st = CheckKeywords(s, path); !st.ok()) return st;
    if (auto it = s.find("$ref"); it != s.end()) {
      if (!it->is_string()) return Error(ErrorCode::kInvalidArgument, "$ref at {} must be a string", Where(path));
      const std::string ref = it->get<std::string>();
      Expected<const json*> target = Resolve(ref, Child(path, "$ref"));
      if (!target) return target.status();
      if (Status st = Flatten(Part{*target, ""}, ref.substr(1), depth + 1, out); !st.ok()) return st;
    }
    if (auto it = s.find("allOf"); it != s.end()) {
      if (!it->is_array() || it->empty()) {
        return Error(ErrorCode::kInvalidArgument, "allOf at {} must be a non-empty array", Where(path));
      }
      for (size_t i = 0; i < it->size(); ++i) {
        if (Status st = Flatten(Part{&(*it)[i], ""}, Child(path, "allOf", i), depth + 1, out); !st.ok()) return st;
      }
    }
    const bool seen = std::any_of(out->begin(), out->end(),
                                  [&](const Part& p) { return p.schema == part.schema && p.skip == part.skip; });
    if (!seen) out->push_back(part);
    return Status::Ok();
  }

  // The conjunction of `parts` as one schema without $ref or allOf at its
  // top, or `false` when the types or enums have nothing in common.
  Expected<json> Merge(const std::vector<Part>& parts, const std::string& path, int depth) {
    std::vector<Part> flat;
    for (const Part& p : parts) {
      if (Status st = Flatten(p, path, depth, &flat); !st.ok()) return st;
    }
    json out = json::object();
    json properties = json::object();
    std::vector<std::string> required;
    unsigned types = kAllTypes;
    bool typed = false;
    std::optional<std::set<std::string>> allowed;  // property names, when a part closes the object
    const auto differ = [&](std::string_view key) {
      return Error(ErrorCode::kUnsupported, "allOf at {}: keyword '{}' in two subschemas with different values is not supported",
                   Where(path), key);
    };
    for (const Part& part : flat) {
      for (const auto& [key, v] : part.schema->items()) {
        const Kind kind = FindKeyword(key)->kind;
        if (kind == Kind::kAnnotation || kind == Kind::kContainer || key == "$ref" || key == "allOf" || key == part.skip) continue;
        if (key == "type") {
          Expected<unsigned> bits = ParseType(v, path);
          if (!bits) return bits.status();
          types &= *bits;
          typed = true;
        } else if (key == "required") {
          if (Status st = CheckNames(v, Child(path, "required")); !st.ok()) return st;
          for (const json& name : v) {
            if (std::find(required.begin(), required.end(), name.get<std::string>()) == required.end()) {
              required.push_back(name.get<std::string>());
            }
          }
        } else if (key == "properties") {
          if (!v.is_object()) return Error(ErrorCode::kInvalidArgument, "properties at {} must be an object", Where(path));
          for (const auto& [name, ps] : v.items()) {
            auto it = properties.find(name);
            if (it == properties.end()) properties[name] = ps;
            else if (*it != ps) *it = json{{"allOf", json::array({*it, ps})}};
          }
        } else if (key == "additionalProperties") {
          if (v.is_boolean() && v.get<bool>()) continue;
          if (!v.is_boolean()) {
            return Error(ErrorCode::kUnsupported, "allOf at {}: additionalProperties as a schema inside allOf is not supported",
                         Where(path));
          }
          std::set<std::string> names;
          if (auto it = part.schema->find("properties"); it != part.schema->end() && it->is_object()) {
            for (const auto& [name, ps] : it->items()) names.insert(name);
          }
          if (allowed) {
            std::set<std::string> both;
            std::set_intersection(allowed->begin(), allowed->end(), names.begin(), names.end(),
                                  std::inserter(both, both.begin()));
            names = std::move(both);
          }
          allowed = std::move(names);
        } else if (key == "enum" || key == "const") {
          json values = key == "const" ? json::array({v}) : v;
          if (!values.is_array()) return Error(ErrorCode::kInvalidArgument, "enum at {} must be an array", Where(path));
          if (auto it = out.find("enum"); it != out.end()) {
            json both = json::array();
            for (const json& x : *it) {
              if (std::find(values.begin(), values.end(), x) != values.end()) both.push_back(x);
            }
            values = std::move(both);
          }
          out["enum"] = std::move(values);
        } else if (key == "anyOf" || key == "oneOf") {
          if (out.contains("anyOf") || out.contains("oneOf")) {
            return Error(ErrorCode::kUnsupported, "allOf at {}: more than one subschema with anyOf or oneOf is not supported",
                         Where(path));
          }
          out[key] = v;
        } else if (auto it = out.find(key); it == out.end()) {
          out[key] = v;
        } else if (*it != v) {
          // Bounds combine by taking the tighter one; anything else must agree.
          const bool lower = key == "minLength" || key == "minItems" || key == "minimum" || key == "exclusiveMinimum";
          const bool upper = key == "maxLength" || key == "maxItems" || key == "maximum" || key == "exclusiveMaximum";
          if ((!lower && !upper) || !it->is_number() || !v.is_number()) return differ(key);
          const bool v_tighter = lower ? v.get<double>() > it->get<double>() : v.get<double>() < it->get<double>();
          if (v_tighter) *it = v;
        }
      }
    }
    if (typed) {
      if (types == 0) return json(false);
      json names = json::array();
      for (const auto& [name, bits] : kTypeNames) {
        if ((types & bits) == bits && !(name == "integer" && (types & kNumber))) names.push_back(name);
      }
      out["type"] = std::move(names);
    }
    if (auto it = out.find("enum"); it != out.end() && it->empty()) return json(false);
    if (allowed) {
      for (const std::string& name : required) {
        if (allowed->count(name) == 0) {
          return Error(ErrorCode::kInvalidArgument,
                       "allOf at {}: property '{}' is required, but a subschema's additionalProperties false forbids it",
                       Where(path), name);
        }
      }
      json kept = json::object();
      for (const auto& [name, ps] : properties.items()) {
        if (allowed->count(name) > 0) kept[name] = ps;
      }
      properties = std::move(kept);
      out["additionalProperties"] = false;
    }
    if (!properties.empty()) out["properties"] = std::move(properties);
    if (!required.empty()) out["required"] = required;
    return out;
  }

  // --- anyOf / oneOf -------------------------------------------------------

  Expected<std::string> Alternatives(const json& s, const std::string& path, int depth) {
    if (s.contains("anyOf") && s.contains("oneOf")) {
      return Error(ErrorCode::kUnsupported, "anyOf and oneOf together at {} are not supported", Where(path));
    }
    const std::string key = s.contains("anyOf") ? "anyOf" : "oneOf";
    const json& alts = s[key];
    if (!alts.is_array() || alts.empty()) {
      return Error(ErrorCode::kInvalidArgument, "{} at {} must be a non-empty array", key, Where(path));
    }
    if (key == "oneOf") {
      if (Status st = CheckDisjoint(alts, Child(path, key), depth); !st.ok()) return st;
    }
    // Keywords beside the alternatives apply to each: A and (B or C) is (A and B) or (A and C).
    const bool siblings = Constrains(s, {"anyOf", "oneOf"});
    std::vector<std::string> terms;
    for (size_t i = 0; i < alts.size(); ++i) {
      const std::string alt_path = Child(path, key, i);
      if (alts[i].is_boolean() && !alts[i].get<bool>()) continue;
      Expected<std::string> term = std::string();
      if (siblings) {
        Expected<json> merged = Merge({Part{&s, key}, Part{&alts[i], ""}}, alt_path, depth + 1);
        if (!merged) return merged.status();
        if (merged->is_boolean()) continue;  // this alternative contradicts the keywords beside it
        term = Visit(*merged, alt_path, depth + 1);
      } else {
        term = Visit(alts[i], alt_path, depth + 1);
      }
      if (!term) return term;
      if (std::find(terms.begin(), terms.end(), *term) == terms.end()) terms.push_back(std::move(*term));
    }
    if (terms.empty()) return Error(ErrorCode::kInvalidArgument, "no alternative of {} at {} can be satisfied", key, Where(path));
    std::string expr;
    for (size_t i = 0; i < terms.size(); ++i) expr += (i > 0 ? " | " : "") + terms[i];
    return AsTerm(Hint(path), expr);
  }

  // The types a schema's values may have (all types when unknown).
  unsigned PossibleTypes(const json& s, int depth) {
    if (depth > kMaxSchemaDepth || ++steps_ > kMaxSteps) return kAllTypes;
    if (s.is_boolean()) return s.get<bool>() ? unsigned{kAllTypes} : 0u;
    if (!s.is_object()) return kAllTypes;
    unsigned bits = kAllTypes;
    if (auto it = s.find("type"); it != s.end()) {
      Expected<unsigned> t = ParseType(*it, "");
      if (t) bits &= *t;
    }
    if (auto it = s.find("const"); it != s.end()) bits &= ValueBits(*it);
    if (auto it = s.find("enum"); it != s.end() && it->is_array()) {
      unsigned values = 0;
      for (const json& v : *it) values |= ValueBits(v) == kInteger ? (kInteger | kNumber) : ValueBits(v);
      bits &= values;
    }
    if (auto it = s.find("$ref"); it != s.end() && it->is_string()) {
      Expected<const json*> target = Resolve(it->get<std::string>(), "");
      if (target) bits &= PossibleTypes(**target, depth + 1);
    }
    if (auto it = s.find("allOf"); it != s.end() && it->is_array()) {
      for (const json& sub : *it) bits &= PossibleTypes(sub, depth + 1);
    }
    for (const char* key : {"anyOf", "oneOf"}) {
      if (auto it = s.find(key); it != s.end() && it->is_array()) {
        unsigned any = 0;
        for (const json& sub : *it) any |= PossibleTypes(sub, depth + 1);
        bits &= any;
      }
    }
    if (!s.contains("type") && !s.contains("const") && !s.contains("enum")) bits &= InferredTypes(s);
    return bits;
  }

  // When `type` is absent: the types its type-specific keywords constrain,
  // or every type when it has none. (Producing only those still validates.)
  static unsigned InferredTypes(const json& s) {
    unsigned bits = 0;
    for (const auto& [key, value] : s.items()) {
      const Keyword* k = FindKeyword(key);
      if (k != nullptr) bits |= KindBits(k->kind);
    }
    return bits == 0 ? kAllTypes : bits;
  }

  // `s`, or the target of `s` when it is only a $ref (recursively); nullptr
  // when that is not an object schema.
  const json* ObjectOf(const json& s, int depth) const {
    if (depth > kMaxSchemaDepth || !s.is_object()) return nullptr;
    if (auto it = s.find("$ref"); it != s.end() && it->is_string() && !Constrains(s, {"$ref"})) {
      Expected<const json*> target = Resolve(it->get<std::string>(), "");
      return target ? ObjectOf(**target, depth + 1) : nullptr;
    }
    return &s;
  }

  // The const/enum values a required property of `s` must take, if any.
  std::optional<json> DiscriminatorValues(const json& alt, const std::string& name, int depth) {
    const json* object = ObjectOf(alt, depth);
    if (object == nullptr) return std::nullopt;
    const json& s = *object;
    auto req = s.find("required");
    auto props = s.find("properties");
    if (req == s.end() || props == s.end() || !req->is_array() || !props->is_object()) return std::nullopt;
    if (std::find(req->begin(), req->end(), json(name)) == req->end()) return std::nullopt;
    auto p = props->find(name);
    if (p == props->end() || !p->is_object()) return std::nullopt;
    if (auto c = p->find("const"); c != p->end()) return json::array({*c});
    if (auto e = p->find("enum"); e != p->end() && e->is_array()) return *e;
    return std::nullopt;
  }

  // oneOf is exact as alternatives only when no value matches two of them:
  // accepted when they differ in type, or all are objects with a required
  // property whose const/enum values differ between any two.
  Status CheckDisjoint(const json& alts, const std::string& path, int depth) {
    std::vector<unsigned> types;
    for (const json& alt : alts) types.push_back(PossibleTypes(alt, depth + 1));
    for (size_t i = 0; i < alts.size(); ++i) {
      for (size_t j = i + 1; j < alts.size(); ++j) {
        if (++steps_ > kMaxSteps) {
          return Error(ErrorCode::kUnsupported, "the schema takes more than {} conversion steps (at {}); refused", kMaxSteps,
                       Where(path));
        }
        const unsigned common = types[i] & types[j];
        if (common == 0) continue;
        bool separated = false;
        const json* object = common == kObject ? ObjectOf(alts[i], depth + 1) : nullptr;
        if (object != nullptr && object->contains("properties") && (*object)["properties"].is_object()) {
          for (const auto& [name, ps] : (*object)["properties"].items()) {
            std::optional<json> a = DiscriminatorValues(alts[i], name, depth + 1);
            std::optional<json> b = DiscriminatorValues(alts[j], name, depth + 1);
            if (!a || !b) continue;
            const bool overlap = std::any_of(a->begin(), a->end(), [&](const json& v) {
              return std::find(b->begin(), b->end(), v) != b->end();
            });
            if (!overlap) {
              separated = true;
              break;
            }
          }
        }
        if (!separated) {
          return Error(ErrorCode::kUnsupported,
                       "oneOf at {}: alternatives {} and {} may both match one value, which oneOf forbids; trit "
                       "supports oneOf whose alternatives differ in type or in a required const property (or use anyOf)",
                       Where(path), i, j);
        }
      }
    }
    return Status::Ok();
  }

  // --- Schemas without combinators -----------------------------------------

  static Expected<unsigned> ParseType(const json& v, const std::string& path) {
    const auto one = [&](const json& name) -> Expected<unsigned> {
      if (name.is_string()) {
        for (const auto& [type, bits] : kTypeNames) {
          if (type == name.get<std::string>()) return bits;
        }
      }
      return Error(ErrorCode::kInvalidArgument, "type at {} must be one of null, boolean, object, array, string, integer, "
                   "number (or a list of them), not {}", Where(path), name.dump());
    };
    if (!v.is_array()) return one(v);
    if (v.empty()) return Error(ErrorCode::kInvalidArgument, "type at {} is an empty list", Where(path));
    unsigned bits = 0;
    for (const json& name : v) {
      Expected<unsigned> b = one(name);
      if (!b) return b;
      bits |= *b;
    }
    return bits;
  }

  static Status CheckNames(const json& v, const std::string& path) {
    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); })) {
      return Error(ErrorCode::kInvalidArgument, "{} must be an array of strings", Where(path));
    }
    return Status::Ok();
  }

  Expected<std::string> Simple(const json& s, const std::string& path, int depth) {
    if (!Constrains(s, {})) return rules_.JsonValue();
    unsigned types = kAllTypes;
    if (auto it = s.find("type"); it != s.end()) {
      Expected<unsigned> t = ParseType(*it, path);
      if (!t) return t.status();
      types = *t;
    }
    if (s.contains("enum") || s.contains("const")) return EnumRule(s, path, types);
    if (!s.contains("type")) types = InferredTypes(s);
    std::vector<std::string> alts;
    if (types & kObject) {
      Expected<std::string> e = ObjectRule(s, path, depth);
      if (!e) return e;
      alts.push_back(std::move(*e));
    }
    if (types & kArray) {
      Expected<std::string> e = ArrayRule(s, path, depth);
      if (!e) return e;
      alts.push_back(std::move(*e));
    }
    if (types & kString) {
      Expected<std::string> e = StringRule(s, path);
      if (!e) return e;
      alts.push_back(std::move(*e));
    }
    if (types & (kNumber | kInteger)) {
      Expected<std::string> e = NumberRule(s, path, (types & kNumber) == 0);
      if (!e) return e;
      alts.push_back(std::move(*e));
    }
    if (types & kBoolean) alts.push_back("\"true\" | \"false\"");
    if (types & kNull) alts.push_back("\"null\"");
    std::string expr;
    for (size_t i = 0; i < alts.size(); ++i) expr += (i > 0 ? " | " : "") + alts[i];
    return AsTerm(Hint(path), expr);
  }

  Expected<std::string> EnumRule(const json& s, const std::string& path, unsigned types) {
    for (const auto& [key, value] : s.items()) {
      const Kind kind = FindKeyword(key)->kind;
      if (kind != Kind::kAnnotation && kind != Kind::kContainer && key != "type" && key != "enum" && key != "const") {
        return Error(ErrorCode::kUnsupported, "schema keyword '{}' at {} beside enum or const is not supported", key,
                     Where(path));
      }
    }
    json values = json::array();
    if (auto it = s.find("enum"); it != s.end()) {
      if (!it->is_array()) return Error(ErrorCode::kInvalidArgument, "enum at {} must be an array", Where(path));
      values = *it;
    }
    if (auto it = s.find("const"); it != s.end()) {
      if (s.contains("enum") && std::find(values.begin(), values.end(), *it) == values.end()) values = json::array();
      else values = json::array({*it});
    }
    std::vector<std::string> alts;
    for (const json& v : values) {
      if (v.is_number_float() && !std::isfinite(v.get<double>())) continue;
      if ((ValueBits(v) & types) == 0) continue;
      std::string lit = schema::Literal(v.dump());
      if (std::find(alts.begin(), alts.end(), lit) == alts.end()) alts.push_back(std::move(lit));
    }
    if (alts.empty()) {
      return Error(ErrorCode::kInvalidArgument, "no value of enum/const at {} has the schema's type", Where(path));
    }
    std::string expr;
    for (size_t i = 0; i < alts.size(); ++i) expr += (i > 0 ? " | " : "") + alts[i];
    return AsTerm(Hint(path), expr);
  }

  // A non-negative integer keyword (minLength, maxItems ...), or nullopt when absent.
  static Status Count(const json& s, const char* key, const std::string& path, std::optional<size_t>* out) {
    auto it = s.find(key);
    if (it == s.end()) return Status::Ok();
    const bool integral = it->is_number_unsigned() || (it->is_number_integer() && it->get<int64_t>() >= 0) ||
                          (it->is_number_float() && it->get<double>() >= 0 && std::floor(it->get<double>()) == it->get<double>());
    if (!integral) {
      return Error(ErrorCode::kInvalidArgument, "{} at {} must be a non-negative integer, not {}", key, Where(path), it->dump());
    }
    const double v = it->get<double>();
    if (v > static_cast<double>(schema::kMaxSchemaCount)) {
      return Error(ErrorCode::kUnsupported, "{} at {} is {}; trit expands counts up to {}", key, Where(path), it->dump(),
                   schema::kMaxSchemaCount);
    }
    *out = static_cast<size_t>(v);
    return Status::Ok();
  }

  Expected<std::string> StringRule(const json& s, const std::string& path) {
    std::optional<size_t> min, max;
    if (Status st = Count(s, "minLength", path, &min); !st.ok()) return st;
    if (Status st = Count(s, "maxLength", path, &max); !st.ok()) return st;
    if (min && max && *min > *max) {
      return Error(ErrorCode::kInvalidArgument, "minLength {} is above maxLength {} at {}", *min, *max, Where(path));
    }
    auto format = s.find("format");
    auto pattern = s.find("pattern");
    if (format != s.end() && pattern != s.end()) {
      return Error(ErrorCode::kUnsupported, "format and pattern together at {} are not supported", Where(path));
    }
    if (pattern != s.end()) {
      if (!pattern->is_string()) return Error(ErrorCode::kInvalidArgument, "pattern at {} must be a string", Where(path));
      if (min || max) {
        return Error(ErrorCode::kUnsupported, "pattern with minLength/maxLength at {} is not supported", Where(path));
      }
      Expected<std::string> e = schema::PatternToGbnf(pattern->get<std::string>(), &rules_);
      if (!e) return e.status().WithContext(fmt::format("schema keyword 'pattern' at {}", Where(path)));
      return AsTerm(Hint(path), *e);
    }
    if (format != s.end()) {
      if (!format->is_string()) return Error(ErrorCode::kInvalidArgument, "format at {} must be a string", Where(path));
      std::pair<size_t, size_t> length;
      std::string e = rules_.StringFormat(format->get<std::string>(), &length);
      if (e.empty()) {
        return Error(ErrorCode::kUnsupported, "format '{}' at {} is not supported (supported: date, time, date-time, uuid)",
                     format->get<std::string>(), Where(path));
      }
      if ((min && *min > length.first) || (max && *max < length.second)) {
        return Error(ErrorCode::kUnsupported, "format '{}' with minLength/maxLength at {} is not supported",
                     format->get<std::string>(), Where(path));
      }
      return AsTerm(Hint(path), e);
    }
    return AsTerm(Hint(path), rules_.StringOfLength(min.value_or(0), max));
  }

  // minimum/maximum/exclusive*: for integers, exact inclusive bounds; for
  // numbers, integer bounds only (RuleSet::NumberRange).
  Expected<std::string> NumberRule(const json& s, const std::string& path, bool integer) {
    using Bound = RuleSet::Bound;
    constexpr int64_t kLimit = schema::kMaxInteger;
    std::optional<Bound> lo, hi;
    const auto read = [&](const char* key, bool lower, bool exclusive) -> Status {
      auto it = s.find(key);
      if (it == s.end()) return Status::Ok();
      if (!it->is_number()) {
        return Error(ErrorCode::kInvalidArgument, "{} at {} must be a number, not {}", key, Where(path), it->dump());
      }
      // Draft 4: exclusiveMinimum/exclusiveMaximum true makes minimum/maximum exclusive.
      const auto flag = s.find(lower ? "exclusiveMinimum" : "exclusiveMaximum");
      if (!exclusive && flag != s.end() && flag->is_boolean()) exclusive = flag->get<bool>();
      const double d = it->get<double>();
      if (!std::isfinite(d)) return Error(ErrorCode::kInvalidArgument, "{} at {} is not finite", key, Where(path));
      if (!integer && std::floor(d) != d) {
        return Error(ErrorCode::kUnsupported, "schema keyword '{}' at {} is {}: trit bounds numbers exactly only at integers",
                     key, Where(path), it->dump());
      }
      // The bound's integer, clamped to +-(kLimit + 2) so that +-1 cannot overflow.
      constexpr int64_t kClamp = kLimit + 2;
      int64_t v = 0;
      if (it->is_number_unsigned()) {
        v = it->get<uint64_t>() > static_cast<uint64_t>(kClamp) ? kClamp : static_cast<int64_t>(it->get<uint64_t>());
      } else if (it->is_number_integer()) {
        v = std::clamp<int64_t>(it->get<int64_t>(), -kClamp, kClamp);
      } else {
        // For integers, a fractional bound rounds inward (x >= 2.5 is x >= 3).
        const double r = integer ? (lower ? std::ceil(d) : std::floor(d)) : d;
        v = static_cast<int64_t>(std::clamp<double>(r, -static_cast<double>(kClamp), static_cast<double>(kClamp)));
        if (integer && exclusive && r != d) exclusive = false;  // 2.5 exclusive is 3 inclusive
      }
      Bound b{v, exclusive};
      if (integer && exclusive) b = Bound{lower ? v + 1 : v - 1, false};
      // Every value written has fewer than 17 integer digits.
      if ((lower && b.value > kLimit) || (!lower && b.value < -kLimit)) {
        return Error(ErrorCode::kInvalidArgument, "{} {} at {} is beyond the {} of up to 16 digits that trit writes", key,
                     it->dump(), Where(path), integer ? "integers" : "numbers");
      }
      if ((lower && b.value < -kLimit) || (!lower && b.value > kLimit)) return Status::Ok();  // always met
      std::optional<Bound>& slot = lower ? lo : hi;
      const bool tighter = !slot || (lower ? (b.value > slot->value || (b.value == slot->value && b.exclusive))
                                           : (b.value < slot->value || (b.value == slot->value && b.exclusive)));
      if (tighter) slot = b;
      return Status::Ok();
    };
    if (Status st = read("minimum", /*lower=*/true, /*exclusive=*/false); !st.ok()) return st;
    if (Status st = read("maximum", /*lower=*/false, /*exclusive=*/false); !st.ok()) return st;
    for (const auto& [key, lower] : {std::pair{"exclusiveMinimum", true}, std::pair{"exclusiveMaximum", false}}) {
      auto it = s.find(key);
      if (it != s.end() && it->is_boolean()) continue;  // draft 4's form, read above
      if (Status st = read(key, lower, /*exclusive=*/true); !st.ok()) return st;
    }
    if (integer) {
      if (!lo && !hi) return rules_.JsonInteger();
      const int64_t a = lo ? lo->value : -schema::kMaxInteger, b = hi ? hi->value : schema::kMaxInteger;
      if (a > b) return Error(ErrorCode::kInvalidArgument, "no integer at {} lies within its minimum and maximum", Where(path));
      return AsTerm(Hint(path), rules_.IntegerRange(a, b));
    }
    if (!lo && !hi) return rules_.JsonNumber();
    std::string e = rules_.NumberRange(lo, hi);
    if (e.empty()) return Error(ErrorCode::kInvalidArgument, "no number at {} lies within its minimum and maximum", Where(path));
    return AsTerm(Hint(path), e);
  }

  // Saves the refs open at the current position and clears them while the
  // values inside an object or array are converted (its '{' or '[' was read).
  class InsideValue {
   public:
    explicit InsideValue(std::set<std::string>* open) : open_(open), saved_(std::move(*open)) { open_->clear(); }
    ~InsideValue() { *open_ = std::move(saved_); }
    InsideValue(const InsideValue&) = delete;
    InsideValue& operator=(const InsideValue&) = delete;

   private:
    std::set<std::string>* open_;
    std::set<std::string> saved_;
  };

  Expected<std::string> ObjectRule(const json& s, const std::string& path, int depth) {
    InsideValue inside(&open_refs_);
    const json empty = json::object();
    const json* props = &empty;
    if (auto it = s.find("properties"); it != s.end()) {
      if (!it->is_object()) return Error(ErrorCode::kInvalidArgument, "properties at {} must be an object", Where(path));
      props = &*it;
    }
    std::vector<std::string> required;
    if (auto it = s.find("required"); it != s.end()) {
      if (Status st = CheckNames(*it, Child(path, "required")); !st.ok()) return st;
      for (const json& name : *it) {
        if (std::find(required.begin(), required.end(), name.get<std::string>()) == required.end()) {
          required.push_back(name.get<std::string>());
        }
      }
    }
    const auto is_required = [&](const std::string& name) {
      return std::find(required.begin(), required.end(), name) != required.end();
    };
    // Extra properties: their value rule, or "" when none are allowed.
    std::string extra_value;
    const json* addl = nullptr;
    if (auto it = s.find("additionalProperties"); it != s.end()) addl = &*it;
    if (addl == nullptr || (addl->is_boolean() && addl->get<bool>())) {
      extra_value = rules_.JsonValue();
    } else if (!addl->is_boolean()) {
      Expected<std::string> v = Visit(*addl, Child(path, "additionalProperties"), depth + 1);
      if (!v) return v;
      extra_value = *v;
    }
    struct Listed {
      std::string name;
      bool required;
      std::string kv;  // "\"name\":" value
    };
    std::vector<Listed> listed;
    std::vector<std::string> names;  // every listed name (also those whose schema is false): not extra keys
    for (const auto& [name, ps] : props->items()) {
      names.push_back(name);
      if (ps.is_boolean() && !ps.get<bool>()) {
        if (is_required(name)) {
          return Error(ErrorCode::kInvalidArgument, "property '{}' at {} is required but its schema is false", name,
                       Where(path));
        }
        continue;
      }
      Expected<std::string> v = Visit(ps, Child(Child(path, "properties"), name), depth + 1);
      if (!v) return v;
      listed.push_back({name, is_required(name), schema::Literal(json(name).dump() + ":") + " " + *v});
    }
    for (const std::string& name : required) {
      if (props->contains(name)) continue;
      if (extra_value.empty()) {
        return Error(ErrorCode::kInvalidArgument,
                     "required property '{}' at {} is not in properties and additionalProperties is false", name, Where(path));
      }
      names.push_back(name);
      listed.push_back({name, true, schema::Literal(json(name).dump() + ":") + " " + extra_value});
    }
    if (listed.size() > kMaxProperties) {
      return Error(ErrorCode::kUnsupported, "the object at {} lists {} properties; trit supports up to {}", Where(path),
                   listed.size(), kMaxProperties);
    }
    const std::string hint = Hint(path);
    const size_t n = listed.size();
    const std::string extra_kv = extra_value.empty() ? "" : ExtraKey(names, hint) + " \":\" " + extra_value;
    // after[i]: the properties from i on, once one has been written (each
    // behind a comma); "" when only the empty string is left.
    std::vector<std::string> after(n + 1);
    if (!extra_kv.empty()) after[n] = rules_.Add(hint + "-more", fmt::format("(\",\" {})*", extra_kv));
    for (size_t i = n; i-- > 1;) {
      const std::string item = "\",\" " + listed[i].kv;
      std::string body = listed[i].required ? item : "(" + item + ")?";
      if (!after[i + 1].empty()) body += " " + after[i + 1];
      after[i] = rules_.Add(hint + "-after-" + listed[i].name, body);
    }
    // The first property written: any optional one up to the first required one.
    std::vector<std::string> firsts;
    bool may_be_empty = true;
    for (size_t k = 0; k < n; ++k) {
      firsts.push_back(listed[k].kv + (after[k + 1].empty() ? "" : " " + after[k + 1]));
      if (listed[k].required) {
        may_be_empty = false;
        break;
      }
    }
    if (may_be_empty && !extra_kv.empty()) firsts.push_back(extra_kv + " " + after[n]);
    if (firsts.empty()) return schema::Literal("{}");
    std::string inner;
    for (size_t i = 0; i < firsts.size(); ++i) inner += (i > 0 ? " | " : "") + firsts[i];
    return fmt::format("\"{{\" ({}){} \"}}\"", inner, may_be_empty ? "?" : "");
  }

  // A JSON string (quotes included) that is none of `names`: a trie of the
  // names, whose nodes take the next character of a name (written one way
  // only, so the path decides the value) or any other character, after which
  // the key differs from every name and any characters may follow.
  std::string ExtraKey(const std::vector<std::string>& names, const std::string& hint) {
    if (names.empty()) return rules_.JsonString();
    struct Node {
      std::map<char32_t, size_t> children;
      bool terminal = false;
    };
    std::vector<Node> trie(1);
    for (const std::string& name : names) {
      size_t at = 0;
      for (char32_t c : CodePoints(name)) {
        auto it = trie[at].children.find(c);
        if (it == trie[at].children.end()) {
          trie.push_back(Node{});
          it = trie[at].children.emplace(c, trie.size() - 1).first;
        }
        at = it->second;
      }
      trie[at].terminal = true;
    }
    // Characters written one way only: no control character but \t and \n.
    static const CodeSet kOneWay =
        CodeSet::All().Minus(CodeSet::Span(0, 0x1F)).Union(CodeSet::Of('\t')).Union(CodeSet::Of('\n'));
    const std::string close = schema::Literal("\"");
    const std::string tail = rules_.JsonChar() + "* " + close;
    std::vector<std::string> rule(trie.size());
    for (size_t i = 0; i < trie.size(); ++i) rule[i] = rules_.Reserve(hint + "-key");
    for (size_t i = 0; i < trie.size(); ++i) {
      std::vector<std::string> alts;
      if (!trie[i].terminal) alts.push_back(close);
      CodeSet others = kOneWay;
      for (const auto& [c, child] : trie[i].children) {
        alts.push_back(schema::JsonCharOf(CodeSet::Of(c)) + " " + rule[child]);
        others = others.Minus(CodeSet::Of(c));
      }
      alts.push_back(schema::JsonCharOf(others) + " " + tail);
      std::string body;
      for (size_t k = 0; k < alts.size(); ++k) body += (k > 0 ? " | " : "") + alts[k];
      rules_.Define(rule[i], body);
    }
    return close + " " + rule[0];
  }

  Expected<std::string> ArrayRule(const json& s, const std::string& path, int depth) {
    InsideValue inside(&open_refs_);
    std::vector<const json*> prefix;
    std::string prefix_key = "prefixItems";
    const json* rest = nullptr;  // nullptr: any value
    std::string rest_path;
    auto items = s.find("items");
    auto prefix_items = s.find("prefixItems");
    auto additional = s.find("additionalItems");
    if (items != s.end() && items->is_array()) {
      if (prefix_items != s.end()) {
        return Error(ErrorCode::kUnsupported, "prefixItems beside an array 'items' at {} is not supported", Where(path));
      }
      for (const json& x : *items) prefix.push_back(&x);
      prefix_key = "items";
      if (additional != s.end()) {
        rest = &*additional;
        rest_path = Child(path, "additionalItems");
      }
    } else {
      if (additional != s.end()) {
        return Error(ErrorCode::kUnsupported, "additionalItems at {} without an array 'items' is not supported", Where(path));
      }
      if (prefix_items != s.end()) {
        if (!prefix_items->is_array()) {
          return Error(ErrorCode::kInvalidArgument, "prefixItems at {} must be an array", Where(path));
        }
        for (const json& x : *prefix_items) prefix.push_back(&x);
      }
      if (items != s.end()) {
        rest = &*items;
        rest_path = Child(path, "items");
      }
    }
    std::optional<size_t> min_items, max_items;
    if (Status st = Count(s, "minItems", path, &min_items); !st.ok()) return st;
    if (Status st = Count(s, "maxItems", path, &max_items); !st.ok()) return st;
    const size_t lo = min_items.value_or(0);
    if (max_items && lo > *max_items) {
      return Error(ErrorCode::kInvalidArgument, "minItems {} is above maxItems {} at {}", lo, *max_items, Where(path));
    }
    if (auto it = s.find("uniqueItems"); it != s.end()) {
      if (!it->is_boolean()) return Error(ErrorCode::kInvalidArgument, "uniqueItems at {} must be a boolean", Where(path));
      if (it->get<bool>() && !(max_items && *max_items <= 1)) {
        return Error(ErrorCode::kUnsupported, "schema keyword 'uniqueItems' (true) at {} is not supported", Where(path));
      }
    }
    // A false schema at position i ends the array before it; so does a false rest.
    std::optional<size_t> hi = max_items;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (prefix[i]->is_boolean() && !prefix[i]->get<bool>()) {
        prefix.resize(i);
        hi = std::min(hi.value_or(i), i);
        break;
      }
    }
    const bool rest_false = rest != nullptr && rest->is_boolean() && !rest->get<bool>();
    if (rest_false) hi = std::min(hi.value_or(prefix.size()), prefix.size());
    if (hi && lo > *hi) {
      return Error(ErrorCode::kInvalidArgument, "no array at {} has minItems {} items within what its items allow", Where(path), lo);
    }
    const size_t n_prefix = hi ? std::min(prefix.size(), *hi) : prefix.size();
    std::vector<std::string> values;
    for (size_t i = 0; i < n_prefix; ++i) {
      Expected<std::string> v = Visit(*prefix[i], Child(path, prefix_key, i), depth + 1);
      if (!v) return v;
      values.push_back(std::move(*v));
    }
    // After the prefix: from max(0, lo - P) to hi - P more items.
    std::string tail;
    if (!hi || *hi > n_prefix) {
      std::string r;
      if (rest == nullptr) {
        r = rules_.JsonValue();
      } else {
        Expected<std::string> v = Visit(*rest, rest_path, depth + 1);
        if (!v) return v;
        r = *v;
      }
      const size_t more_lo = lo > n_prefix ? lo - n_prefix : 0;
      const std::optional<size_t> more_hi = hi ? std::optional<size_t>(*hi - n_prefix) : std::nullopt;
      if (n_prefix > 0) {
        tail = rules_.Repeat("\",\" " + r, more_lo, more_hi);
      } else {
        const std::optional<size_t> others = more_hi ? std::optional<size_t>(*more_hi - 1) : std::nullopt;
        const std::string list = r + " " + rules_.Repeat("\",\" " + r, more_lo > 0 ? more_lo - 1 : 0, others);
        tail = more_lo > 0 ? list : "(" + list + ")?";
      }
    }
    for (size_t i = n_prefix; i-- > 0;) {
      std::string seq = (i > 0 ? "\",\" " : "") + values[i] + (tail.empty() ? "" : " " + tail);
      if (i >= lo) seq = "(" + seq + ")?";
      tail = i > 0 ? rules_.Add(Hint(path) + "-from-" + std::to_string(i), seq) : seq;
    }
    return fmt::format("\"[\" {}{}\"]\"", tail, tail.empty() ? "" : " ");
  }

  const json& root_;
  RuleSet rules_;
  std::map<std::string, std::string> ref_rules_;  // $ref -> its rule
  // $refs being converted with no '{' or '[' read since: meeting one again
  // would be left recursion (a rule reaching itself before any character).
  std::set<std::string> open_refs_;
  size_t steps_ = 0;
};

}  // namespace

Expected<std::string> JsonSchemaToGbnf(std::string_view schema_json) {
  if (!JsonNestingWithin(schema_json, kMaxJsonDepth)) {
    return Error(ErrorCode::kUnsupported, "the schema nests deeper than {} levels", kMaxJsonDepth);
  }
  json root = json::parse(schema_json.begin(), schema_json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Error(ErrorCode::kInvalidArgument, "the schema is not valid JSON");
  if (!root.is_object() && !root.is_boolean()) {
    return Error(ErrorCode::kInvalidArgument, "the schema must be a JSON object or a boolean, not {}", root.type_name());
  }
  return Converter(root).Run();
}

std::string JsonObjectGbnf() {
  RuleSet rules;
  return rules.Render(rules.JsonObject());
}

std::string JsonValueGbnf() {
  RuleSet rules;
  return rules.Render(rules.JsonValue());
}

}  // namespace trit::grammar
