// safetensors files (formats/safetensors/safetensors_file.h): valid files
// parse to the fields written and Data() gives each tensor's bytes; every
// refusal of the reader is asserted by its message on a crafted header; every
// truncation and single-byte corruption of a valid file parses or errors,
// never crashes, and what parses keeps the reader's promises.
#include "formats/safetensors/safetensors_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "formats/safetensors/safetensors_test_util.h"

namespace trit::safetensors {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Counting;
using testing::FileFromHeader;
using testing::ScratchDir;
using testing::TestTensor;
using testing::WriteSafetensors;

// Three tensors of three dtypes (a scalar among them) and metadata.
std::vector<TestTensor> ThreeTensors() {
  return {{"model.embed.weight", "F32", {2, 3}, Counting(24)},
          {"model.norm.weight", "BF16", {3}, Counting(6, 100)},
          {"step", "I64", {}, Counting(8, 200)}};
}

std::string ErrorOf(const std::vector<uint8_t>& bytes) {
  Expected<Header> h = ParseHeader(bytes);
  EXPECT_FALSE(h.ok()) << "parsed: " << std::string(bytes.begin() + 8, bytes.end());
  return h.ok() ? std::string() : h.status().message();
}

std::string ErrorOf(const std::string& header, const std::vector<uint8_t>& buffer) {
  return ErrorOf(FileFromHeader(header, buffer));
}

// One F32 tensor "t" of shape [2] whose entry is `entry` (the text between the braces).
std::string ErrorOfEntry(const std::string& entry, size_t buffer_bytes = 8) {
  return ErrorOf("{\"t\":{" + entry + "}}", Counting(buffer_bytes));
}

// The reader's promises for a header that parsed from `bytes`.
void ExpectPromisesHold(const Header& h, size_t file_size) {
  ASSERT_EQ(h.data_offset, 8 + h.header_bytes);
  ASSERT_EQ(h.data_offset + h.data_bytes, file_size);
  uint64_t covered = 0;
  for (const TensorInfo& t : h.tensors) {
    ASSERT_LE(t.begin, t.end);
    ASSERT_LE(t.end, h.data_bytes);
    ASSERT_EQ(t.begin, covered) << t.name;  // in buffer order, no gap, no overlap
    covered = t.end;
    uint64_t n = 1;
    for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
    ASSERT_EQ(t.n_elements, n);
    ASSERT_EQ(DtypeBytes(t.dtype, t.n_elements), t.n_bytes()) << t.name;
  }
  ASSERT_EQ(covered, h.data_bytes);
}

TEST(SafetensorsFile, ParsesEveryField) {
  const std::vector<uint8_t> bytes = WriteSafetensors(ThreeTensors(), {{"format", "pt"}, {"note", "x y"}});
  Expected<Header> h = ParseHeader(bytes);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header_bytes % 8, 0u);
  EXPECT_EQ(h->data_offset, 8 + h->header_bytes);
  EXPECT_EQ(h->data_bytes, 38u);
  ASSERT_EQ(h->tensors.size(), 3u);
  const TensorInfo& embed = h->tensors[0];
  EXPECT_EQ(embed.name, "model.embed.weight");
  EXPECT_EQ(embed.dtype, Dtype::kF32);
  EXPECT_EQ(embed.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(embed.n_elements, 6u);
  EXPECT_EQ(embed.begin, 0u);
  EXPECT_EQ(embed.end, 24u);
  EXPECT_EQ(h->tensors[1].dtype, Dtype::kBF16);
  EXPECT_EQ(h->tensors[1].begin, 24u);
  EXPECT_EQ(h->tensors[1].n_bytes(), 6u);
  EXPECT_EQ(h->tensors[2].name, "step");
  EXPECT_TRUE(h->tensors[2].shape.empty());
  EXPECT_EQ(h->tensors[2].n_elements, 1u);
  EXPECT_EQ(h->tensors[2].end, 38u);
  EXPECT_EQ(h->metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "x y"}}));
  ExpectPromisesHold(*h, bytes.size());
}

TEST(SafetensorsFile, TensorsComeInBufferOrderWhateverTheHeaderOrder) {
  // The header lists "b" (bytes [4, 8)) before "a" (bytes [0, 4)); JSON order is not buffer order.
  const std::string header =
      R"({"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]},"a":{"dtype":"U8","shape":[2,2],"data_offsets":[0,4]}})";
  Expected<Header> h = ParseHeader(FileFromHeader(header, Counting(8)));
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->tensors.size(), 2u);
  EXPECT_EQ(h->tensors[0].name, "a");
  EXPECT_EQ(h->tensors[1].name, "b");
}

TEST(SafetensorsFile, EmptyTensorsAndAnEmptyFileParse) {
  // Empty tensors take no bytes and may share an offset with each other and with the next tensor.
  const std::vector<uint8_t> bytes = WriteSafetensors(
      {{"e1", "F32", {0}, {}}, {"e2", "F16", {4, 0, 2}, {}}, {"x", "U8", {3}, Counting(3)}, {"e3", "BOOL", {0}, {}}});
  Expected<Header> h = ParseHeader(bytes);
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->tensors.size(), 4u);
  ExpectPromisesHold(*h, bytes.size());
  EXPECT_EQ(h->tensors[1].n_elements, 0u);

  Expected<Header> none = ParseHeader(FileFromHeader("{}", {}));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->tensors.empty());
}

TEST(SafetensorsFile, HeaderMayBePaddedWithSpacesAndNeedNotBeAligned) {
  const std::string header = R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  for (size_t pad : {0, 1, 7, 64}) {
    const std::string text = header + std::string(pad, ' ');
    const uint64_t n = text.size();
    std::vector<uint8_t> bytes(8 + n + 1, 42);
    std::memcpy(bytes.data(), &n, 8);
    std::memcpy(bytes.data() + 8, text.data(), n);
    Expected<Header> h = ParseHeader(bytes);
    ASSERT_TRUE(h.ok()) << "pad " << pad << ": " << h.status().message();
    EXPECT_EQ(h->data_offset, 8 + n);
  }
}

TEST(SafetensorsFile, SubByteDtypesTakeWholeBytes) {
  Expected<Header> f4 = ParseHeader(WriteSafetensors({{"q", "F4", {2, 4}, Counting(4)}}));
  ASSERT_TRUE(f4.ok()) << f4.status().message();
  EXPECT_EQ(f4->tensors[0].dtype, Dtype::kF4);
  Expected<Header> f6 = ParseHeader(WriteSafetensors({{"q", "F6_E2M3", {4}, Counting(3)}}));
  ASSERT_TRUE(f6.ok()) << f6.status().message();
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F4","shape":[3],"data_offsets":[0,2])", 2),
            "tensor 't': shape [3] of F4 is 3 elements of 4 bits, not a whole number of bytes");
}

TEST(SafetensorsFile, EveryDtypeNameReadsBack) {
  for (Dtype d : AllDtypes()) {
    const uint64_t n_bytes = *DtypeBytes(d, 8);
    Expected<Header> h = ParseHeader(WriteSafetensors({{"t", std::string(DtypeName(d)), {8}, Counting(n_bytes)}}));
    ASSERT_TRUE(h.ok()) << DtypeName(d) << ": " << h.status().message();
    EXPECT_EQ(h->tensors[0].dtype, d);
  }
}

TEST(SafetensorsFile, OpenMapsTheFileAndDataIsTheTensorsBytes) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::vector<TestTensor> tensors = ThreeTensors();
  const std::string path = dir.File("model.safetensors");
  testing::WriteBytes(path, WriteSafetensors(tensors, {{"format", "pt"}}));
  Expected<File> file = File::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->path(), path);
  EXPECT_EQ(file->metadata().at("format"), "pt");
  for (const TestTensor& t : tensors) {
    const TensorInfo* info = file->Find(t.name);
    ASSERT_NE(info, nullptr) << t.name;
    const std::span<const uint8_t> data = file->Data(*info);
    EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), t.data) << t.name;
  }
  EXPECT_EQ(file->Find("model.embed"), nullptr);
  EXPECT_EQ(file->Find(""), nullptr);
}

TEST(SafetensorsFile, OpenErrorsNameThePath) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  Expected<File> missing = File::Open(dir.File("absent.safetensors"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("absent.safetensors"));

  const std::string path = dir.File("bad.safetensors");
  testing::WriteBytes(path, FileFromHeader("{\"t\":1}", {}));
  Expected<File> bad = File::Open(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            path + ": tensor 't': expected an object {dtype, shape, data_offsets}, found 1");
}

// --- The header length and the JSON text ---

TEST(SafetensorsFile, RefusesAFileShorterThanTheLength) {
  for (size_t n = 0; n < 8; ++n) {
    EXPECT_EQ(ErrorOf(std::vector<uint8_t>(n, 0)),
              fmt::format("the file is {} bytes, too short for the 8-byte header length", n));
  }
}

TEST(SafetensorsFile, RefusesAHeaderLengthPastTheFileOrTheLimit) {
  std::vector<uint8_t> bytes = WriteSafetensors(ThreeTensors());
  const uint64_t real = bytes.size() - 8 - 38;
  uint64_t n = bytes.size() - 7;  // one past the end
  std::memcpy(bytes.data(), &n, 8);
  EXPECT_EQ(ErrorOf(bytes),
            fmt::format("header length {} runs past the end of the file ({} bytes)", n, bytes.size()));
  n = kMaxHeaderBytes + 1;
  std::memcpy(bytes.data(), &n, 8);
  EXPECT_EQ(ErrorOf(bytes), "header length 100000001 is larger than the limit of 100000000 bytes");
  n = ~uint64_t{0};
  std::memcpy(bytes.data(), &n, 8);
  EXPECT_EQ(ErrorOf(bytes), "header length 18446744073709551615 is larger than the limit of 100000000 bytes");
  // Shorter than the JSON: the text is cut and no longer parses.
  n = real - 8;
  std::memcpy(bytes.data(), &n, 8);
  EXPECT_THAT(ErrorOf(bytes), StartsWith("the header is not valid JSON: "));
}

TEST(SafetensorsFile, RefusesTextThatIsNotAJsonObject) {
  EXPECT_THAT(ErrorOf("{\"t\":", {}), StartsWith("the header is not valid JSON: 'parse error at line 1, column"));
  EXPECT_EQ(ErrorOf("[1, 2]", {}), "the header is an array, expected a JSON object");
  EXPECT_EQ(ErrorOf("\"x\"", {}), "the header is the string 'x', expected a JSON object");
  EXPECT_THAT(ErrorOf("", {}), StartsWith("the header is not valid JSON"));
  // A name that is not UTF-8.
  EXPECT_THAT(ErrorOf("{\"\xff\":{}}", {}), StartsWith("the header is not valid JSON"));
  // Nested too deep for the parser's stack: refused before parsing.
  EXPECT_EQ(ErrorOf("{\"t\":" + std::string(100, '[') + std::string(100, ']') + "}", {}),
            "the header nests deeper than 16 levels");
}

// --- A tensor's entry ---

TEST(SafetensorsFile, RefusesAnEntryOfTheWrongShape) {
  EXPECT_EQ(ErrorOf("{\"t\":[1]}", {}), "tensor 't': expected an object {dtype, shape, data_offsets}, found an array");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,8],"offset":0)"),
            "tensor 't': unknown key 'offset' (known: dtype, shape, data_offsets)");
  EXPECT_EQ(ErrorOfEntry(R"("shape":[2],"data_offsets":[0,8])"), "tensor 't': missing 'dtype'");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","data_offsets":[0,8])"), "tensor 't': missing 'shape'");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2])"), "tensor 't': missing 'data_offsets'");
}

TEST(SafetensorsFile, RefusesAnUnknownDtypeByName) {
  Expected<Header> h = ParseHeader(FileFromHeader(R"({"t":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}})", Counting(8)));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(h.status().message(),
            "tensor 't': dtype 'F7' is not a safetensors dtype (known: BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, "
            "F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64)");
  EXPECT_THAT(ErrorOfEntry(R"("dtype":"f32","shape":[2],"data_offsets":[0,8])"), HasSubstr("dtype 'f32' is not"));
  EXPECT_EQ(ErrorOfEntry(R"("dtype":32,"shape":[2],"data_offsets":[0,8])"),
            "tensor 't': dtype: expected a string, found 32");
}

TEST(SafetensorsFile, RefusesAShapeThatIsNotNonNegativeIntegers) {
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":2,"data_offsets":[0,8])"),
            "tensor 't': shape: expected an array of non-negative integers, found 2");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[1,-2],"data_offsets":[0,8])"),
            "tensor 't': shape[1]: expected a non-negative integer, found -2");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2.0],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: expected a non-negative integer, found 2.0");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":["2"],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: expected a non-negative integer, found the string '2'");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[[2]],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: expected a non-negative integer, found an array");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[null],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: expected a non-negative integer, found null");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: 9223372036854775808 is larger than 2^63 - 1");
  // Past u64: the JSON number is no longer an integer.
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,8])"),
            "tensor 't': shape[0]: expected a non-negative integer, found 1.8446744073709552e+19");
}

TEST(SafetensorsFile, RefusesAnElementCountThatOverflows) {
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8])"),
            "tensor 't': shape [4294967296, 4294967296] has more elements than a u64 counts");
  // Elements that fit but whose bytes do not.
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8])"),
            "tensor 't': shape [4611686018427387904] of F64 takes more bits than a u64 counts");
  // An overflowing product with a zero is 0 elements, not an overflow.
  Expected<Header> h = ParseHeader(
      FileFromHeader(R"({"t":{"dtype":"U8","shape":[4294967296,4294967296,0],"data_offsets":[0,0]}})", {}));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->tensors[0].n_elements, 0u);
}

TEST(SafetensorsFile, RefusesDataOffsetsThatAreNotARangeInTheBuffer) {
  for (const char* offsets : {R"(8)", R"([0])", R"([0,8,9])", R"([-1,8])", R"([0,"8"])", R"([0,8.5])"}) {
    EXPECT_THAT(ErrorOfEntry(std::string(R"("dtype":"F32","shape":[2],"data_offsets":)") + offsets),
                StartsWith("tensor 't': data_offsets: expected [begin, end], two non-negative integers, found "))
        << offsets;
  }
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,"8"])"),
            "tensor 't': data_offsets: expected [begin, end], two non-negative integers, found [0,\"8\"]");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[8,0])"),
            "tensor 't': data_offsets [8, 0]: begin is after end");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,8])", 7),
            "tensor 't': data_offsets [0, 8]: end runs past the buffer (7 bytes after the header)");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615])"),
            "tensor 't': data_offsets [0, 18446744073709551615]: end runs past the buffer (8 bytes after the header)");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"F32","shape":[2],"data_offsets":[0,6])", 6),
            "tensor 't': data_offsets [0, 6] hold 6 bytes, but shape [2] of F32 takes 8");
  EXPECT_EQ(ErrorOfEntry(R"("dtype":"BF16","shape":[2,2],"data_offsets":[0,16])", 16),
            "tensor 't': data_offsets [0, 16] hold 16 bytes, but shape [2, 2] of BF16 takes 8");
}

// --- The buffer as a whole ---

TEST(SafetensorsFile, RefusesOverlapsAndGapsNamingBothTensors) {
  const std::string a = R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";
  EXPECT_EQ(ErrorOf("{" + a + R"(,"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})", Counting(6)),
            "tensors 'a' [0, 4) and 'b' [2, 6) overlap");
  EXPECT_EQ(ErrorOf("{" + a + R"(,"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", Counting(4)),
            "tensors 'a' [0, 4) and 'b' [0, 4) overlap");
  // An empty tensor inside another is an overlap too.
  EXPECT_EQ(ErrorOf("{" + a + R"(,"e":{"dtype":"U8","shape":[0],"data_offsets":[2,2]}})", Counting(4)),
            "tensors 'a' [0, 4) and 'e' [2, 2) overlap");
  EXPECT_EQ(ErrorOf("{" + a + R"(,"b":{"dtype":"U8","shape":[2],"data_offsets":[6,8]}})", Counting(8)),
            "bytes [4, 6) of the buffer belong to no tensor: a gap between 'a' (ends at 4) and 'b' (starts at 6)");
  EXPECT_EQ(ErrorOf(R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", Counting(4)),
            "bytes [0, 2) of the buffer belong to no tensor: the first, 'b', starts at 2");
  EXPECT_EQ(ErrorOf("{" + a + "}", Counting(9)),
            "bytes [4, 9) of the buffer belong to no tensor: the last, 'a', ends at 4");
  EXPECT_EQ(ErrorOf(R"({"__metadata__":{}})", Counting(3)), "the buffer holds 3 bytes but the header lists no tensor");
}

TEST(SafetensorsFile, RefusesANameOrKeyGivenTwice) {
  const std::string a = R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";
  EXPECT_EQ(ErrorOf("{" + a + "," + a + "}", Counting(4)), "tensor 'a' appears twice in the header");
  EXPECT_EQ(ErrorOf(R"({"a":{"dtype":"U8","dtype":"I8","shape":[4],"data_offsets":[0,4]}})", Counting(4)),
            "tensor 'a': key 'dtype' appears twice");
  EXPECT_EQ(ErrorOf(R"({"__metadata__":{"k":"1","k":"2"}})", {}), "__metadata__: key 'k' appears twice");
  EXPECT_EQ(ErrorOf(R"({"__metadata__":{},"__metadata__":{}})", {}), "key '__metadata__' appears twice in the header");
}

TEST(SafetensorsFile, RefusesMetadataThatIsNotStrings) {
  EXPECT_EQ(ErrorOf(R"({"__metadata__":{"format":"pt","total":1}})", {}),
            "__metadata__ 'total': expected a string, found 1");
  EXPECT_EQ(ErrorOf(R"({"__metadata__":{"f":{"x":"y"}}})", {}), "__metadata__ 'f': expected a string, found an object");
  EXPECT_EQ(ErrorOf(R"({"__metadata__":["pt"]})", {}), "__metadata__: expected an object of strings, found an array");
}

TEST(SafetensorsFile, NamesInMessagesAreEscaped) {
  EXPECT_EQ(ErrorOf("{\"a\\nb'\":1}", {}),
            "tensor 'a\\x0ab\\x27': expected an object {dtype, shape, data_offsets}, found 1");
  const std::string long_name(300, 'n');
  EXPECT_EQ(ErrorOf("{\"" + long_name + "\":1}", {}),
            "tensor '" + std::string(120, 'n') + "...': expected an object {dtype, shape, data_offsets}, found 1");
}

// --- Hostile bytes ---

TEST(SafetensorsFile, EveryTruncationFailsWithAMessage) {
  const std::vector<uint8_t> bytes = WriteSafetensors(ThreeTensors(), {{"format", "pt"}});
  ASSERT_TRUE(ParseHeader(bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Expected<Header> h = ParseHeader(std::span(bytes).first(n));
    ASSERT_FALSE(h.ok()) << "a prefix of " << n << " bytes parsed";
    ASSERT_FALSE(h.status().message().empty());
  }
}

TEST(SafetensorsFile, EverySingleByteCorruptionParsesOrErrs) {
  const std::vector<uint8_t> valid = WriteSafetensors(ThreeTensors(), {{"format", "pt"}});
  const Expected<Header> original = ParseHeader(valid);
  ASSERT_TRUE(original.ok());
  size_t refused = 0, parsed = 0;
  for (size_t at = 0; at < original->data_offset; ++at) {
    for (uint8_t value : {0x00, 0x01, 0x20, 0x22, 0x2c, 0x30, 0x31, 0x39, 0x5b, 0x5d, 0x7b, 0x7d, 0x80, 0xff}) {
      std::vector<uint8_t> bytes = valid;
      if (bytes[at] == value) continue;
      bytes[at] = value;
      Expected<Header> h = ParseHeader(bytes);
      if (!h.ok()) {
        ASSERT_FALSE(h.status().message().empty());
        ++refused;
        continue;
      }
      ++parsed;
      ExpectPromisesHold(*h, bytes.size());
    }
  }
  // Both kinds happen: a changed name, metadata value or padding byte still
  // parses (and then keeps the promises), a changed length, bracket or digit
  // of an offset does not.
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(parsed, 100u);
}

}  // namespace
}  // namespace trit::safetensors
