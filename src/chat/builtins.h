// The built-in filters (|trim ...), tests (is defined ...), methods of str,
// dict and list values (.strip() ...) and global functions (range ...) of
// the template language. Names outside these tables are refused: unknown
// filters and tests when the template is compiled, the rest when called.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat/template_error.h"
#include "chat/value.h"

namespace trit::chat {

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;

  // The argument at `index` or named `name`; nullptr when absent.
  const Value* Get(size_t index, std::string_view name) const;
};

// Bounds on what one rendering may build; shared with the evaluator.
struct Budget {
  size_t max_bytes;  // largest string or list a template may build
  void CheckSize(size_t size, SourcePos pos) const;
};

bool IsKnownFilter(std::string_view name);
bool IsKnownTest(std::string_view name);
bool IsGlobalFunction(std::string_view name);

// Each throws TemplateError at pos for bad argument types or values.
Value ApplyFilter(std::string_view name, const Value& input, const CallArgs& args, const Budget& budget,
                  SourcePos pos);
bool ApplyTest(std::string_view name, const Value& input, const CallArgs& args, SourcePos pos);
Value CallMethod(const Value& object, std::string_view name, const CallArgs& args, const Budget& budget,
                 SourcePos pos);
// range, namespace, dict, raise_exception, strftime_now.
Value CallGlobal(std::string_view name, const CallArgs& args, const Budget& budget, SourcePos pos);

// obj.name / obj[key] as jinja2 resolves them (missing -> Undefined).
Value GetAttribute(const Value& object, std::string_view name, SourcePos pos);
Value GetItem(const Value& object, const Value& key, SourcePos pos);

// Python iteration: list items, dict keys, string code points; Undefined is empty.
List Iterate(const Value& v, SourcePos pos);

}  // namespace trit::chat
