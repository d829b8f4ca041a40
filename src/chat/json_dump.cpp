#include "chat/json_dump.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "chat/template_error.h"

namespace trit::chat {
namespace {

void DumpString(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void Dump(const Value& v, const JsonDumpOptions& options, int level, SourcePos pos, std::string& out) {
  const auto newline = [&](int lvl) {
    out += '\n';
    for (int i = 0; i < lvl; ++i) out += *options.indent;
  };
  switch (v.kind()) {
    case Value::Kind::kNone: out += "null"; return;
    case Value::Kind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Kind::kInt: out += std::to_string(v.as_int()); return;
    case Value::Kind::kFloat: {
      const double f = v.as_float();
      if (std::isnan(f)) out += "NaN";
      else if (std::isinf(f)) out += f > 0 ? "Infinity" : "-Infinity";
      else out += FloatRepr(f);
      return;
    }
    case Value::Kind::kString: DumpString(v.as_string(), out); return;
    case Value::Kind::kList: {
      const List& items = v.as_list();
      if (items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += options.indent ? "," : ", ";
        if (options.indent) newline(level + 1);
        Dump(items[i], options, level + 1, pos, out);
      }
      if (options.indent) newline(level);
      out += ']';
      return;
    }
    case Value::Kind::kDict: {
      std::vector<const std::pair<std::string, Value>*> entries;
      for (const auto& e : v.as_dict().entries) entries.push_back(&e);
      if (options.sort_keys) {
        std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->first < b->first; });
      }
      if (entries.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out += options.indent ? "," : ", ";
        if (options.indent) newline(level + 1);
        DumpString(entries[i]->first, out);
        out += ": ";
        Dump(entries[i]->second, options, level + 1, pos, out);
      }
      if (options.indent) newline(level);
      out += '}';
      return;
    }
    default:
      throw TemplateError(pos, "tojson: object of type '" + std::string(v.TypeName()) + "' is not JSON serializable");
  }
}

}  // namespace

std::string JsonDump(const Value& v, const JsonDumpOptions& options, SourcePos pos) {
  std::string out;
  Dump(v, options, 0, pos, out);
  return out;
}

}  // namespace trit::chat
