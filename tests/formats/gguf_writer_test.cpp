// Writer: every value type and tensor layout round-trips through the reader;
// re-writing the bundled model (written by llama.cpp) reproduces it byte for byte.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "gguf_test_util.h"
#include "test_paths.h"

namespace trit::gguf {
namespace {

using ::testing::HasSubstr;
using quant::GgmlType;
using trit::testing::BundledModelPath;
using trit::testing::ReadFileBytes;
using trit::testing::ScratchDir;

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

// One value of each of the 13 types, plus the array shapes that matter.
std::vector<std::pair<std::string, Value>> AllValueKinds() {
  Array nested;
  nested.element_type = ValueType::kArray;
  nested.arrays = {Array::Of<int32_t>(ValueType::kInt32, {1, -2, 3}), Array::OfStrings({"x", ""}),
                   Array::Of<uint8_t>(ValueType::kUint8, {})};
  Array deeper;
  deeper.element_type = ValueType::kArray;
  deeper.arrays = {nested, Array{}};
  deeper.arrays[1].element_type = ValueType::kArray;  // an empty array of arrays
  return {
      {"t.u8", Value(uint8_t{250})},
      {"t.i8", Value(int8_t{-100})},
      {"t.u16", Value(uint16_t{65000})},
      {"t.i16", Value(int16_t{-32000})},
      {"t.u32", Value(uint32_t{4000000000u})},
      {"t.i32", Value(int32_t{-2000000000})},
      {"t.f32", Value(1.5f)},
      {"t.bool", Value(true)},
      {"t.bool_false", Value(false)},
      {"t.string", Value(std::string("héllo\0world", 12))},
      {"t.empty_string", Value(std::string())},
      {"t.u64", Value(uint64_t{0xfedcba9876543210})},
      {"t.i64", Value(int64_t{-0x123456789abcdef})},
      {"t.f64", Value(-2.25e300)},
      {"a.u8", Value(Array::Of<uint8_t>(ValueType::kUint8, {0, 1, 255}))},
      {"a.i16", Value(Array::Of<int16_t>(ValueType::kInt16, {-1, 2}))},
      {"a.f32", Value(Array::Of<float>(ValueType::kFloat32, {0.5f, -1e-30f}))},
      {"a.bool", Value(Array::Of<bool>(ValueType::kBool, {true, false, true}))},
      {"a.u64", Value(Array::Of<uint64_t>(ValueType::kUint64, {1, 0xffffffffffffffff}))},
      {"a.f64", Value(Array::Of<double>(ValueType::kFloat64, {3.0}))},
      {"a.empty", Value(Array::Of<uint32_t>(ValueType::kUint32, {}))},
      {"a.empty_strings", Value(Array::OfStrings({}))},
      {"a.strings", Value(Array::OfStrings({"<unk>", "", "▁the", std::string(300, 'z')}))},
      {"a.nested", Value(nested)},
      {"a.deeper", Value(deeper)},
  };
}

struct TensorSpec {
  std::string name;
  GgmlType type;
  std::vector<int64_t> shape;
  size_t n_bytes;
};

std::vector<TensorSpec> SomeTensors() {
  return {
      {"f32.matrix", GgmlType::kF32, {8, 3}, 8 * 3 * 4},
      {"f16.vector", GgmlType::kF16, {10}, 20},                  // 20 bytes: padding follows
      {"q8_0.matrix", GgmlType::kQ8_0, {64, 2}, 2 * 2 * 34},     // 32 per block, 34 bytes
      {"q4_k.cube", GgmlType::kQ4_K, {256, 3, 2}, 6 * 144},      // 256 per block, 144 bytes
      {"iq4_nl.matrix", GgmlType::kIQ4_NL, {64, 3}, 3 * 2 * 18},  // 32 per block, 18 bytes
      {"iq4_xs.matrix", GgmlType::kIQ4_XS, {512, 2}, 2 * 2 * 136},  // 256 per block, 136 bytes
      {"mxfp4.experts", GgmlType::kMXFP4, {64, 3, 2}, 6 * 2 * 17},  // 32 per block, 17 bytes (odd: padding follows)
      {"f32.empty", GgmlType::kF32, {0, 4}, 0},
      {"f32.4d", GgmlType::kF32, {1, 2, 3, 4}, 24 * 4},
  };
}

// Writes AllValueKinds and SomeTensors with `writer`; returns the tensor bytes.
std::vector<std::vector<uint8_t>> Populate(Writer& writer) {
  for (auto& [key, value] : AllValueKinds()) {
    EXPECT_TRUE(writer.SetMetadata(key, value).ok()) << key;
  }
  std::vector<std::vector<uint8_t>> data;
  uint32_t seed = 1;
  for (const TensorSpec& spec : SomeTensors()) {
    data.push_back(RandomBytes(spec.n_bytes, seed++));
    Status s = writer.AddTensorData(spec.name, spec.type, spec.shape, data.back());
    EXPECT_TRUE(s.ok()) << spec.name << ": " << s.message();
  }
  return data;
}

// Checks a parsed header against what Populate wrote, including llama.cpp's
// layout rule: offsets are the running sum of sizes padded to the alignment.
void ExpectRoundTrip(std::span<const uint8_t> bytes, const Header& header, uint64_t alignment,
                     const std::vector<std::vector<uint8_t>>& data, size_t n_extra_keys_first) {
  const auto kinds = AllValueKinds();
  ASSERT_EQ(header.metadata.size(), kinds.size() + n_extra_keys_first);
  for (size_t i = 0; i < kinds.size(); ++i) {
    const MetadataEntry& entry = header.metadata[i + n_extra_keys_first];
    EXPECT_EQ(entry.key, kinds[i].first);
    EXPECT_EQ(entry.value, kinds[i].second) << kinds[i].first;
  }
  EXPECT_EQ(header.alignment, alignment);
  EXPECT_EQ(header.data_offset % alignment, 0u);
  const auto specs = SomeTensors();
  ASSERT_EQ(header.tensors.size(), specs.size());
  uint64_t expected_offset = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorInfo& t = header.tensors[i];
    SCOPED_TRACE(specs[i].name);
    EXPECT_EQ(t.name, specs[i].name);
    EXPECT_EQ(t.type->type, specs[i].type);
    EXPECT_EQ(t.shape, specs[i].shape);
    EXPECT_EQ(t.n_bytes, specs[i].n_bytes);
    EXPECT_EQ(t.offset, expected_offset);
    EXPECT_EQ(t.offset % alignment, 0u);
    auto range = TensorBytes(bytes, header, t);
    ASSERT_TRUE(range.ok());
    EXPECT_TRUE(std::equal(range->begin(), range->end(), data[i].begin(), data[i].end()));
    expected_offset += (t.n_bytes + alignment - 1) / alignment * alignment;
  }
  // Every padding byte is zero and the file ends with the last tensor's padding.
  EXPECT_EQ(bytes.size(), header.data_offset + expected_offset);
}

TEST(GgufWriter, RoundTripsEveryValueTypeAndTensorTypes) {
  Writer writer;
  const auto data = Populate(writer);
  auto bytes = writer.WriteBuffer();
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->version, 3u);
  ExpectRoundTrip(*bytes, *header, 32, data, 0);

  // Padding between the tensor infos and the data, and after each tensor, is zero.
  const Header& h = *header;
  std::vector<bool> is_data(bytes->size(), false);
  for (const TensorInfo& t : h.tensors) {
    for (uint64_t i = 0; i < t.n_bytes; ++i) is_data[h.data_offset + t.offset + i] = true;
  }
  for (size_t i = h.data_offset; i < bytes->size(); ++i) {
    if (!is_data[i]) {
      ASSERT_EQ((*bytes)[i], 0) << "padding byte " << i;
    }
  }
}

TEST(GgufWriter, CustomAlignmentIsHonoured) {
  for (uint32_t alignment : {64u, 1u, 4096u}) {
    SCOPED_TRACE(alignment);
    // Through the constructor: general.alignment is written as the first key.
    Writer by_ctor(alignment);
    const auto data = Populate(by_ctor);
    auto bytes = by_ctor.WriteBuffer();
    ASSERT_TRUE(bytes.ok());
    auto header = ParseHeader(*bytes);
    ASSERT_TRUE(header.ok()) << header.status().message();
    EXPECT_EQ(header->metadata[0].key, "general.alignment");
    EXPECT_EQ(header->metadata[0].value, Value(alignment));
    ExpectRoundTrip(*bytes, *header, alignment, data, 1);
  }
  // Through the metadata key, set first.
  Writer by_key;
  ASSERT_TRUE(by_key.SetMetadata("general.alignment", Value(uint32_t{64})).ok());
  const auto data = Populate(by_key);
  auto bytes = by_key.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  ExpectRoundTrip(*bytes, *header, 64, data, 1);
}

TEST(GgufWriter, AlignmentIsBoundedAndAFileWithoutTensorsHasNoPadding) {
  Writer w;
  Status s = w.SetMetadata("general.alignment", Value(uint32_t{1} << 30));
  EXPECT_EQ(s.message(), "metadata 'general.alignment' is 1073741824, more than the 65536 trit writes");
  ASSERT_TRUE(w.SetMetadata("general.alignment", Value(uint32_t{65536})).ok());
  ASSERT_TRUE(w.SetMetadata("general.name", Value(std::string("no tensors"))).ok());
  // No tensors, no data section: the file ends after the metadata, whatever
  // the alignment (llama.cpp's vocab-only files have this layout).
  auto bytes = w.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->size(), 128u);
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->alignment, 65536u);
  EXPECT_EQ(header->file_size, bytes->size());

  // With a tensor, the data section starts at the alignment as before.
  const std::vector<uint8_t> four(16);
  ASSERT_TRUE(w.AddTensorData("t", GgmlType::kF32, {4}, four).ok());
  bytes = w.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 2u * 65536u);
  header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->data_offset, 65536u);
}

TEST(GgufWriter, VersionTwoFileReads) {
  Writer writer;
  const auto data = Populate(writer);
  auto bytes = writer.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ((*bytes)[4], 3);
  (*bytes)[4] = 2;  // v2 and v3 share the layout (v3 added big-endian files)
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->version, 2u);
  ExpectRoundTrip(*bytes, *header, 32, data, 0);
}

TEST(GgufWriter, ReplacingAKeyKeepsItsPlace) {
  Writer writer;
  ASSERT_TRUE(writer.SetMetadata("a", Value(uint32_t{1})).ok());
  ASSERT_TRUE(writer.SetMetadata("b", Value("x")).ok());
  ASSERT_TRUE(writer.SetMetadata("a", Value("replaced")).ok());
  auto bytes = writer.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok());
  ASSERT_EQ(header->metadata.size(), 2u);
  EXPECT_EQ(header->metadata[0].key, "a");
  EXPECT_EQ(header->metadata[0].value, Value("replaced"));
  EXPECT_EQ(header->metadata[1].key, "b");
}

TEST(GgufWriter, RewritingTheBundledModelIsByteIdentical) {
  auto file = File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok()) << file.status().message();
  Writer writer;
  for (const MetadataEntry& entry : file->metadata()) {
    ASSERT_TRUE(writer.SetMetadata(entry.key, entry.value).ok()) << entry.key;
  }
  for (const TensorInfo& t : file->tensors()) {
    Status s = writer.AddTensorData(t.name, t.type->type, t.shape, file->TensorData(t));
    ASSERT_TRUE(s.ok()) << s.message();
  }
  auto bytes = writer.WriteBuffer();
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  const std::vector<uint8_t> original = ReadFileBytes(BundledModelPath());
  ASSERT_EQ(bytes->size(), original.size());
  const auto mismatch = std::mismatch(bytes->begin(), bytes->end(), original.begin());
  EXPECT_TRUE(mismatch.first == bytes->end())
      << "first difference at byte " << (mismatch.first - bytes->begin());

  // The same through WriteFile (temp name, then rename).
  ScratchDir dir("gguf-rewrite");
  const std::string path = dir.File("copy.gguf");
  ASSERT_TRUE(writer.WriteFile(path).ok());
  EXPECT_EQ(ReadFileBytes(path), original);
}

TEST(GgufWriter, WriteFileIsAtomic) {
  ScratchDir dir("gguf-atomic");
  const std::string path = dir.File("out.gguf");
  Writer writer;
  ASSERT_TRUE(writer.SetMetadata("general.architecture", Value("llama")).ok());
  ASSERT_TRUE(writer.AddTensorData("ok", GgmlType::kF32, {4}, RandomBytes(16, 7)).ok());
  ASSERT_TRUE(writer.AddTensor("fails", GgmlType::kF32, {4}, [](std::span<uint8_t>) {
                return Error(ErrorCode::kIo, "source went away");
              }).ok());
  Status s = writer.WriteFile(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), path + ": tensor 'fails': source went away");
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "a temporary file was left behind";
  auto buffer = writer.WriteBuffer();
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().message(), "tensor 'fails': source went away");

  Writer good;
  ASSERT_TRUE(good.AddTensorData("ok", GgmlType::kF32, {4}, RandomBytes(16, 7)).ok());
  ASSERT_TRUE(good.WriteFile(path).ok());
  auto file = File::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->tensors().size(), 1u);
  EXPECT_EQ(std::vector<uint8_t>(file->TensorData(file->tensors()[0]).begin(),
                                 file->TensorData(file->tensors()[0]).end()),
            RandomBytes(16, 7));
}

TEST(GgufWriter, RefusesWhatLlamaCppCannotRead) {
  Writer w;
  const std::vector<uint8_t> four(16);
  ASSERT_TRUE(w.AddTensorData(std::string(63, 'n'), GgmlType::kF32, {4}, four).ok());
  Status s = w.AddTensorData(std::string(64, 'n'), GgmlType::kF32, {4}, four);
  EXPECT_THAT(s.message(), HasSubstr("name is 64 bytes, llama.cpp allows at most 63"));
  s = w.AddTensorData(std::string(63, 'n'), GgmlType::kF32, {4}, four);
  EXPECT_EQ(s.message(), "tensor '" + std::string(63, 'n') + "' is added twice");
  s = w.AddTensorData("zero_dims", GgmlType::kF32, {}, {});
  EXPECT_EQ(s.message(), "tensor 'zero_dims': 0 dimensions, expected 1 to 4");
  s = w.AddTensorData("five_dims", GgmlType::kF32, {1, 1, 1, 1, 4}, four);
  EXPECT_EQ(s.message(), "tensor 'five_dims': 5 dimensions, expected 1 to 4");
  s = w.AddTensorData("q8", GgmlType::kQ8_0, {48, 2}, {});
  EXPECT_EQ(s.message(), "tensor 'q8': row length 48 is not a multiple of q8_0's block size 32");
  s = w.AddTensorData("neg", GgmlType::kF32, {4, -1}, {});
  EXPECT_EQ(s.message(), "tensor 'neg': ne[1] is -1, negative");
  s = w.AddTensorData("short", GgmlType::kF32, {5}, four);
  EXPECT_EQ(s.message(), "tensor 'short': 16 bytes of data given, its shape and type need 20");
  s = w.AddTensorData("huge", GgmlType::kF32, {int64_t{1} << 40, int64_t{1} << 30}, {});
  EXPECT_EQ(s.message(), "tensor 'huge': more than 2^63-1 elements");
  s = w.AddTensorData("bad_type", static_cast<GgmlType>(4), {4}, four);
  EXPECT_EQ(s.message(), "tensor 'bad_type': ggml type 4 is not a known type");
  // A refused tensor is not half-added: "short" can be added properly now.
  EXPECT_TRUE(w.AddTensorData("short", GgmlType::kF32, {4}, four).ok());

  s = w.SetMetadata("general.alignment", Value(uint32_t{3}));
  EXPECT_EQ(s.message(), "metadata 'general.alignment' is 3, expected a non-zero power of two");
  s = w.SetMetadata("general.alignment", Value(uint32_t{0}));
  EXPECT_EQ(s.message(), "metadata 'general.alignment' is 0, expected a non-zero power of two");
  s = w.SetMetadata("general.alignment", Value(uint64_t{64}));
  EXPECT_EQ(s.message(), "metadata 'general.alignment' is uint64, expected uint32");

  Array bad_bool = Array::Of<uint8_t>(ValueType::kUint8, {0, 2});
  bad_bool.element_type = ValueType::kBool;
  s = w.SetMetadata("flags", Value(bad_bool));
  EXPECT_EQ(s.message(), "metadata 'flags': bool element 1 is 2, not 0 or 1");
  Array ragged = Array::Of<uint8_t>(ValueType::kUint8, {1, 2, 3});
  ragged.element_type = ValueType::kUint16;
  s = w.SetMetadata("ragged", Value(ragged));
  EXPECT_EQ(s.message(), "metadata 'ragged': array of uint16 has 3 packed bytes, not a multiple of 2");
  Array mixed = Array::OfStrings({"a"});
  mixed.element_type = ValueType::kInt32;
  s = w.SetMetadata("mixed", Value(mixed));
  EXPECT_EQ(s.message(), "metadata 'mixed': array of int32 holds elements of another type");

  // Nothing refused reached the output.
  auto bytes = w.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  auto header = ParseHeader(*bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->metadata.size(), 0u);
  ASSERT_EQ(header->tensors.size(), 2u);
  EXPECT_EQ(header->alignment, 32u);
}

TEST(GgufWriter, ArraysNestedTooDeepAreRefused) {
  Array a = Array::Of<uint8_t>(ValueType::kUint8, {1});
  for (int depth = 1; depth < 16; ++depth) {
    Array outer;
    outer.element_type = ValueType::kArray;
    outer.arrays.push_back(a);
    a = outer;
  }
  Writer w;
  ASSERT_TRUE(w.SetMetadata("deep16", Value(a)).ok());  // 16 levels: the reader's limit
  auto bytes = w.WriteBuffer();
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(ParseHeader(*bytes).ok()) << ParseHeader(*bytes).status().message();
  Array outer;
  outer.element_type = ValueType::kArray;
  outer.arrays.push_back(a);
  Status s = w.SetMetadata("deep17", Value(outer));
  EXPECT_THAT(s.message(), HasSubstr("arrays nested deeper than 16"));
}

}  // namespace
}  // namespace trit::gguf
