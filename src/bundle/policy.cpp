#include "bundle/policy.h"

#include <fnmatch.h>

#include <nlohmann/json.hpp>

namespace trit::bundle {
namespace {

Status ReadStringList(const nlohmann::json& value, const std::string& key, std::vector<std::string>* out) {
  if (!value.is_array()) return Error(ErrorCode::kInvalidArgument, "policy field '{}': expected an array of strings", key);
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string() || value[i].get<std::string>().empty()) {
      return Error(ErrorCode::kInvalidArgument, "policy field '{}[{}]': expected a non-empty string", key, i);
    }
    out->push_back(value[i].get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

Expected<BundlePolicy> ParseBundlePolicy(const std::string& json_text) {
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error(ErrorCode::kInvalidArgument, "policy: not valid JSON");
  if (!doc.is_object()) return Error(ErrorCode::kInvalidArgument, "policy: expected a JSON object at the top level");
  BundlePolicy policy;
  for (const auto& [key, value] : doc.items()) {
    if (key == "forbid") {
      if (Status s = ReadStringList(value, key, &policy.forbid); !s.ok()) return s;
    } else if (key == "require") {
      if (Status s = ReadStringList(value, key, &policy.require); !s.ok()) return s;
    } else if (key == "system") {
      if (Status s = ReadStringList(value, key, &policy.system); !s.ok()) return s;
    } else if (key == "max_glibc") {
      const bool ok = value.is_string() && !value.get<std::string>().empty() &&
                      value.get<std::string>().find_first_not_of("0123456789.") == std::string::npos;
      if (!ok) return Error(ErrorCode::kInvalidArgument, "policy field 'max_glibc': expected a version string like \"2.31\"");
      policy.max_glibc = value.get<std::string>();
    } else if (key == "one_cxx_runtime") {
      if (!value.is_boolean()) return Error(ErrorCode::kInvalidArgument, "policy field 'one_cxx_runtime': expected true or false");
      policy.one_cxx_runtime = value.get<bool>();
    } else if (key == "rpath") {
      if (value == "relative") {
        policy.rpath = RpathRule::kRelative;
      } else if (value == "any") {
        policy.rpath = RpathRule::kAny;
      } else {
        return Error(ErrorCode::kInvalidArgument, "policy field 'rpath': expected \"relative\" or \"any\"");
      }
    } else if (key == "comment" || key.rfind("_", 0) == 0) {
      continue;  // free text for people
    } else {
      return Error(ErrorCode::kInvalidArgument,
                   "policy field '{}': unknown (known: forbid, require, system, max_glibc, one_cxx_runtime, rpath, comment)",
                   key);
    }
  }
  return policy;
}

bool GlobMatch(const std::string& pattern, const std::string& name, bool fold_case) {
  return fnmatch(pattern.c_str(), name.c_str(), fold_case ? FNM_CASEFOLD : 0) == 0;
}

}  // namespace trit::bundle
