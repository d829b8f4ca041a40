#include "convert/importance_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "base/mapped_file.h"
#include "formats/gguf/byte_cursor.h"
#include "formats/gguf/lookup.h"
#include "formats/gguf/reader.h"

namespace trit::convert {
namespace {

constexpr std::string_view kSumsSuffix = ".in_sum2";
constexpr std::string_view kCountsSuffix = ".counts";

bool StripSuffix(std::string* name, std::string_view suffix) {
  if (name->size() <= suffix.size() || name->compare(name->size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  name->resize(name->size() - suffix.size());
  return true;
}

// Every value finite and >= 0: a squared activation's mean cannot be
// anything else, and the quantizers' searches assume it.
Status CheckValues(const ImportanceMatrix& m) {
  for (const auto& [name, values] : m.entries) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i]) || values[i] < 0.0f) {
        return Error(ErrorCode::kCorrupt, "entry '{}': value {} is {} (importance values are finite and >= 0)",
                     gguf::Printable(name), i, values[i]);
      }
    }
  }
  if (m.entries.empty()) return Error(ErrorCode::kCorrupt, "no importance entries");
  return Status::Ok();
}

const gguf::Value* FindKey(const gguf::Header& h, std::string_view key) {
  for (const gguf::MetadataEntry& e : h.metadata) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

std::vector<float> Floats(std::span<const uint8_t> bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

Expected<ImportanceMatrix> ParseGguf(std::span<const uint8_t> bytes) {
  Expected<gguf::Header> header = gguf::ParseHeader(bytes);
  if (!header.ok()) return header.status();
  ImportanceMatrix m;
  m.format = ImportanceMatrix::Format::kGguf;
  if (const gguf::Value* type = FindKey(*header, "general.type"); type != nullptr) {
    Expected<std::string> t = gguf::ValueAsString("general.type", type);
    if (!t.ok()) return t.status();
    if (*t != "imatrix") {
      return Error(ErrorCode::kInvalidArgument,
                   "a GGUF file of general.type '{}', not an importance matrix (llama-imatrix writes "
                   "general.type 'imatrix')",
                   gguf::Printable(*t));
    }
  }
  if (const gguf::Value* v = FindKey(*header, "imatrix.datasets"); v != nullptr) {
    Expected<const gguf::Array*> a = gguf::ValueAsArray("imatrix.datasets", v);
    if (!a.ok()) return a.status();
    m.datasets = (*a)->strings;
  }
  for (const auto& [key, field] : {std::pair{"imatrix.chunk_count", &m.chunk_count},
                                   std::pair{"imatrix.chunk_size", &m.chunk_size}}) {
    if (const gguf::Value* v = FindKey(*header, key); v != nullptr) {
      Expected<uint64_t> n = gguf::ValueAsUint(key, v);
      if (!n.ok()) return n.status();
      *field = static_cast<int64_t>(std::min<uint64_t>(*n, INT64_MAX));
    }
  }

  // NAME -> its .in_sum2 and .counts tensors.
  std::map<std::string, std::pair<const gguf::TensorInfo*, const gguf::TensorInfo*>> pairs;
  for (const gguf::TensorInfo& t : header->tensors) {
    std::string name = t.name;
    if (StripSuffix(&name, kSumsSuffix)) {
      pairs[name].first = &t;
    } else if (StripSuffix(&name, kCountsSuffix)) {
      pairs[name].second = &t;
    }
  }
  if (pairs.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 "no NAME.in_sum2 / NAME.counts tensors: not an importance matrix ({} tensors, none of them one)",
                 header->tensors.size());
  }
  for (const auto& [name, pair] : pairs) {
    const auto [sums, counts] = pair;
    if (sums == nullptr || counts == nullptr) {
      return Error(ErrorCode::kCorrupt, "'{}' has {} but no {} tensor", gguf::Printable(name),
                   sums != nullptr ? kSumsSuffix : kCountsSuffix, sums != nullptr ? kCountsSuffix : kSumsSuffix);
    }
    for (const gguf::TensorInfo* t : {sums, counts}) {
      if (t->type->type != quant::GgmlType::kF32) {
        return Error(ErrorCode::kCorrupt, "tensor '{}' is {}, not f32", gguf::Printable(t->name), t->type->name);
      }
    }
    const int64_t n_mat = counts->n_elements;
    if (n_mat < 1 || sums->n_elements < 1 || sums->n_elements % n_mat != 0) {
      return Error(ErrorCode::kCorrupt, "'{}': {} sums do not split into {} matrices", gguf::Printable(name),
                   sums->n_elements, n_mat);
    }
    const std::vector<float> sum_values = Floats(*gguf::TensorBytes(bytes, *header, *sums));
    const std::vector<float> count_values = Floats(*gguf::TensorBytes(bytes, *header, *counts));
    const int64_t per_matrix = sums->n_elements / n_mat;
    std::vector<float>& e = m.entries[name];
    e.resize(sum_values.size());
    for (int64_t j = 0; j < n_mat; ++j) {
      const float c = count_values[j];
      if (!std::isfinite(c) || c < 0.0f) {
        return Error(ErrorCode::kCorrupt, "'{}': count {} of matrix {} is not a count", gguf::Printable(name), c, j);
      }
      // llama.cpp rounds the stored count to an integer before dividing.
      const float count = static_cast<float>(std::llround(c));
      for (int64_t i = 0; i < per_matrix; ++i) {
        e[j * per_matrix + i] = count > 0.0f ? sum_values[j * per_matrix + i] / count : 1.0f;
      }
    }
  }
  return m;
}

Expected<ImportanceMatrix> ParseLegacy(std::span<const uint8_t> bytes) {
  gguf::ByteCursor in(bytes);
  ImportanceMatrix m;
  m.format = ImportanceMatrix::Format::kLegacy;
  int32_t n_entries = 0;
  if (Status s = in.Read(&n_entries, "the entry count"); !s.ok()) return s;
  if (n_entries < 1) {
    return Error(ErrorCode::kCorrupt,
                 "entry count {}: an importance matrix has at least one entry (neither GGUF nor llama.cpp's "
                 "legacy .dat?)",
                 n_entries);
  }
  // Each entry takes at least 16 bytes (three int32 and one float).
  if (static_cast<uint64_t>(n_entries) > in.remaining() / 16) {
    return Error(ErrorCode::kCorrupt,
                 "entry count {} needs at least {} bytes, the file has {} after it (neither GGUF nor llama.cpp's "
                 "legacy .dat?)",
                 n_entries, uint64_t{16} * static_cast<uint64_t>(n_entries), in.remaining());
  }
  for (int32_t i = 0; i < n_entries; ++i) {
    const std::string what = fmt::format("entry {}", i);
    int32_t name_len = 0;
    if (Status s = in.Read(&name_len, what, " name length"); !s.ok()) return s;
    if (name_len < 1) return Error(ErrorCode::kCorrupt, "{}: name length {}", what, name_len);
    if (Status s = in.Need(static_cast<uint64_t>(name_len), what, " name"); !s.ok()) return s;
    const auto name_bytes = in.Take(static_cast<uint64_t>(name_len));
    std::string name(reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size());
    int32_t ncall = 0;
    int32_t n_values = 0;
    if (Status s = in.Read(&ncall, what, " ncall"); !s.ok()) return s;
    if (Status s = in.Read(&n_values, what, " value count"); !s.ok()) return s;
    if (ncall < 0 || n_values < 1) {
      return Error(ErrorCode::kCorrupt, "entry '{}': ncall {}, {} values", gguf::Printable(name), ncall, n_values);
    }
    if (Status s = in.Need(uint64_t{4} * static_cast<uint64_t>(n_values), what, " values"); !s.ok()) return s;
    std::vector<float> values = Floats(in.Take(uint64_t{4} * static_cast<uint64_t>(n_values)));
    // Stored as mean * ncall; llama-quantize divides by ncall where it is > 0.
    if (ncall > 0) {
      for (float& v : values) v /= static_cast<float>(ncall);
    }
    if (!m.entries.emplace(name, std::move(values)).second) {
      return Error(ErrorCode::kCorrupt, "entry '{}' appears twice", gguf::Printable(name));
    }
  }
  // The optional trailer: chunk count, then the dataset's name.
  int32_t chunks = 0;
  if (in.remaining() >= 4 && in.Read(&chunks, "the chunk count").ok()) {
    m.chunk_count = chunks > 0 ? chunks : 0;
    int32_t len = 0;
    if (in.remaining() >= 4 && in.Read(&len, "the dataset name length").ok() && len > 0 &&
        static_cast<uint64_t>(len) <= in.remaining()) {
      const auto name = in.Take(static_cast<uint64_t>(len));
      m.datasets.emplace_back(reinterpret_cast<const char*>(name.data()), name.size());
    }
  }
  return m;
}

}  // namespace

std::string_view FormatName(ImportanceMatrix::Format format) {
  return format == ImportanceMatrix::Format::kGguf ? "gguf" : "legacy";
}

Expected<ImportanceMatrix> ParseImportanceMatrix(std::span<const uint8_t> bytes) {
  uint32_t magic = 0;
  if (bytes.size() >= 4) std::memcpy(&magic, bytes.data(), 4);
  Expected<ImportanceMatrix> m = magic == gguf::kMagic ? ParseGguf(bytes) : ParseLegacy(bytes);
  if (!m.ok()) return m;
  if (Status s = CheckValues(*m); !s.ok()) return s;
  return m;
}

Expected<ImportanceMatrix> ReadImportanceMatrix(const std::string& path) {
  Expected<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(file->bytes());
  if (!m.ok()) return m.status().WithContext(path);
  m->path = path;
  return m;
}

}  // namespace trit::convert
