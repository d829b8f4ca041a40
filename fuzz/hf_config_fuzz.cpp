// The config files of a Hugging Face model directory as `trit convert` reads
// them (convert/hf_config.h): config.json, sentence-transformers' modules.json
// and its Pooling module's config.json come with every downloaded model, so
// their text is untrusted. The same input goes to the three parsers; each
// must parse or give an error with a message, never crash, throw or recurse
// without bound. Promises checked:
//   ParseHfConfig: errors are kCorrupt; on a parse, every key of the table
//     (HfConfigFields) answers through its getter with a value in its range
//     or with "config.json has no 'key'", and the config written back as
//     JSON parses to the same architecture, model type and values;
//   ParsePoolingModulePath: errors are kCorrupt; a path found stays inside
//     the model directory (relative, no "..", no '\', no NUL);
//   ParsePoolingConfig: errors are kCorrupt or kUnsupported; a type is mean,
//     cls or last.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/check.h"
#include "convert/hf_config.h"

namespace {

using trit::ErrorCode;
using trit::Expected;
using trit::convert::HfConfigField;
using trit::convert::HfConfigFields;
using trit::convert::HfConfigKind;
using trit::convert::HfModelConfig;

constexpr int64_t kMaxInt = (int64_t{1} << 31) - 1;

// Each table key's answer is a value of its kind in range, or "no such key".
void CheckGetters(const HfModelConfig& c) {
  for (const HfConfigField& f : HfConfigFields()) {
    const std::string absent = "config.json has no '" + std::string(f.key) + "'";
    switch (f.kind) {
      case HfConfigKind::kPositiveInt: {
        Expected<int64_t> v = c.Int(f.key);
        TRIT_CHECK(v.ok() ? *v >= 1 && *v <= kMaxInt : v.status().message() == absent);
        break;
      }
      case HfConfigKind::kCount: {
        Expected<int64_t> v = c.Int(f.key);
        TRIT_CHECK(v.ok() ? *v >= 0 && *v <= kMaxInt : v.status().message() == absent);
        break;
      }
      case HfConfigKind::kPositiveFloat: {
        Expected<double> v = c.Float(f.key);
        TRIT_CHECK(v.ok() ? std::isfinite(*v) && *v > 0 : v.status().message() == absent);
        break;
      }
      case HfConfigKind::kString: {
        Expected<std::string> v = c.String(f.key);
        TRIT_CHECK(v.ok() || v.status().message() == absent);
        break;
      }
      case HfConfigKind::kBool: {
        Expected<bool> v = c.Bool(f.key);
        TRIT_CHECK(v.ok() || v.status().message() == absent);
        break;
      }
      case HfConfigKind::kTokenId: {
        Expected<int64_t> v = c.Int(f.key);
        TRIT_CHECK(v.ok() ? *v >= 0 && *v <= kMaxInt : v.status().message() == absent);
        break;
      }
      case HfConfigKind::kIntList: {
        Expected<std::vector<int64_t>> v = c.IntList(f.key);
        if (!v.ok()) TRIT_CHECK(v.status().message() == absent);
        for (int64_t x : v.ok() ? *v : std::vector<int64_t>{}) TRIT_CHECK(x >= 0 && x <= kMaxInt);
        break;
      }
      case HfConfigKind::kStringList: {
        Expected<std::vector<std::string>> v = c.StringList(f.key);
        TRIT_CHECK(v.ok() || v.status().message() == absent);
        break;
      }
    }
  }
}

// config.json holding exactly what `c` read.
std::string Rewrite(const HfModelConfig& c) {
  nlohmann::json doc = {{"architectures", {c.architecture}}, {"model_type", c.model_type}};
  for (const HfConfigField& f : HfConfigFields()) {
    std::string pointer = "/" + std::string(f.key);  // a dotted key is a path into nested objects
    for (char& ch : pointer) ch = ch == '.' ? '/' : ch;
    const nlohmann::json::json_pointer key(pointer);
    switch (f.kind) {
      case HfConfigKind::kPositiveInt:
      case HfConfigKind::kCount:
      case HfConfigKind::kTokenId:
        if (Expected<int64_t> v = c.Int(f.key); v.ok()) doc[key] = *v;
        break;
      case HfConfigKind::kPositiveFloat:
        if (Expected<double> v = c.Float(f.key); v.ok()) doc[key] = *v;
        break;
      case HfConfigKind::kString:
        if (Expected<std::string> v = c.String(f.key); v.ok()) doc[key] = *v;
        break;
      case HfConfigKind::kBool:
        if (Expected<bool> v = c.Bool(f.key); v.ok()) doc[key] = *v;
        break;
      case HfConfigKind::kIntList:
        if (Expected<std::vector<int64_t>> v = c.IntList(f.key); v.ok()) doc[key] = *v;
        break;
      case HfConfigKind::kStringList:
        if (Expected<std::vector<std::string>> v = c.StringList(f.key); v.ok()) doc[key] = *v;
        break;
    }
  }
  return doc.dump();  // strict UTF-8: the parser only accepts valid strings
}

bool SameValues(const HfModelConfig& a, const HfModelConfig& b) {
  if (a.architecture != b.architecture || a.model_type != b.model_type) return false;
  for (const HfConfigField& f : HfConfigFields()) {
    switch (f.kind) {
      case HfConfigKind::kPositiveInt:
      case HfConfigKind::kCount:
      case HfConfigKind::kTokenId: {
        Expected<int64_t> x = a.Int(f.key), y = b.Int(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
      case HfConfigKind::kBool: {
        Expected<bool> x = a.Bool(f.key), y = b.Bool(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
      case HfConfigKind::kPositiveFloat: {
        Expected<double> x = a.Float(f.key), y = b.Float(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
      case HfConfigKind::kString: {
        Expected<std::string> x = a.String(f.key), y = b.String(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
      case HfConfigKind::kIntList: {
        Expected<std::vector<int64_t>> x = a.IntList(f.key), y = b.IntList(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
      case HfConfigKind::kStringList: {
        Expected<std::vector<std::string>> x = a.StringList(f.key), y = b.StringList(f.key);
        if (x.ok() != y.ok() || (x.ok() && *x != *y)) return false;
        break;
      }
    }
  }
  return true;
}

// `path` joined to a model directory stays inside it, by an independent
// check: lexically normalized, it does not climb out of the base.
bool StaysInside(const std::string& path) {
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) return false;
  if (!path.empty() && path.front() == '/') return false;
  const std::filesystem::path base("/model");
  const std::filesystem::path joined = (base / path / "config.json").lexically_normal();
  const std::filesystem::path rel = joined.lexically_relative(base);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit::convert;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  Expected<HfModelConfig> config = ParseHfConfig(text);
  if (config.ok()) {
    CheckGetters(*config);
    const std::string again_text = Rewrite(*config);
    Expected<HfModelConfig> again = ParseHfConfig(again_text);
    TRIT_CHECK(again.ok());
    TRIT_CHECK(SameValues(*config, *again));
  } else {
    TRIT_CHECK(config.status().code() == ErrorCode::kCorrupt && !config.status().message().empty());
  }

  Expected<std::optional<std::string>> module = ParsePoolingModulePath(text);
  if (module.ok()) {
    if (module->has_value()) TRIT_CHECK(StaysInside(**module));
  } else {
    TRIT_CHECK(module.status().code() == ErrorCode::kCorrupt && !module.status().message().empty());
  }

  Expected<PoolingType> pooling = ParsePoolingConfig(text);
  if (pooling.ok()) {
    TRIT_CHECK(*pooling == PoolingType::kMean || *pooling == PoolingType::kCls || *pooling == PoolingType::kLast);
  } else {
    const ErrorCode code = pooling.status().code();
    TRIT_CHECK((code == ErrorCode::kCorrupt || code == ErrorCode::kUnsupported) &&
               !pooling.status().message().empty());
  }
  return 0;
}
