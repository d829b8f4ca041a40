// Writes small, valid GGUF files as fuzzing seeds: a shrunk copy of each
// input (every array cut to its first elements, every tensor cut to one
// block of its type) and one synthetic file with every value type and several
// tensor types. Small seeds keep libFuzzer at thousands of executions a second,
// where multi-megabyte vocab files allow tens.
//
//   make_gguf_seeds OUT_DIR [INPUT.gguf ...]
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"

namespace {

using namespace trit;
using namespace trit::gguf;

constexpr size_t kMaxElements = 24;

Array Shrink(const Array& a) {
  Array out;
  out.element_type = a.element_type;
  if (a.element_type == ValueType::kString) {
    out.strings.assign(a.strings.begin(), a.strings.begin() + std::min(a.strings.size(), kMaxElements));
  } else if (a.element_type == ValueType::kArray) {
    for (size_t i = 0; i < a.arrays.size() && i < kMaxElements; ++i) out.arrays.push_back(Shrink(a.arrays[i]));
  } else {
    const size_t n = std::min(a.size(), kMaxElements) * ScalarSize(a.element_type);
    out.packed.assign(a.packed.begin(), a.packed.begin() + n);
  }
  return out;
}

Status ShrinkFile(const std::string& in, const std::string& out) {
  auto file = File::Open(in);
  if (!file.ok()) return file.status();
  Writer writer;
  for (const MetadataEntry& entry : file->metadata()) {
    const Array* a = entry.value.get_if<Array>();
    if (Status s = writer.SetMetadata(entry.key, a ? Value(Shrink(*a)) : entry.value); !s.ok()) return s;
  }
  for (const TensorInfo& t : file->tensors()) {
    const auto data = file->TensorData(t).first(std::min<uint64_t>(t.n_bytes, t.type->type_size));
    const std::vector<int64_t> shape = data.size() == static_cast<size_t>(t.type->type_size)
                                           ? std::vector<int64_t>{t.type->block_size}
                                           : std::vector<int64_t>{0};
    if (Status s = writer.AddTensorData(t.name, t.type->type, shape, data); !s.ok()) return s;
  }
  return writer.WriteFile(out);
}

Status Synthetic(const std::string& out) {
  Writer writer(64);
  Array nested;
  nested.element_type = ValueType::kArray;
  nested.arrays = {Array::Of<int32_t>(ValueType::kInt32, {1, -2}), Array::OfStrings({"a", ""})};
  const std::vector<std::pair<std::string, Value>> values = {
      {"general.architecture", Value("llama")}, {"u8", Value(uint8_t{1})},   {"i8", Value(int8_t{-1})},
      {"u16", Value(uint16_t{2})},             {"i16", Value(int16_t{-2})}, {"u32", Value(uint32_t{3})},
      {"i32", Value(int32_t{-3})},             {"f32", Value(0.5f)},        {"bool", Value(true)},
      {"u64", Value(uint64_t{4})},             {"i64", Value(int64_t{-4})}, {"f64", Value(0.25)},
      {"strings", Value(Array::OfStrings({"<unk>", "<s>"}))},
      {"bools", Value(Array::Of<bool>(ValueType::kBool, {true, false}))},
      {"floats", Value(Array::Of<float>(ValueType::kFloat32, {1.0f, -1.0f}))},
      {"nested", Value(nested)},
  };
  for (const auto& [key, value] : values) {
    if (Status s = writer.SetMetadata(key, value); !s.ok()) return s;
  }
  for (quant::GgmlType type : {quant::GgmlType::kF32, quant::GgmlType::kF16, quant::GgmlType::kQ8_0,
                               quant::GgmlType::kQ4_K, quant::GgmlType::kTQ1_0}) {
    const quant::TypeInfo& info = quant::GetType(type);
    const std::vector<uint8_t> data(static_cast<size_t>(info.type_size) * 2, 0x11);
    const std::string name = "t." + std::string(info.name);
    if (Status s = writer.AddTensorData(name, type, {info.block_size, 2}, data); !s.ok()) return s;
  }
  return writer.WriteFile(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [INPUT.gguf ...]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  int status = 0;
  if (Status s = Synthetic((dir / "synthetic.gguf").string()); !s.ok()) {
    std::fprintf(stderr, "synthetic seed: %s\n", s.message().c_str());
    status = 1;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string out = (dir / ("small-" + std::filesystem::path(argv[i]).filename().string())).string();
    if (Status s = ShrinkFile(argv[i], out); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", argv[i], s.message().c_str());
      status = 1;
    }
  }
  return status;
}
