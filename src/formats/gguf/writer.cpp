// GGUF v3 writer, laid out as llama.cpp's gguf_write_to_file does:
//   header, metadata, tensor infos (offset = running sum of padded sizes),
//   zeros to the alignment, then each tensor's bytes followed by zeros to the
//   alignment (the last tensor too). A file without tensors ends after its
//   tensor infos.
#include "formats/gguf/writer.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "base/atomic_file.h"
#include "base/check.h"
#include "base/checked_math.h"
#include "formats/gguf/reader.h"

namespace trit::gguf {

namespace {

constexpr uint32_t kWriteVersion = 3;

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Appends little-endian encodings to a byte vector.
class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>* out) : out_(out) {}

  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Append(&v, sizeof(T));
  }
  void PutBytes(std::span<const uint8_t> bytes) { Append(bytes.data(), bytes.size()); }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    Append(s.data(), s.size());
  }
  void PutArray(const Array& a) {
    Put<uint32_t>(static_cast<uint32_t>(a.element_type));
    Put<uint64_t>(a.size());
    switch (a.element_type) {
      case ValueType::kString:
        for (const std::string& s : a.strings) PutString(s);
        break;
      case ValueType::kArray:
        for (const Array& inner : a.arrays) PutArray(inner);
        break;
      default:
        PutBytes(a.packed);
        break;
    }
  }
  void PutValue(const Value& value) {
    std::visit([this](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string>) {
        PutString(v);
      } else if constexpr (std::is_same_v<T, Array>) {
        PutArray(v);
      } else if constexpr (std::is_same_v<T, bool>) {
        Put<uint8_t>(v ? 1 : 0);
      } else {
        Put<T>(v);
      }
    }, value.storage());
  }

 private:
  // resize + memcpy rather than insert(): GCC 12 warns falsely (-Wstringop-overflow) on small inserts.
  void Append(const void* p, size_t n) {
    if (n == 0) return;
    const size_t at = out_->size();
    out_->resize(at + n);
    std::memcpy(out_->data() + at, p, n);
  }

  std::vector<uint8_t>* out_;
};

// An array the encoder can write and the reader will read back: elements in
// the vector its type names, whole scalars, bools 0 or 1, bounded nesting.
Status CheckArray(const Array& a, uint32_t depth) {
  if (depth >= kMaxArrayDepth) return Error(ErrorCode::kInvalidArgument, "arrays nested deeper than {}", kMaxArrayDepth);
  if (static_cast<uint32_t>(a.element_type) >= kValueTypeCount) {
    return Error(ErrorCode::kInvalidArgument, "array element type {} is not a GGUF type",
                 static_cast<uint32_t>(a.element_type));
  }
  const bool is_string = a.element_type == ValueType::kString;
  const bool is_array = a.element_type == ValueType::kArray;
  if ((!is_string && !a.strings.empty()) || (!is_array && !a.arrays.empty()) ||
      ((is_string || is_array) && !a.packed.empty())) {
    return Error(ErrorCode::kInvalidArgument, "array of {} holds elements of another type",
                 ValueTypeName(a.element_type));
  }
  if (is_array) {
    for (size_t i = 0; i < a.arrays.size(); ++i) {
      if (Status s = CheckArray(a.arrays[i], depth + 1); !s.ok()) return s.WithContext(fmt::format("element {}", i));
    }
    return Status::Ok();
  }
  if (is_string) return Status::Ok();
  const uint64_t scalar = ScalarSize(a.element_type);
  if (a.packed.size() % scalar != 0) {
    return Error(ErrorCode::kInvalidArgument, "array of {} has {} packed bytes, not a multiple of {}",
                 ValueTypeName(a.element_type), a.packed.size(), scalar);
  }
  if (a.element_type == ValueType::kBool) {
    for (size_t i = 0; i < a.packed.size(); ++i) {
      if (a.packed[i] > 1) {
        return Error(ErrorCode::kInvalidArgument, "bool element {} is {}, not 0 or 1", i, a.packed[i]);
      }
    }
  }
  return Status::Ok();
}

// Writes to a growing byte vector (WriteBuffer).
class BufferSink {
 public:
  explicit BufferSink(std::vector<uint8_t>* out) : out_(out) {}
  Status Write(std::span<const uint8_t> bytes) {
    out_->insert(out_->end(), bytes.begin(), bytes.end());
    return Status::Ok();
  }
  Status WriteZeros(uint64_t count) {
    out_->resize(out_->size() + count, 0);
    return Status::Ok();
  }
  uint64_t bytes_written() const { return out_->size(); }

 private:
  std::vector<uint8_t>* out_;
};

}  // namespace

Writer::Writer(uint64_t alignment) : alignment_(alignment) {
  // A bad alignment here is the caller's bug, not untrusted input.
  TRIT_CHECK(IsPowerOfTwo(alignment) && alignment <= kMaxAlignment);
  if (alignment != kDefaultAlignment) {
    metadata_.emplace_back("general.alignment", Value(static_cast<uint32_t>(alignment)));
  }
}

Status Writer::SetMetadata(const std::string& key, Value value) {
  if (key == "general.alignment") {
    const auto* v = value.get_if<uint32_t>();
    if (v == nullptr) {
      return Error(ErrorCode::kInvalidArgument, "metadata 'general.alignment' is {}, expected uint32",
                   ValueTypeName(value.type()));
    }
    if (!IsPowerOfTwo(*v)) {
      return Error(ErrorCode::kInvalidArgument,
                   "metadata 'general.alignment' is {}, expected a non-zero power of two", *v);
    }
    if (*v > kMaxAlignment) {
      return Error(ErrorCode::kInvalidArgument, "metadata 'general.alignment' is {}, more than the {} trit writes",
                   *v, kMaxAlignment);
    }
    alignment_ = *v;
  }
  if (const auto* a = value.get_if<Array>()) {
    if (Status s = CheckArray(*a, 0); !s.ok()) return s.WithContext(fmt::format("metadata '{}'", key));
  }
  for (auto& [existing_key, existing_value] : metadata_) {
    if (existing_key == key) {
      existing_value = std::move(value);
      return Status::Ok();
    }
  }
  metadata_.emplace_back(key, std::move(value));
  return Status::Ok();
}

Status Writer::AddTensor(const std::string& name, quant::GgmlType type, std::vector<int64_t> shape, FillFn fill) {
  if (name.size() > kMaxTensorNameBytes) {
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': name is {} bytes, llama.cpp allows at most {}", name,
                 name.size(), kMaxTensorNameBytes);
  }
  for (const PendingTensor& t : tensors_) {
    if (t.name == name) return Error(ErrorCode::kInvalidArgument, "tensor '{}' is added twice", name);
  }
  const quant::TypeInfo* info = quant::FindType(static_cast<uint32_t>(type));
  if (info == nullptr) {
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': ggml type {} is not a known type", name,
                 static_cast<uint32_t>(type));
  }
  if (shape.empty() || shape.size() > kMaxDims) {
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': {} dimensions, expected 1 to {}", name, shape.size(),
                 kMaxDims);
  }
  uint64_t n_elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Error(ErrorCode::kInvalidArgument, "tensor '{}': ne[{}] is {}, negative", name, d, shape[d]);
    }
    const auto product = CheckedMul(n_elements, static_cast<uint64_t>(shape[d]));
    if (!product || *product > static_cast<uint64_t>(INT64_MAX)) {
      return Error(ErrorCode::kInvalidArgument, "tensor '{}': more than 2^63-1 elements", name);
    }
    n_elements = *product;
  }
  if (shape[0] % info->block_size != 0) {
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': row length {} is not a multiple of {}'s block size {}",
                 name, shape[0], info->name, info->block_size);
  }
  const auto row_bytes = CheckedMul(static_cast<uint64_t>(shape[0] / info->block_size),
                                    static_cast<uint64_t>(info->type_size));
  const uint64_t n_rows = shape[0] == 0 ? 0 : n_elements / static_cast<uint64_t>(shape[0]);
  const auto rows_bytes = row_bytes ? CheckedMul(*row_bytes, n_rows) : std::nullopt;
  const auto n_bytes = rows_bytes ? CheckedAdd(*rows_bytes, info->tensor_trailer) : std::nullopt;
  if (!n_bytes) {
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': size overflows", name);
  }
  tensors_.push_back({name, type, std::move(shape), *n_bytes, std::move(fill)});
  return Status::Ok();
}

Status Writer::AddTensorData(const std::string& name, quant::GgmlType type, std::vector<int64_t> shape,
                             std::span<const uint8_t> data) {
  auto copy = std::make_shared<const std::vector<uint8_t>>(data.begin(), data.end());
  FillFn fill = [copy](std::span<uint8_t> out) {
    std::copy(copy->begin(), copy->end(), out.begin());
    return Status::Ok();
  };
  if (Status s = AddTensor(name, type, std::move(shape), std::move(fill)); !s.ok()) return s;
  if (tensors_.back().n_bytes != data.size()) {
    const uint64_t expected = tensors_.back().n_bytes;
    tensors_.pop_back();
    return Error(ErrorCode::kInvalidArgument, "tensor '{}': {} bytes of data given, its shape and type need {}",
                 name, data.size(), expected);
  }
  return Status::Ok();
}

template <typename Sink>
Status Writer::WriteTo(Sink& sink) const {
  std::vector<uint8_t> head;
  Encoder enc(&head);
  enc.Put<uint32_t>(kMagic);
  enc.Put<uint32_t>(kWriteVersion);
  enc.Put<uint64_t>(tensors_.size());
  enc.Put<uint64_t>(metadata_.size());
  for (const auto& [key, value] : metadata_) {
    enc.PutString(key);
    enc.Put<uint32_t>(static_cast<uint32_t>(value.type()));
    enc.PutValue(value);
  }
  uint64_t offset = 0;
  for (const PendingTensor& t : tensors_) {
    enc.PutString(t.name);
    enc.Put<uint32_t>(static_cast<uint32_t>(t.shape.size()));
    for (int64_t ne : t.shape) enc.Put<int64_t>(ne);
    enc.Put<uint32_t>(static_cast<uint32_t>(t.type));
    enc.Put<uint64_t>(offset);
    const auto padded = CheckedAlignUp(t.n_bytes, alignment_);
    const auto next = padded ? CheckedAdd(offset, *padded) : std::nullopt;
    if (!next) return Error(ErrorCode::kInvalidArgument, "tensor '{}': data section size overflows", t.name);
    offset = *next;
  }
  if (Status s = sink.Write(head); !s.ok()) return s;
  // A file without tensors has no data section and ends after its header, as
  // llama.cpp's vocab-only files do; so its size never depends on the alignment.
  const uint64_t head_size = head.size();
  if (!tensors_.empty()) {
    if (Status s = sink.WriteZeros(*CheckedAlignUp(head_size, alignment_) - head_size); !s.ok()) return s;
  }
  head = {};

  std::vector<uint8_t> data;
  for (const PendingTensor& t : tensors_) {
    data.assign(t.n_bytes, 0);
    if (Status s = t.fill(std::span<uint8_t>(data)); !s.ok()) return s.WithContext(fmt::format("tensor '{}'", t.name));
    if (Status s = sink.Write(data); !s.ok()) return s;
    if (Status s = sink.WriteZeros(*CheckedAlignUp(t.n_bytes, alignment_) - t.n_bytes); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Writer::WriteFile(const std::string& path) const {
  auto out = AtomicFileWriter::Create(path);
  if (!out.ok()) return out.status();
  if (Status s = WriteTo(*out); !s.ok()) return s.WithContext(path);  // the temp file is removed
  return out->Commit();
}

Expected<std::vector<uint8_t>> Writer::WriteBuffer() const {
  std::vector<uint8_t> bytes;
  BufferSink sink(&bytes);
  if (Status s = WriteTo(sink); !s.ok()) return s;
  return bytes;
}

}  // namespace trit::gguf
