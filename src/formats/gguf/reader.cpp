// GGUF header parser. Layout (docs/gguf.md in ggml; ggml/src/gguf.cpp):
//   "GGUF" | uint32 version | uint64 tensor_count | uint64 kv_count
//   kv_count x (string key | uint32 type | value)
//   tensor_count x (string name | uint32 n_dims | n_dims x int64 ne | uint32 ggml type | uint64 offset)
//   zero padding to general.alignment | data section
// Every count is checked against the bytes left before anything is reserved,
// so a hostile file cannot make the parser allocate much more than its size.
#include "formats/gguf/reader.h"

#include <bit>
#include <limits>
#include <unordered_map>

#include "base/checked_math.h"
#include "formats/gguf/byte_cursor.h"

namespace trit::gguf {

static_assert(std::endian::native == std::endian::little,
              "the GGUF reader copies little-endian scalars as they are");

std::string Printable(std::string_view text, size_t max_len) {
  std::string out;
  const size_t n = text.size() < max_len ? text.size() : max_len;
  out.reserve(n + 3);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (n < text.size()) out += "...";
  return out;
}

namespace {

// Smallest encodings, used to bound counts by the bytes left.
constexpr uint64_t kMinStringBytes = 8;        // uint64 length, no bytes
constexpr uint64_t kMinArrayBytes = 4 + 8;     // element type + count, no elements
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;    // empty key, type, one-byte value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, n_dims 0, type, offset

uint64_t MinElementBytes(ValueType type) {
  switch (type) {
    case ValueType::kString: return kMinStringBytes;
    case ValueType::kArray: return kMinArrayBytes;
    default: return ScalarSize(type);
  }
}

// A count read at byte `at` whose smallest encoding does not fit in the bytes left.
Status CountCannotFit(std::string_view field, uint64_t count, uint64_t at, std::string_view what,
                      uint64_t min_each, const ByteCursor& in) {
  return Error(ErrorCode::kCorrupt,
               "{} {} at byte {} cannot fit: {} {} of at least {} bytes each, only {} bytes left (file has {})",
               field, count, at, count, what, min_each, in.remaining(), in.size());
}

Status ReadValueType(ByteCursor& in, std::string_view what, ValueType* out) {
  const uint64_t at = in.pos();
  uint32_t raw = 0;
  if (Status s = in.Read(&raw, what); !s.ok()) return s;
  if (raw >= kValueTypeCount) {
    return Error(ErrorCode::kCorrupt, "{} {} at byte {} is not a GGUF type (0..{})", what, raw, at,
                 kValueTypeCount - 1);
  }
  *out = static_cast<ValueType>(raw);
  return Status::Ok();
}

Status ReadBool(ByteCursor& in, bool* out) {
  const uint64_t at = in.pos();
  uint8_t raw = 0;
  if (Status s = in.Read(&raw, "bool value"); !s.ok()) return s;
  if (raw > 1) return Error(ErrorCode::kCorrupt, "bool value {} at byte {} is not 0 or 1", raw, at);
  *out = raw == 1;
  return Status::Ok();
}

Status ReadArray(ByteCursor& in, uint32_t depth, Array* out);

template <typename T>
Status ReadScalar(ByteCursor& in, std::string_view what, Value* out) {
  T v{};
  if (Status s = in.Read(&v, what); !s.ok()) return s;
  *out = Value(v);
  return Status::Ok();
}

// One value of a non-array type, or an array; `depth` counts enclosing arrays.
Status ReadValue(ByteCursor& in, ValueType type, uint32_t depth, Value* out) {
  switch (type) {
    case ValueType::kUint8: return ReadScalar<uint8_t>(in, "uint8 value", out);
    case ValueType::kInt8: return ReadScalar<int8_t>(in, "int8 value", out);
    case ValueType::kUint16: return ReadScalar<uint16_t>(in, "uint16 value", out);
    case ValueType::kInt16: return ReadScalar<int16_t>(in, "int16 value", out);
    case ValueType::kUint32: return ReadScalar<uint32_t>(in, "uint32 value", out);
    case ValueType::kInt32: return ReadScalar<int32_t>(in, "int32 value", out);
    case ValueType::kFloat32: return ReadScalar<float>(in, "float32 value", out);
    case ValueType::kUint64: return ReadScalar<uint64_t>(in, "uint64 value", out);
    case ValueType::kInt64: return ReadScalar<int64_t>(in, "int64 value", out);
    case ValueType::kFloat64: return ReadScalar<double>(in, "float64 value", out);
    case ValueType::kBool: {
      bool v = false;
      if (Status s = ReadBool(in, &v); !s.ok()) return s;
      *out = Value(v);
      break;
    }
    case ValueType::kString: {
      std::string v;
      if (Status s = in.ReadString(&v, "string value"); !s.ok()) return s;
      *out = Value(std::move(v));
      break;
    }
    case ValueType::kArray: {
      Array v;
      if (Status s = ReadArray(in, depth, &v); !s.ok()) return s;
      *out = Value(std::move(v));
      break;
    }
  }
  return Status::Ok();
}

// An array body: uint32 element type, uint64 count, elements. `depth` is the
// number of arrays enclosing this one.
Status ReadArray(ByteCursor& in, uint32_t depth, Array* out) {
  if (depth >= kMaxArrayDepth) {
    return Error(ErrorCode::kUnsupported, "array at byte {} is nested deeper than {} levels", in.pos(),
                 kMaxArrayDepth);
  }
  if (Status s = ReadValueType(in, "array element type", &out->element_type); !s.ok()) return s;
  const uint64_t count_at = in.pos();
  uint64_t count = 0;
  if (Status s = in.Read(&count, "array count"); !s.ok()) return s;

  const uint64_t min_bytes = MinElementBytes(out->element_type);
  const auto need = CheckedMul(count, min_bytes);
  if (!need || *need > in.remaining()) {
    return CountCannotFit("array count", count, count_at, ValueTypeName(out->element_type) + " elements",
                          min_bytes, in);
  }

  switch (out->element_type) {
    case ValueType::kString:
      out->strings.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        if (Status s = in.ReadString(&out->strings[i], "string"); !s.ok()) {
          return s.WithContext(fmt::format("element {} of {}", i, count));
        }
      }
      break;
    case ValueType::kArray:
      out->arrays.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        if (Status s = ReadArray(in, depth + 1, &out->arrays[i]); !s.ok()) {
          return s.WithContext(fmt::format("element {} of {}", i, count));
        }
      }
      break;
    case ValueType::kBool: {
      const uint64_t at = in.pos();
      const auto view = in.Take(count);  // count <= remaining checked above
      for (uint64_t i = 0; i < count; ++i) {
        if (view[i] > 1) {
          return Error(ErrorCode::kCorrupt, "element {} of {}: bool value {} at byte {} is not 0 or 1", i,
                       count, view[i], at + i);
        }
      }
      out->packed.assign(view.begin(), view.end());
      break;
    }
    default: {
      const auto view = in.Take(*need);
      out->packed.assign(view.begin(), view.end());
      break;
    }
  }
  return Status::Ok();
}

std::string KeyContext(uint64_t index, const std::string& key) {
  return fmt::format("metadata key #{} ('{}')", index, Printable(key));
}

Status ReadMetadata(ByteCursor& in, uint64_t kv_count, Header* header) {
  const auto need = CheckedMul(kv_count, kMinKvBytes);
  if (!need || *need > in.remaining()) {
    return CountCannotFit("kv_count", kv_count, 16, "key-value pairs", kMinKvBytes, in).WithContext("header");
  }
  header->metadata.reserve(kv_count);
  std::unordered_map<std::string_view, uint64_t> seen;
  seen.reserve(kv_count);
  for (uint64_t i = 0; i < kv_count; ++i) {
    const uint64_t key_at = in.pos();
    MetadataEntry entry;
    if (Status s = in.ReadString(&entry.key, "key"); !s.ok()) {
      return s.WithContext(fmt::format("metadata key #{}", i));
    }
    ValueType type;
    if (Status s = ReadValueType(in, "value type", &type); !s.ok()) {
      return s.WithContext(KeyContext(i, entry.key));
    }
    if (Status s = ReadValue(in, type, 0, &entry.value); !s.ok()) {
      return s.WithContext(KeyContext(i, entry.key));
    }
    header->metadata.push_back(std::move(entry));
    // The key's characters live in the vector's element; it never reallocates (reserved above).
    const auto [it, inserted] = seen.emplace(header->metadata.back().key, i);
    if (!inserted) {
      return Error(ErrorCode::kCorrupt, "{} at byte {} duplicates metadata key #{}",
                   KeyContext(i, header->metadata.back().key), key_at, it->second);
    }
  }
  return Status::Ok();
}

Status ReadAlignment(Header* header) {
  for (const MetadataEntry& entry : header->metadata) {
    if (entry.key != "general.alignment") continue;
    const auto* v = entry.value.get_if<uint32_t>();
    if (v == nullptr) {
      return Error(ErrorCode::kCorrupt, "metadata 'general.alignment' is {}, expected uint32",
                   ValueTypeName(entry.value.type()));
    }
    if (*v == 0 || (*v & (*v - 1)) != 0) {
      return Error(ErrorCode::kCorrupt, "metadata 'general.alignment' is {}, expected a non-zero power of two",
                   *v);
    }
    if (*v > kMaxAlignment) {
      return Error(ErrorCode::kUnsupported,
                   "metadata 'general.alignment' is {}, more than the {} trit accepts (GGUF writers use 32)", *v,
                   kMaxAlignment);
    }
    header->alignment = *v;
  }
  return Status::Ok();
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return fmt::format("{{{}}}", fmt::join(shape, ", "));
}

// One tensor info; `header->alignment` is already known.
Status ReadTensorInfo(ByteCursor& in, uint64_t index, const Header& header, TensorInfo* t) {
  if (Status s = in.ReadString(&t->name, "name"); !s.ok()) {
    return s.WithContext(fmt::format("tensor #{}", index));
  }
  const std::string context = fmt::format("tensor #{} ('{}')", index, Printable(t->name));
  if (t->name.size() > kMaxTensorNameBytes) {
    return Error(ErrorCode::kUnsupported, "{}: name is {} bytes, longer than llama.cpp's limit of {}",
                 context, t->name.size(), kMaxTensorNameBytes);
  }

  const uint64_t dims_at = in.pos();
  uint32_t n_dims = 0;
  if (Status s = in.Read(&n_dims, "n_dims"); !s.ok()) return s.WithContext(context);
  if (n_dims > kMaxDims) {
    return Error(ErrorCode::kCorrupt, "{}: n_dims {} at byte {} is more than {}", context, n_dims, dims_at,
                 kMaxDims);
  }
  t->shape.resize(n_dims);
  uint64_t n_elements = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const uint64_t at = in.pos();
    if (Status s = in.Read(&t->shape[d], "ne"); !s.ok()) return s.WithContext(context);
    if (t->shape[d] < 0) {
      return Error(ErrorCode::kCorrupt, "{}: ne[{}] at byte {} is {}, negative", context, d, at, t->shape[d]);
    }
    const auto product = CheckedMul(n_elements, static_cast<uint64_t>(t->shape[d]));
    if (!product || *product > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(ErrorCode::kCorrupt, "{}: shape {} at byte {} has more than 2^63-1 elements", context,
                   ShapeString({t->shape.begin(), t->shape.begin() + d + 1}), dims_at + 4);
    }
    n_elements = *product;
  }
  t->n_elements = static_cast<int64_t>(n_elements);

  const uint64_t type_at = in.pos();
  uint32_t type_id = 0;
  if (Status s = in.Read(&type_id, "ggml type"); !s.ok()) return s.WithContext(context);
  t->type = quant::FindType(type_id);
  if (t->type == nullptr) {
    return Error(ErrorCode::kUnsupported, "{}: ggml type {} at byte {} is not a known GGML type", context,
                 type_id, type_at);
  }
  const int64_t row = n_dims == 0 ? 1 : t->shape[0];
  if (row % t->type->block_size != 0) {
    return Error(ErrorCode::kCorrupt, "{}: row length {} is not a multiple of {}'s block size {}", context, row,
                 t->type->name, t->type->block_size);
  }
  // n_bytes = ne[0] / block_size * type_size * (ne[1] * ne[2] * ne[3])
  const auto row_bytes = CheckedMul(static_cast<uint64_t>(row / t->type->block_size),
                                    static_cast<uint64_t>(t->type->type_size));
  const uint64_t n_rows = row == 0 ? 0 : n_elements / static_cast<uint64_t>(row);
  // (+ the type's per-tensor trailer: I2_S's scale, quant/types.h)
  const auto rows_bytes = row_bytes ? CheckedMul(*row_bytes, n_rows) : std::nullopt;
  const auto n_bytes = rows_bytes ? CheckedAdd(*rows_bytes, t->type->tensor_trailer) : std::nullopt;
  if (!n_bytes) {
    return Error(ErrorCode::kCorrupt, "{}: shape {} of type {} is larger than 2^64 bytes", context,
                 ShapeString(t->shape), t->type->name);
  }
  t->n_bytes = *n_bytes;

  const uint64_t offset_at = in.pos();
  if (Status s = in.Read(&t->offset, "data offset"); !s.ok()) return s.WithContext(context);
  if (t->offset % header.alignment != 0) {
    return Error(ErrorCode::kCorrupt, "{}: data offset {} at byte {} is not a multiple of the alignment {}",
                 context, t->offset, offset_at, header.alignment);
  }
  return Status::Ok();
}

Status ReadTensorInfos(ByteCursor& in, uint64_t tensor_count, Header* header) {
  const auto need = CheckedMul(tensor_count, kMinTensorInfoBytes);
  if (!need || *need > in.remaining()) {
    return CountCannotFit("tensor_count", tensor_count, 8, "tensor infos", kMinTensorInfoBytes, in)
        .WithContext("header");
  }
  header->tensors.resize(tensor_count);
  std::unordered_map<std::string_view, uint64_t> seen;
  seen.reserve(tensor_count);
  for (uint64_t i = 0; i < tensor_count; ++i) {
    const uint64_t at = in.pos();
    TensorInfo& t = header->tensors[i];
    if (Status s = ReadTensorInfo(in, i, *header, &t); !s.ok()) return s;
    const auto [it, inserted] = seen.emplace(t.name, i);
    if (!inserted) {
      return Error(ErrorCode::kCorrupt, "tensor #{} ('{}') at byte {} has the same name as tensor #{}", i,
                   Printable(t.name), at, it->second);
    }
  }
  return Status::Ok();
}

Status ReadPreamble(ByteCursor& in, Header* header, uint64_t* tensor_count, uint64_t* kv_count) {
  uint32_t magic = 0;
  if (Status s = in.Read(&magic, "magic"); !s.ok()) return s;
  if (magic != kMagic) {
    char text[4];
    std::memcpy(text, &magic, 4);
    return Error(ErrorCode::kCorrupt, "magic '{}' at byte 0 is not 'GGUF': not a GGUF file",
                 Printable({text, 4}));
  }
  if (Status s = in.Read(&header->version, "version"); !s.ok()) return s;
  const uint32_t v = header->version;
  if (v != 0 && (v & 0xffffu) == 0) {
    return Error(ErrorCode::kUnsupported,
                 "version field 0x{:08x} at byte 4 is byte-swapped: this is a big-endian GGUF file (version {}), "
                 "which trit does not read",
                 v, __builtin_bswap32(v));
  }
  if (v == 1) {
    return Error(ErrorCode::kUnsupported,
                 "GGUF version 1 (32-bit counts) is no longer supported; convert the model again with a current "
                 "llama.cpp");
  }
  if (v != 2 && v != 3) {
    return Error(ErrorCode::kUnsupported, "GGUF version {} is not supported (2 and 3 are)", v);
  }
  if (Status s = in.Read(tensor_count, "tensor_count"); !s.ok()) return s;
  return in.Read(kv_count, "kv_count");
}

}  // namespace

Expected<Header> ParseHeader(std::span<const uint8_t> bytes) {
  ByteCursor in(bytes);
  Header header;
  header.file_size = bytes.size();
  uint64_t tensor_count = 0;
  uint64_t kv_count = 0;
  if (Status s = ReadPreamble(in, &header, &tensor_count, &kv_count); !s.ok()) return s.WithContext("header");
  if (Status s = ReadMetadata(in, kv_count, &header); !s.ok()) return s;
  if (Status s = ReadAlignment(&header); !s.ok()) return s;
  if (Status s = ReadTensorInfos(in, tensor_count, &header); !s.ok()) return s;

  // The data section starts at the next multiple of the alignment. A file with
  // no tensor data may end before that (llama.cpp's vocab-only files do).
  const auto data_offset = CheckedAlignUp(in.pos(), header.alignment);
  if (!data_offset) {
    return Error(ErrorCode::kCorrupt, "data section offset overflows (end of tensor infos at byte {})", in.pos());
  }
  header.data_offset = *data_offset;
  for (const TensorInfo& t : header.tensors) {
    if (auto range = TensorBytes(bytes, header, t); !range.ok()) return range.status();
  }
  return header;
}

Expected<std::span<const uint8_t>> TensorBytes(std::span<const uint8_t> file, const Header& header,
                                               const TensorInfo& tensor) {
  const auto start = CheckedAdd(header.data_offset, tensor.offset);
  const auto end = start ? CheckedAdd(*start, tensor.n_bytes) : std::nullopt;
  if (!end || *end > file.size()) {
    return Error(ErrorCode::kCorrupt, "tensor '{}': data [{}, +{}) runs past end of file ({} bytes)",
                 Printable(tensor.name), start ? fmt::format("{}", *start) : std::string("2^64+"),
                 tensor.n_bytes, file.size());
  }
  return file.subspan(*start, tensor.n_bytes);
}

}  // namespace trit::gguf
