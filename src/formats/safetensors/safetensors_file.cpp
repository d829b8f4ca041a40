// safetensors reader. The JSON header is parsed by strict_json.h (nesting
// bounded first, a key given twice caught), then read field by field.
#include "formats/safetensors/safetensors_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "base/check.h"
#include "base/checked_math.h"
#include "formats/safetensors/strict_json.h"

namespace trit::safetensors {

static_assert(std::endian::native == std::endian::little,
              "the safetensors reader reads the header length as a native u64");

namespace {

using Json = nlohmann::json;

// Deeper than any valid header (object > tensor entry > shape array); the
// bound only keeps the recursive parser's stack small.
constexpr int kMaxJsonDepth = 16;
constexpr size_t kMaxShownBytes = 120;  // of a malformed data_offsets array
constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::string_view kEntryKeys = "dtype, shape, data_offsets";

std::string ShapeText(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

Status Corrupt(std::string message) { return Status(ErrorCode::kCorrupt, std::move(message)); }

Status TensorError(const std::string& name, std::string_view what) {
  return Corrupt(fmt::format("tensor {}: {}", Quoted(name), what));
}

// A JSON integer >= 0 that fits in a u64 (nlohmann stores those as
// unsigned; negatives as signed, fractions and larger numbers as floats).
std::optional<uint64_t> NonNegativeInteger(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

Status ReadShape(const Json& v, TensorInfo* t) {
  if (!v.is_array()) {
    return TensorError(t->name, fmt::format("shape: expected an array of non-negative integers, found {}", Found(v)));
  }
  t->shape.reserve(v.size());
  std::optional<uint64_t> n = 1;  // nullopt once the product overflows
  bool has_zero = false;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::optional<uint64_t> dim = NonNegativeInteger(v[i]);
    if (!dim) {
      return TensorError(t->name, fmt::format("shape[{}]: expected a non-negative integer, found {}", i, Found(v[i])));
    }
    if (*dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return TensorError(t->name, fmt::format("shape[{}]: {} is larger than 2^63 - 1", i, *dim));
    }
    t->shape.push_back(static_cast<int64_t>(*dim));
    has_zero = has_zero || *dim == 0;
    if (n) n = CheckedMul(*n, *dim);
  }
  // A zero dimension makes 0 elements, whatever the others multiply to.
  if (!n && !has_zero) {
    return TensorError(t->name, fmt::format("shape {} has more elements than a u64 counts", ShapeText(t->shape)));
  }
  t->n_elements = has_zero ? 0 : *n;
  return Status::Ok();
}

Status ReadOffsets(const Json& v, uint64_t data_bytes, TensorInfo* t) {
  std::optional<uint64_t> begin, end;
  if (v.is_array() && v.size() == 2) {
    begin = NonNegativeInteger(v[0]);
    end = NonNegativeInteger(v[1]);
  }
  if (!begin || !end) {
    return TensorError(t->name, fmt::format("data_offsets: expected [begin, end], two non-negative integers, found {}",
                                            v.is_array() ? v.dump().substr(0, kMaxShownBytes) : Found(v)));
  }
  if (*begin > *end) {
    return TensorError(t->name, fmt::format("data_offsets [{}, {}]: begin is after end", *begin, *end));
  }
  if (*end > data_bytes) {
    return TensorError(t->name, fmt::format("data_offsets [{}, {}]: end runs past the buffer ({} bytes after the header)",
                                            *begin, *end, data_bytes));
  }
  t->begin = *begin;
  t->end = *end;
  return Status::Ok();
}

// One tensor's entry: {"dtype", "shape", "data_offsets"}, nothing else.
Status ReadTensor(const std::string& name, const Json& entry, uint64_t data_bytes, TensorInfo* t) {
  t->name = name;
  if (!entry.is_object()) {
    return TensorError(name, fmt::format("expected an object {{{}}}, found {}", kEntryKeys, Found(entry)));
  }
  for (const auto& [key, value] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return TensorError(name, fmt::format("unknown key {} (known: {})", Quoted(key), kEntryKeys));
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) return TensorError(name, fmt::format("missing '{}'", key));
  }
  const Json& dtype = entry["dtype"];
  if (!dtype.is_string()) return TensorError(name, fmt::format("dtype: expected a string, found {}", Found(dtype)));
  const std::optional<Dtype> parsed = ParseDtype(dtype.get_ref<const std::string&>());
  if (!parsed) {
    std::vector<std::string_view> known;
    for (Dtype d : AllDtypes()) known.push_back(DtypeName(d));
    return Error(ErrorCode::kUnsupported, "tensor {}: dtype {} is not a safetensors dtype (known: {})", Quoted(name),
                 Quoted(dtype.get_ref<const std::string&>()), fmt::join(known, ", "));
  }
  t->dtype = *parsed;
  if (Status s = ReadShape(entry["shape"], t); !s.ok()) return s;
  if (Status s = ReadOffsets(entry["data_offsets"], data_bytes, t); !s.ok()) return s;

  if (!CheckedMul(t->n_elements, DtypeBits(t->dtype))) {
    return TensorError(name, fmt::format("shape {} of {} takes more bits than a u64 counts", ShapeText(t->shape),
                                         DtypeName(t->dtype)));
  }
  const std::optional<uint64_t> want = DtypeBytes(t->dtype, t->n_elements);
  if (!want) {
    return TensorError(name, fmt::format("shape {} of {} is {} elements of {} bits, not a whole number of bytes",
                                         ShapeText(t->shape), DtypeName(t->dtype), t->n_elements, DtypeBits(t->dtype)));
  }
  if (t->n_bytes() != *want) {
    return TensorError(name, fmt::format("data_offsets [{}, {}] hold {} bytes, but shape {} of {} takes {}", t->begin,
                                         t->end, t->n_bytes(), ShapeText(t->shape), DtypeName(t->dtype), *want));
  }
  return Status::Ok();
}

Status ReadMetadata(const Json& v, std::map<std::string, std::string>* out) {
  if (!v.is_object()) {
    return Corrupt(fmt::format("{}: expected an object of strings, found {}", kMetadataKey, Found(v)));
  }
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string()) {
      return Corrupt(fmt::format("{} {}: expected a string, found {}", kMetadataKey, Quoted(key), Found(value)));
    }
    out->emplace(key, value.get<std::string>());
  }
  return Status::Ok();
}

// The tensors, sorted by range, must tile [0, data_bytes): each begins where
// the one before ends (empty tensors may share an offset).
Status CheckCoverage(const std::vector<TensorInfo>& tensors, uint64_t data_bytes) {
  if (tensors.empty()) {
    if (data_bytes == 0) return Status::Ok();
    return Corrupt(fmt::format("the buffer holds {} bytes but the header lists no tensor", data_bytes));
  }
  if (tensors.front().begin != 0) {
    return Corrupt(fmt::format("bytes [0, {}) of the buffer belong to no tensor: the first, {}, starts at {}",
                               tensors.front().begin, Quoted(tensors.front().name), tensors.front().begin));
  }
  for (size_t i = 1; i < tensors.size(); ++i) {
    const TensorInfo& a = tensors[i - 1];
    const TensorInfo& b = tensors[i];
    if (b.begin < a.end) {
      return Corrupt(fmt::format("tensors {} [{}, {}) and {} [{}, {}) overlap", Quoted(a.name), a.begin, a.end,
                                 Quoted(b.name), b.begin, b.end));
    }
    if (b.begin > a.end) {
      return Corrupt(fmt::format("bytes [{}, {}) of the buffer belong to no tensor: a gap between {} (ends at {}) and {} "
                                 "(starts at {})",
                                 a.end, b.begin, Quoted(a.name), a.end, Quoted(b.name), b.begin));
    }
  }
  const TensorInfo& last = tensors.back();
  if (last.end != data_bytes) {
    return Corrupt(fmt::format("bytes [{}, {}) of the buffer belong to no tensor: the last, {}, ends at {}", last.end,
                               data_bytes, Quoted(last.name), last.end));
  }
  return Status::Ok();
}

}  // namespace

Expected<Header> ParseHeader(std::span<const uint8_t> file_bytes) {
  Header header;
  if (file_bytes.size() < 8) {
    return Corrupt(fmt::format("the file is {} bytes, too short for the 8-byte header length", file_bytes.size()));
  }
  std::memcpy(&header.header_bytes, file_bytes.data(), 8);
  if (header.header_bytes > kMaxHeaderBytes) {
    return Corrupt(fmt::format("header length {} is larger than the limit of {} bytes", header.header_bytes,
                               kMaxHeaderBytes));
  }
  header.data_offset = 8 + header.header_bytes;  // <= 8 + kMaxHeaderBytes: no overflow
  if (header.data_offset > file_bytes.size()) {
    return Corrupt(fmt::format("header length {} runs past the end of the file ({} bytes)", header.header_bytes,
                               file_bytes.size()));
  }
  header.data_bytes = file_bytes.size() - header.data_offset;

  const std::string_view text(reinterpret_cast<const char*>(file_bytes.data()) + 8, header.header_bytes);
  Expected<StrictJson> parsed = ParseStrictJson(text, kMaxJsonDepth, "the header");
  if (!parsed.ok()) return parsed.status();
  if (const auto& dup = parsed->duplicate_key) {
    if (dup->size() == 1) {
      return Corrupt(fmt::format("{} {} appears twice in the header", (*dup)[0] == kMetadataKey ? "key" : "tensor",
                                 Quoted((*dup)[0])));
    }
    const std::string where = (*dup)[0] == kMetadataKey ? std::string(kMetadataKey) : "tensor " + Quoted((*dup)[0]);
    return Corrupt(fmt::format("{}: key {} appears twice", where, Quoted(dup->back())));
  }
  const Json& doc = parsed->doc;
  if (!doc.is_object()) return Corrupt(fmt::format("the header is {}, expected a JSON object", Found(doc)));

  header.tensors.reserve(doc.size());
  for (const auto& [key, value] : doc.items()) {
    if (key == kMetadataKey) {
      if (Status s = ReadMetadata(value, &header.metadata); !s.ok()) return s;
      continue;
    }
    TensorInfo t;
    if (Status s = ReadTensor(key, value, header.data_bytes, &t); !s.ok()) return s;
    header.tensors.push_back(std::move(t));
  }
  std::sort(header.tensors.begin(), header.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  if (Status s = CheckCoverage(header.tensors, header.data_bytes); !s.ok()) return s;
  return header;
}

Expected<File> File::Open(const std::string& path) {
  Expected<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  Expected<Header> header = ParseHeader(mapped->bytes());
  if (!header.ok()) return header.status().WithContext(path);
  File file;
  file.mapped_ = std::move(*mapped);
  file.header_ = std::move(*header);
  for (size_t i = 0; i < file.header_.tensors.size(); ++i) file.index_.emplace(file.header_.tensors[i].name, i);
  return file;
}

const TensorInfo* File::Find(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

std::span<const uint8_t> File::Data(const TensorInfo& tensor) const {
  const std::vector<TensorInfo>& all = header_.tensors;
  TRIT_CHECK(!all.empty() && !std::less<>()(&tensor, all.data()) && std::less<>()(&tensor, all.data() + all.size()));
  TRIT_CHECK(header_.data_offset + tensor.end <= mapped_.size());
  return mapped_.bytes().subspan(header_.data_offset + tensor.begin, tensor.n_bytes());
}

}  // namespace trit::safetensors
