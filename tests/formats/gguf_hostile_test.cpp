// Hostile input: every truncation of the bundled model's header, random
// corruptions, and crafted files for each check the reader makes. Each must
// give one error naming the field and byte offset, never a crash (this file
// also runs under AddressSanitizer + UBSan).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "formats/gguf/reader.h"
#include "gguf_test_util.h"
#include "test_paths.h"

namespace trit::gguf {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using trit::testing::BundledModelPath;
using trit::testing::GgufBuilder;
using trit::testing::ReadFileBytes;

constexpr uint64_t kBundledDataOffset = 14176;

std::string ParseError(std::span<const uint8_t> bytes) {
  auto header = ParseHeader(bytes);
  if (header.ok()) return "(parsed without error)";
  return header.status().message();
}

TEST(GgufHostile, EveryTruncationOfTheHeaderFails) {
  const std::vector<uint8_t> bytes = ReadFileBytes(BundledModelPath());
  ASSERT_GT(bytes.size(), kBundledDataOffset + 100);
  ASSERT_TRUE(ParseHeader(bytes).ok());
  for (size_t n = 0; n <= kBundledDataOffset + 24; ++n) {
    auto header = ParseHeader(std::span(bytes).first(n));
    ASSERT_FALSE(header.ok()) << "prefix of " << n << " bytes parsed";
    ASSERT_THAT(header.status().message(), AnyOf(HasSubstr("byte"), HasSubstr("end of file")))
        << "prefix of " << n << " bytes";
  }
  // In the tensor data: a tensor runs past the end.
  for (int i = 0; i < 100; ++i) {
    const size_t n = kBundledDataOffset + 25 + (bytes.size() - kBundledDataOffset - 26) * i / 99;
    auto header = ParseHeader(std::span(bytes).first(n));
    ASSERT_FALSE(header.ok()) << "prefix of " << n << " bytes parsed";
    ASSERT_THAT(header.status().message(), HasSubstr("runs past end of file (" + std::to_string(n) + " bytes)"));
  }
}

TEST(GgufHostile, TruncationMessagesAreExact) {
  const std::vector<uint8_t> bytes = ReadFileBytes(BundledModelPath());
  EXPECT_EQ(ParseError(std::span(bytes).first(23)),
            "header: truncated at byte 16 reading kv_count (need 8 bytes, file has 23)");
  EXPECT_EQ(ParseError(std::span(bytes).first(10)),
            "header: truncated at byte 8 reading tensor_count (need 8 bytes, file has 10)");
  // 19 keys of at least 13 bytes cannot fit in what is left.
  EXPECT_EQ(ParseError(std::span(bytes).first(30)),
            "header: kv_count 19 at byte 16 cannot fit: 19 key-value pairs of at least 13 bytes each, only 6 "
            "bytes left (file has 30)");
  EXPECT_EQ(ParseError(std::span(bytes).first(300)),
            "metadata key #0 ('tokenizer.ggml.tokens'): array count 512 at byte 61 cannot fit: 512 string "
            "elements of at least 8 bytes each, only 231 bytes left (file has 300)");
  EXPECT_EQ(ParseError(std::span(bytes).first(4200)),
            "metadata key #0 ('tokenizer.ggml.tokens'): element 303 of 512: truncated at byte 4193 reading "
            "string length (need 8 bytes, file has 4200)");
  // token_embd.weight is the first tensor; the file stops inside its data.
  EXPECT_EQ(ParseError(std::span(bytes).first(20000)),
            "tensor 'token_embd.weight': data [14176, +131072) runs past end of file (20000 bytes)");
}

TEST(GgufHostile, RandomHeaderCorruptionsParseOrFail) {
  const std::vector<uint8_t> original = ReadFileBytes(BundledModelPath());
  std::mt19937 rng(20240601);
  int n_failed = 0;
  for (int i = 0; i < 100; ++i) {
    std::vector<uint8_t> bytes = original;
    const int n_changes = 1 + static_cast<int>(rng() % 4);
    for (int c = 0; c < n_changes; ++c) {
      bytes[rng() % kBundledDataOffset] = static_cast<uint8_t>(rng());
    }
    auto header = ParseHeader(bytes);
    if (!header.ok()) {
      ++n_failed;
      EXPECT_FALSE(header.status().message().empty());
      continue;
    }
    for (const TensorInfo& t : header->tensors) {
      auto range = TensorBytes(bytes, *header, t);
      ASSERT_TRUE(range.ok()) << range.status().message();
      EXPECT_LE(range->data() + range->size(), bytes.data() + bytes.size());
    }
  }
  EXPECT_GT(n_failed, 0);  // the corruption reached the checks at all
}

// A minimal valid file: one uint32 key, one F32 tensor of 4 elements.
GgufBuilder ValidFile() {
  GgufBuilder b;
  b.Preamble(1, 1).Str("k").U32(4).U32(7);
  b.Tensor("t", {4}, 0, 0).PadTo(32).Zeros(16);
  return b;
}

TEST(GgufCrafted, MinimalFileIsValid) {
  const GgufBuilder b = ValidFile();
  auto header = ParseHeader(b.bytes());
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->data_offset, 96u);
  EXPECT_EQ(header->tensors[0].n_bytes, 16u);
}

TEST(GgufCrafted, BadMagic) {
  GgufBuilder b;
  b.U32(0x4c4d4747).U32(3).U64(0).U64(0);  // "GGML"
  EXPECT_EQ(ParseError(b.bytes()), "header: magic 'GGML' at byte 0 is not 'GGUF': not a GGUF file");
  GgufBuilder binary;
  binary.U32(0x00ff0a7f).U32(3);
  EXPECT_EQ(ParseError(binary.bytes()),
            "header: magic '\\x7f\\x0a\\xff\\x00' at byte 0 is not 'GGUF': not a GGUF file");
}

TEST(GgufCrafted, VersionsRefusedByName) {
  GgufBuilder v1;
  v1.Preamble(0, 0, 1);
  EXPECT_THAT(ParseError(v1.bytes()), HasSubstr("header: GGUF version 1 (32-bit counts) is no longer supported"));
  GgufBuilder big_endian;
  big_endian.Preamble(0, 0, 0x03000000);
  EXPECT_EQ(ParseError(big_endian.bytes()),
            "header: version field 0x03000000 at byte 4 is byte-swapped: this is a big-endian GGUF file "
            "(version 3), which trit does not read");
  GgufBuilder v4;
  v4.Preamble(0, 0, 4);
  EXPECT_EQ(ParseError(v4.bytes()), "header: GGUF version 4 is not supported (2 and 3 are)");
  GgufBuilder v0;
  v0.Preamble(0, 0, 0);
  EXPECT_EQ(ParseError(v0.bytes()), "header: GGUF version 0 is not supported (2 and 3 are)");
}

TEST(GgufCrafted, HugeCounts) {
  GgufBuilder kv;
  kv.Preamble(0, uint64_t{1} << 62).Zeros(40);
  EXPECT_EQ(ParseError(kv.bytes()),
            "header: kv_count 4611686018427387904 at byte 16 cannot fit: 4611686018427387904 key-value pairs of "
            "at least 13 bytes each, only 40 bytes left (file has 64)");
  GgufBuilder tensors;
  tensors.Preamble(~uint64_t{0}, 0).Zeros(40);
  EXPECT_EQ(ParseError(tensors.bytes()),
            "header: tensor_count 18446744073709551615 at byte 8 cannot fit: 18446744073709551615 tensor infos of "
            "at least 24 bytes each, only 40 bytes left (file has 64)");
}

TEST(GgufCrafted, HugeArrayCount) {
  GgufBuilder b;
  b.Preamble(0, 1).Str("tokenizer.ggml.tokens").U32(9).U32(8);
  const uint64_t count_at = b.pos();
  b.U64(uint64_t{1} << 61).Zeros(100);
  EXPECT_EQ(ParseError(b.bytes()),
            "metadata key #0 ('tokenizer.ggml.tokens'): array count 2305843009213693952 at byte " +
                std::to_string(count_at) +
                " cannot fit: 2305843009213693952 string elements of at least 8 bytes each, only 100 bytes left "
                "(file has " + std::to_string(b.pos()) + ")");
  // count * element size overflows 64 bits
  GgufBuilder overflow;
  overflow.Preamble(0, 1).Str("a").U32(9).U32(10).U64(uint64_t{1} << 61).Zeros(8);
  EXPECT_THAT(ParseError(overflow.bytes()),
              HasSubstr("array count 2305843009213693952 at byte 41 cannot fit: "));
}

TEST(GgufCrafted, HugeStringLength) {
  GgufBuilder key;
  key.Preamble(0, 1).U64(~uint64_t{0}).Zeros(20);
  EXPECT_EQ(ParseError(key.bytes()),
            "metadata key #0: truncated at byte 32 reading key (need 18446744073709551615 bytes, file has 52)");
  GgufBuilder value;
  value.Preamble(0, 1).Str("general.name").U32(8).U64(uint64_t{1} << 40).Zeros(4);
  EXPECT_EQ(ParseError(value.bytes()),
            "metadata key #0 ('general.name'): truncated at byte 56 reading string value (need 1099511627776 "
            "bytes, file has 60)");
  GgufBuilder element;
  element.Preamble(0, 1).Str("s").U32(9).U32(8).U64(2).Str("ok").U64(1000).Zeros(8);
  EXPECT_EQ(ParseError(element.bytes()),
            "metadata key #0 ('s'): element 1 of 2: truncated at byte 67 reading string (need 1000 bytes, file "
            "has 75)");
}

TEST(GgufCrafted, UnknownValueTypes) {
  GgufBuilder b;
  b.Preamble(0, 8);
  for (int i = 0; i < 7; ++i) b.Str(std::string{'k', static_cast<char>('0' + i)}).U32(0).U8(1);
  b.Str("llama.block_count");
  const uint64_t type_at = b.pos();
  b.U32(42).U32(5);
  EXPECT_EQ(ParseError(b.bytes()), "metadata key #7 ('llama.block_count'): value type 42 at byte " +
                                       std::to_string(type_at) + " is not a GGUF type (0..12)");
  GgufBuilder element;
  element.Preamble(0, 1).Str("a").U32(9).U32(13).U64(0);
  EXPECT_EQ(ParseError(element.bytes()),
            "metadata key #0 ('a'): array element type 13 at byte 37 is not a GGUF type (0..12)");
}

TEST(GgufCrafted, BoolMustBeZeroOrOne) {
  GgufBuilder b;
  b.Preamble(0, 1).Str("flag").U32(7).U8(2);
  EXPECT_EQ(ParseError(b.bytes()), "metadata key #0 ('flag'): bool value 2 at byte 40 is not 0 or 1");
  GgufBuilder array;
  array.Preamble(0, 1).Str("flags").U32(9).U32(7).U64(3).U8(1).U8(0).U8(9);
  EXPECT_EQ(ParseError(array.bytes()),
            "metadata key #0 ('flags'): element 2 of 3: bool value 9 at byte 55 is not 0 or 1");
}

TEST(GgufCrafted, ArrayNestingIsBounded) {
  GgufBuilder b;
  b.Preamble(0, 1).Str("deep").U32(9);
  for (int i = 0; i < 17; ++i) b.U32(9).U64(1);
  b.U32(0).U64(0);
  EXPECT_THAT(ParseError(b.bytes()), HasSubstr("is nested deeper than 16 levels"));
  GgufBuilder ok;
  ok.Preamble(0, 1).Str("deep").U32(9);
  for (int i = 0; i < 15; ++i) ok.U32(9).U64(1);
  ok.U32(0).U64(0);
  EXPECT_TRUE(ParseHeader(ok.bytes()).ok()) << ParseError(ok.bytes());
}

TEST(GgufCrafted, DuplicateKeyAndTensorName) {
  GgufBuilder b;
  b.Preamble(0, 3).Str("a").U32(0).U8(1).Str("b").U32(0).U8(1);
  const uint64_t dup_at = b.pos();
  b.Str("a").U32(0).U8(2);
  EXPECT_EQ(ParseError(b.bytes()),
            "metadata key #2 ('a') at byte " + std::to_string(dup_at) + " duplicates metadata key #0");
  GgufBuilder t;
  t.Preamble(2, 0).Tensor("w", {4}, 0, 0);
  const uint64_t second_at = t.pos();
  t.Tensor("w", {4}, 0, 32).PadTo(32).Zeros(64);
  EXPECT_EQ(ParseError(t.bytes()),
            "tensor #1 ('w') at byte " + std::to_string(second_at) + " has the same name as tensor #0");
}

TEST(GgufCrafted, Alignment) {
  for (uint32_t bad : {0u, 3u, 48u}) {
    GgufBuilder b;
    b.Preamble(0, 1).Str("general.alignment").U32(4).U32(bad);
    EXPECT_EQ(ParseError(b.bytes()), "metadata 'general.alignment' is " + std::to_string(bad) +
                                         ", expected a non-zero power of two");
  }
  GgufBuilder wrong_type;
  wrong_type.Preamble(0, 1).Str("general.alignment").U32(10).U64(32);
  EXPECT_EQ(ParseError(wrong_type.bytes()), "metadata 'general.alignment' is uint64, expected uint32");

  // 64: the data section and offsets follow it.
  GgufBuilder ok;
  ok.Preamble(1, 1).Str("general.alignment").U32(4).U32(64).Tensor("t", {4}, 0, 0).PadTo(64).Zeros(16);
  auto header = ParseHeader(ok.bytes());
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->alignment, 64u);
  EXPECT_EQ(header->data_offset, 128u);
}

TEST(GgufCrafted, AlignmentAboveTheLimitIsRefusedByName) {
  const GgufBuilder finding = trit::testing::HugeAlignmentFile();
  ASSERT_EQ(finding.pos(), 524u);
  EXPECT_EQ(ParseError(finding.bytes()),
            "metadata 'general.alignment' is 1073741824, more than the 65536 trit accepts (GGUF writers use 32)");
  auto header = ParseHeader(finding.bytes());
  EXPECT_EQ(header.status().code(), ErrorCode::kUnsupported);

  // The limit itself parses, and so does a tensor aligned to it.
  GgufBuilder at_limit;
  at_limit.Preamble(1, 1).Str("general.alignment").U32(4).U32(65536).Tensor("t", {4}, 0, 0).PadTo(65536).Zeros(16);
  auto ok = ParseHeader(at_limit.bytes());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->data_offset, 65536u);
  GgufBuilder above;
  above.Preamble(0, 1).Str("general.alignment").U32(4).U32(131072);
  EXPECT_THAT(ParseError(above.bytes()), HasSubstr("is 131072, more than the 65536"));
}

TEST(GgufCrafted, TensorOffsets) {
  GgufBuilder unaligned;
  unaligned.Preamble(1, 0).Str("t").U32(1).I64(4).U32(0);
  const uint64_t offset_at = unaligned.pos();
  unaligned.U64(16).PadTo(32).Zeros(64);
  EXPECT_EQ(ParseError(unaligned.bytes()), "tensor #0 ('t'): data offset 16 at byte " + std::to_string(offset_at) +
                                               " is not a multiple of the alignment 32");
  GgufBuilder past_end;
  past_end.Preamble(1, 0).Tensor("blk.3.attn_q.weight", {1024}, 0, 4096).PadTo(32).Zeros(4096);
  EXPECT_EQ(ParseError(past_end.bytes()),
            "tensor 'blk.3.attn_q.weight': data [4192, +4096) runs past end of file (4192 bytes)");
  GgufBuilder overflow;
  overflow.Preamble(1, 0).Tensor("t", {4}, 0, ~uint64_t{0} - 31).PadTo(32);
  EXPECT_EQ(ParseError(overflow.bytes()), "tensor 't': data [2^64+, +16) runs past end of file (64 bytes)");
}

TEST(GgufCrafted, TensorShapes) {
  GgufBuilder dims;
  dims.Preamble(1, 0).Str("t");
  const uint64_t dims_at = dims.pos();
  dims.U32(5).I64(1).I64(1).I64(1).I64(1).I64(1).U32(0).U64(0);
  EXPECT_EQ(ParseError(dims.bytes()),
            "tensor #0 ('t'): n_dims 5 at byte " + std::to_string(dims_at) + " is more than 4");

  GgufBuilder negative;
  negative.Preamble(1, 0).Str("t").U32(2).I64(4);
  const uint64_t ne1_at = negative.pos();
  negative.I64(-3).U32(0).U64(0);
  EXPECT_EQ(ParseError(negative.bytes()),
            "tensor #0 ('t'): ne[1] at byte " + std::to_string(ne1_at) + " is -3, negative");

  GgufBuilder overflow;
  overflow.Preamble(1, 0).Str("t");
  const uint64_t shape_at = overflow.pos() + 4;
  overflow.U32(3).I64(int64_t{1} << 32).I64(int64_t{1} << 30).I64(4).U32(0).U64(0);
  EXPECT_EQ(ParseError(overflow.bytes()), "tensor #0 ('t'): shape {4294967296, 1073741824, 4} at byte " +
                                              std::to_string(shape_at) + " has more than 2^63-1 elements");

  // Elements fit in int64 but bytes do not fit in uint64.
  GgufBuilder bytes_overflow;
  bytes_overflow.Preamble(1, 0).Tensor("t", {int64_t{1} << 62}, 0, 0).PadTo(32);
  EXPECT_EQ(ParseError(bytes_overflow.bytes()),
            "tensor #0 ('t'): shape {4611686018427387904} of type f32 is larger than 2^64 bytes");

  GgufBuilder block;
  block.Preamble(1, 0).Tensor("q", {48, 2}, 8, 0).PadTo(32).Zeros(128);
  EXPECT_EQ(ParseError(block.bytes()), "tensor #0 ('q'): row length 48 is not a multiple of q8_0's block size 32");

  GgufBuilder scalar;  // n_dims 0: one element, as llama.cpp reads it
  scalar.Preamble(1, 0).Tensor("s", {}, 0, 0).PadTo(32).Zeros(32);
  auto header = ParseHeader(scalar.bytes());
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->tensors[0].n_elements, 1);
  EXPECT_EQ(header->tensors[0].n_bytes, 4u);
}

TEST(GgufCrafted, UnknownGgmlTypeAndLongName) {
  GgufBuilder type;
  type.Preamble(1, 0).Str("t").U32(1).I64(32);
  const uint64_t type_at = type.pos();
  type.U32(4).U64(0).PadTo(32).Zeros(64);  // 4 was Q4_2, removed from GGML
  EXPECT_EQ(ParseError(type.bytes()),
            "tensor #0 ('t'): ggml type 4 at byte " + std::to_string(type_at) + " is not a known GGML type");
  GgufBuilder name;
  name.Preamble(1, 0).Tensor(std::string(64, 'x'), {4}, 0, 0).PadTo(32).Zeros(16);
  EXPECT_EQ(ParseError(name.bytes()),
            "tensor #0 ('" + std::string(64, 'x') + "'): name is 64 bytes, longer than llama.cpp's limit of 63");
}

TEST(GgufCrafted, NoTensorsAndNoPadding) {
  // llama.cpp's vocab-only files end right after the metadata, with no padding.
  GgufBuilder b;
  b.Preamble(0, 1).Str("general.name").U32(8).Str("v");
  auto header = ParseHeader(b.bytes());
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->data_offset, 64u);
  EXPECT_EQ(header->file_size, b.pos());
}

TEST(GgufCrafted, NonPrintableNamesAreEscaped) {
  GgufBuilder b;
  b.Preamble(0, 1).Str(std::string("a\nb\x01", 4)).U32(77);
  EXPECT_EQ(ParseError(b.bytes()), "metadata key #0 ('a\\x0ab\\x01'): value type 77 at byte 36 is not a GGUF type (0..12)");
}

}  // namespace
}  // namespace trit::gguf
