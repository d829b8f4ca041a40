#include "formats/vectors/json_vectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_nesting.h"

namespace trit::vectors {
namespace {

using Json = nlohmann::json;

// {"data": [{"embedding": [x]}]} nests 4 deep; a little room beyond that.
constexpr int kMaxDepth = 8;
// The keys an object may hold its rows under, in the order they are named.
constexpr const char* kRowKeys[] = {"data", "embeddings", "embedding", "logits"};

std::string Where(const std::string& path) { return path.empty() ? "the top-level array" : path; }

// "an array", "a string", "null": the type of `v` as a sentence names it.
std::string TypeNoun(const Json& v) {
  if (v.is_null()) return "null";
  const std::string name = v.type_name();
  return (name[0] == 'a' || name[0] == 'o' ? "an " : "a ") + name;
}

// Whether a literal JSON lacks (Python's json.dumps writes them) starts at
// `at` or just before it, where the parser stopped.
bool NonFiniteLiteralAt(std::string_view text, size_t at) {
  for (size_t i : {at, at > 0 ? at - 1 : at}) {
    const std::string_view rest = text.substr(std::min(i, text.size()));
    for (const char* word : {"NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"}) {
      if (rest.starts_with(word)) return true;
    }
  }
  return false;
}

// One row: `row` must be a non-empty array of numbers, as long as the rows before it.
Status AppendRow(const Json& row, const std::string& path, JsonVectors* out) {
  if (!row.is_array()) {
    if (row.is_string() && path.ends_with("embedding")) {
      return Error(ErrorCode::kCorrupt,
                   "JSON {} is a string (a base64 embedding?); trit compares arrays of numbers: ask for "
                   "encoding_format \"float\"",
                   path);
    }
    return Error(ErrorCode::kCorrupt, "JSON {} is {}, not an array of numbers", Where(path), TypeNoun(row));
  }
  if (row.empty()) return Error(ErrorCode::kCorrupt, "JSON {} is an empty array", Where(path));
  const int64_t n = static_cast<int64_t>(row.size());
  if (out->n_rows > 0 && n != out->n_cols) {
    return Error(ErrorCode::kCorrupt, "JSON {} has {} number{}; the rows before it have {}", Where(path), n,
                 n == 1 ? "" : "s", out->n_cols);
  }
  for (size_t j = 0; j < row.size(); ++j) {
    const Json& v = row[j];
    if (!v.is_number()) {
      return Error(ErrorCode::kCorrupt, "JSON {}[{}] is {}, not a number", path, j, TypeNoun(v));
    }
    out->values.push_back(v.get<double>());
  }
  out->n_cols = n;
  ++out->n_rows;
  return Status::Ok();
}

// The rows of `v`, found at `path` ("" for the top level, else the key).
Status ReadRows(const Json& v, const std::string& path, JsonVectors* out) {
  if (!v.is_array()) {
    return Error(ErrorCode::kCorrupt, "JSON {} is {}, not an array", path.empty() ? "document" : path,
                 TypeNoun(v));
  }
  if (v.empty()) return Error(ErrorCode::kCorrupt, "JSON {} is an empty array: no vectors", Where(path));
  const std::string prefix = path.empty() ? "" : fmt::format("'{}': ", path);
  const Json& first = v[0];
  if (first.is_number()) {
    out->n_dims = 1;
    out->layout = prefix + "array";
    return AppendRow(v, path, out);
  }
  if (first.is_array()) {
    out->n_dims = 2;
    out->layout = prefix + "array of arrays";
    for (size_t i = 0; i < v.size(); ++i) {
      if (Status s = AppendRow(v[i], fmt::format("{}[{}]", path, i), out); !s.ok()) return s;
    }
    return Status::Ok();
  }
  if (first.is_object() && path == "data") {
    out->n_dims = 2;
    out->layout = "OpenAI embeddings response";
    for (size_t i = 0; i < v.size(); ++i) {
      const Json& item = v[i];
      if (!item.is_object() || !item.contains("embedding")) {
        return Error(ErrorCode::kCorrupt, "JSON data[{}] is not an object holding \"embedding\"", i);
      }
      if (Status s = AppendRow(item["embedding"], fmt::format("data[{}].embedding", i), out); !s.ok()) return s;
    }
    return Status::Ok();
  }
  return Error(ErrorCode::kCorrupt, "JSON {}[0] is {}: expected numbers (one vector) or arrays of numbers (rows)",
               path, TypeNoun(first));
}

}  // namespace

Expected<JsonVectors> ParseJsonVectors(std::string_view text) {
  if (!JsonNestingWithin(text, kMaxDepth)) {
    return Error(ErrorCode::kCorrupt, "JSON nests deeper than {} levels; a file of vectors is an array of numbers "
                 "or of arrays of numbers", kMaxDepth);
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." without its bracketed id.
    std::string_view what = e.what();
    if (const size_t at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
    const bool non_finite = NonFiniteLiteralAt(text, e.byte > 0 ? e.byte - 1 : 0);  // e.byte counts from 1
    return Error(ErrorCode::kCorrupt, "not valid JSON: {}{}", what,
                 non_finite ? " (JSON has no NaN or Infinity; save .npy to compare such values)" : "");
  } catch (const Json::out_of_range& e) {
    // A number beyond double's range ("1e400"): nlohmann's parser throws
    // out_of_range, not parse_error, for it (npy_reader_fuzz found it).
    std::string_view what = e.what();
    if (const size_t at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
    return Error(ErrorCode::kCorrupt, "not valid JSON: {} (beyond the range of a double)", what);
  } catch (const Json::exception& e) {  // whatever else the parser may throw: an error, never an abort
    return Error(ErrorCode::kCorrupt, "not valid JSON: {}", e.what());
  }
  JsonVectors out;
  if (doc.is_object()) {
    const char* found = nullptr;
    for (const char* key : kRowKeys) {
      if (!doc.contains(key)) continue;
      if (found != nullptr) {
        return Error(ErrorCode::kCorrupt, "JSON object holds both \"{}\" and \"{}\"; keep the one with the vectors",
                     found, key);
      }
      found = key;
    }
    if (found == nullptr) {
      std::string keys;
      size_t n_keys = 0;
      for (const auto& item : doc.items()) {
        if (++n_keys > 8) {
          keys += ", ...";
          break;
        }
        keys += fmt::format("{}\"{}\"", keys.empty() ? "" : ", ", item.key().substr(0, 40));
      }
      return Error(ErrorCode::kCorrupt, "JSON object holds none of \"data\", \"embeddings\", \"embedding\", "
                   "\"logits\" (its keys: {})", keys.empty() ? "none" : keys);
    }
    if (Status s = ReadRows(doc[found], found, &out); !s.ok()) return s;
    return out;
  }
  if (Status s = ReadRows(doc, "", &out); !s.ok()) return s;
  return out;
}

}  // namespace trit::vectors
