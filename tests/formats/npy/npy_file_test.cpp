// .npy files (formats/npy/npy_file.h): trit's float32 files read back to the
// same values; headers laid out as numpy writes them (1.0, 2.0 and 3.0,
// float16/32/64, one and two dimensions) read to the right shape and values;
// every refusal names what is wrong. tests/python/npy_compare_test.py checks
// the same against numpy itself.
#include "formats/npy/npy_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/half.h"

namespace trit::npy {
namespace {

// Bytes of `head` then `data`, built as a string first: GCC 12 warns
// (wrongly) about inserting into a small vector of bytes at -O3.
std::vector<uint8_t> Concat(const std::string& head, const std::vector<uint8_t>& data) {
  std::string all = head;
  for (uint8_t b : data) all += static_cast<char>(b);
  return std::vector<uint8_t>(all.begin(), all.end());
}

// An .npy file as numpy lays it out: magic, version, HEADER_LEN, `dict`
// padded with spaces and '\n' to a multiple of 64, then `data`.
std::vector<uint8_t> NpyBytes(int major, const std::string& dict, const std::vector<uint8_t>& data) {
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t preamble = 8 + length_bytes;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string head = "\x93NUMPY";
  head += static_cast<char>(major);
  head += '\0';
  for (size_t i = 0; i < length_bytes; ++i) head += static_cast<char>(header.size() >> (8 * i));
  return Concat(head + header, data);
}

// A 1.0 file whose header is `dict` alone: no padding, no newline.
std::vector<uint8_t> Unpadded(const std::string& dict, const std::vector<uint8_t>& data) {
  std::string head = "\x93NUMPY\x01";
  head += '\0';
  head += static_cast<char>(dict.size());
  head += '\0';
  return Concat(head + dict, data);
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string Dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

std::string ErrorOf(const std::vector<uint8_t>& bytes) {
  Expected<Array> a = ReadArray(bytes);
  EXPECT_FALSE(a.ok());
  return a.ok() ? std::string() : a.status().message();
}

const std::vector<float> kSix = {1.5f, -2.0f, 0.0f, 3.25f, -0.125f, 1e-3f};

TEST(NpyFile, F32RoundTripKeepsShapeAndValues) {
  const std::vector<uint8_t> bytes = EncodeF32(2, 3, kSix);
  EXPECT_EQ(bytes.size() % 4, 0u);
  Expected<Array> a = ReadArray(bytes);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->header.major, 1);
  EXPECT_EQ(a->header.dtype, Dtype::kF32);
  EXPECT_EQ(a->header.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->header.data_offset % 64, 0u);
  EXPECT_EQ(a->n_rows, 2);
  EXPECT_EQ(a->n_cols, 3);
  ASSERT_EQ(a->values.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(a->values[i], static_cast<double>(kSix[i])) << i;
}

TEST(NpyFile, WrittenHeaderIsNumpysByteForByte) {
  // numpy 2.4: np.save(f, np.zeros((2, 3), np.float32)) writes this header
  // (118 bytes of dict and padding: 21 - len("2") growth spaces, then padding).
  const std::vector<uint8_t> bytes = EncodeF32(2, 3, std::vector<float>(6, 0.0f));
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes[8], 0x76);  // HEADER_LEN 118
  EXPECT_EQ(bytes[9], 0x00);
  const std::string header(bytes.begin() + 10, bytes.begin() + 128);
  EXPECT_EQ(header.substr(0, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.find_first_not_of(' ', 59), header.size() - 1);
}

TEST(NpyFile, EmptyAndLargeShapesEncode) {
  Expected<Array> empty = ReadArray(EncodeF32(0, 4, {}));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->header.ShapeText(), "(0, 4)");
  EXPECT_TRUE(empty->values.empty());
  std::vector<float> big(123456 * 2, 0.5f);
  Expected<Array> a = ReadArray(EncodeF32(123456, 2, big));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->n_rows, 123456);
  EXPECT_EQ(a->header.data_offset % 64, 0u);
}

TEST(NpyFile, WriteF32FileWritesTheEncodedBytes) {
  const std::string path = ::testing::TempDir() + "npy_write_" + std::to_string(getpid()) + ".npy";
  ASSERT_TRUE(WriteF32File(path, 3, 2, kSix).ok());
  Expected<Array> a = ReadArrayFile(path);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->header.ShapeText(), "(3, 2)");
  EXPECT_EQ(a->values[3], 3.25);
  std::filesystem::remove(path);
  EXPECT_NE(WriteF32File("/nonexistent-dir/x.npy", 1, 1, std::vector<float>{1.0f}).message(), "");
}

TEST(NpyFile, ReadsF16F64OneDimensionAndEveryVersion) {
  const std::vector<uint16_t> halves = {FloatToHalf(1.5f), FloatToHalf(-0.25f), FloatToHalf(65504.0f)};
  Expected<Array> h = ReadArray(NpyBytes(1, Dict("<f2", "(3,)"), Bytes(halves)));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->n_rows, 1);
  EXPECT_EQ(h->n_cols, 3);
  EXPECT_EQ(h->header.ShapeText(), "(3,)");
  EXPECT_EQ(h->values, (std::vector<double>{1.5, -0.25, 65504.0}));

  const std::vector<double> doubles = {0.1, 1e300, -2.0, 4.0};
  for (int major : {1, 2, 3}) {
    Expected<Array> d = ReadArray(NpyBytes(major, Dict("<f8", "(2, 2)"), Bytes(doubles)));
    ASSERT_TRUE(d.ok()) << major << ": " << d.status().message();
    EXPECT_EQ(d->header.major, major);
    EXPECT_EQ(d->values, doubles);
  }
}

TEST(NpyFile, HeaderSyntaxPythonAllows) {
  // Keys in any order, double quotes, no trailing comma, spaces anywhere,
  // a trailing comma in the shape, no padding at all.
  const std::vector<uint8_t> data = Bytes(std::vector<float>{1, 2});
  for (const std::string dict : {
           "{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"<f4\"}",
           "{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 1 , 2 , ) }",
           "{'descr':'<f4','fortran_order':False,'shape':(2,)}",
       }) {
    Expected<Array> a = ReadArray(NpyBytes(1, dict, data));
    EXPECT_TRUE(a.ok()) << dict << ": " << a.status().message();
  }
  EXPECT_TRUE(ReadArray(Unpadded("{'descr':'<f4','fortran_order':False,'shape':(2,)}", data)).ok());
}

TEST(NpyFile, PreambleRefusals) {
  EXPECT_EQ(ErrorOf({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}),
            "not an .npy file: the first 6 bytes are not the magic \\x93NUMPY");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U'}), "npy file of 3 bytes ends inside its 6-byte magic");
  EXPECT_EQ(ErrorOf({}), "npy file of 0 bytes ends inside its 6-byte magic");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 1}), "npy file of 7 bytes ends before its version");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 4, 0, 0, 0}),
            "npy version 4.0 is not one trit reads (1.0, 2.0 or 3.0)");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 1, 0, 0}),
            "npy version 1.1 is not one trit reads (1.0, 2.0 or 3.0)");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0}),
            "npy file of 10 bytes ends inside its 12-byte preamble");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xff, 0xff, '{', '}'}),
            "npy header length 65535 runs past the end of the file (2 bytes follow the 10-byte preamble)");
  EXPECT_EQ(ErrorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 3, 0, 0xff, 0xff, 0xff, 0xff, '{'}),
            "npy header length 4294967295 runs past the end of the file (1 bytes follow the 12-byte preamble)");
}

TEST(NpyFile, MalformedDictsAreRefusedWithTheByte) {
  const std::vector<uint8_t> data;
  auto error = [&](const std::string& dict) { return ErrorOf(NpyBytes(1, dict, data)); };
  EXPECT_EQ(error("['descr']").substr(0, 74),
            "npy header: malformed dict at header byte 0: expected '{' opening the dict");
  EXPECT_NE(error("{'descr' '<f4'}").find("at header byte 9: expected ':' after key 'descr'"), std::string::npos);
  EXPECT_NE(error("{'descr': '<f4' 'shape': (1,)}").find("expected ',' or '}' after a value"), std::string::npos);
  EXPECT_NE(error("{'descr': '<f4").find("a string runs past the end of its line"), std::string::npos);
  EXPECT_NE(ErrorOf(Unpadded("{'descr': '<f4", {})).find("a string is not closed"), std::string::npos);
  EXPECT_NE(error("{'descr': 'a\\'b'}").find("escape sequence"), std::string::npos);
  EXPECT_NE(error("{descr: '<f4'}").find("expected a quoted string as a key"), std::string::npos);
  EXPECT_NE(error("{'descr': None}").find("the value of 'descr' is not a string, True, False or a tuple"),
            std::string::npos);
  EXPECT_NE(error("{'shape': (1, 2}").find("expected ',' or ')' in a tuple"), std::string::npos);
  EXPECT_NE(error("{'shape': (5)}").find("a one-element tuple needs its comma, as in (5,)"), std::string::npos);
  EXPECT_NE(error("{'shape': (-1,)}").find("a negative dimension"), std::string::npos);
  EXPECT_NE(error("{'shape': (99999999999999999999,)}").find("a dimension beyond 2^63 - 1"), std::string::npos);
  EXPECT_NE(error("{'shape': (1,)} x").find("unexpected text after the dict's '}'"), std::string::npos);
  // The header is shown, non-printable bytes escaped.
  EXPECT_NE(error("{\x01}").find("(header: {\\x01}"), std::string::npos);
}

TEST(NpyFile, KeysAreCheckedByName) {
  const std::vector<uint8_t> data;
  auto error = [&](const std::string& dict) { return ErrorOf(NpyBytes(1, dict, data)); };
  EXPECT_EQ(error("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': True}"),
            "npy header: unknown key 'extra' (an .npy header has 'descr', 'fortran_order' and 'shape')");
  EXPECT_EQ(error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"),
            "npy header: key 'descr' appears twice");
  EXPECT_EQ(error("{'descr': '<f4', 'shape': (1,)}"), "npy header: no 'fortran_order' key");
  EXPECT_EQ(error("{'descr': '<f4', 'fortran_order': False}"), "npy header: no 'shape' key");
  EXPECT_EQ(error("{'fortran_order': False, 'shape': (1,)}"), "npy header: no 'descr' key");
  EXPECT_EQ(error("{'descr': True, 'fortran_order': False, 'shape': (1,)}"), "npy header: 'descr' is not a string");
  EXPECT_EQ(error("{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,)}"),
            "npy header: 'fortran_order' is not True or False");
  EXPECT_EQ(error("{'descr': '<f4', 'fortran_order': False, 'shape': '1'}"), "npy header: 'shape' is not a tuple");
}

TEST(NpyFile, TypesOrdersAndShapesBeyondTritAreRefusedByName) {
  const std::vector<uint8_t> data;
  auto error = [&](const std::string& dict) { return ErrorOf(NpyBytes(1, dict, data)); };
  EXPECT_EQ(error(Dict("<f4", "(2, 3)", "True")),
            "npy header: 'fortran_order' is True (column-major data); trit reads C order (save "
            "np.ascontiguousarray(a))");
  EXPECT_EQ(error(Dict(">f4", "(1,)")),
            "npy header: 'descr' '>f4' is big-endian; trit reads little-endian '<f2', '<f4' or '<f8' (save "
            "a.astype('<f4'))");
  EXPECT_EQ(error(Dict("<i4", "(1,)")),
            "npy header: 'descr' '<i4' is an integer or boolean type; trit compares floating-point arrays, '<f2', "
            "'<f4' or '<f8' (save a.astype(np.float32))");
  EXPECT_NE(error(Dict("|u1", "(1,)")).find("'|u1' is an integer or boolean type"), std::string::npos);
  EXPECT_NE(error(Dict("|b1", "(1,)")).find("'|b1' is an integer or boolean type"), std::string::npos);
  EXPECT_EQ(error(Dict("<c8", "(1,)")), "npy header: 'descr' '<c8' is not a type trit reads ('<f2', '<f4' or '<f8')");
  EXPECT_EQ(error("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,)}"),
            "npy header: 'descr' is a list, a structured type; trit reads '<f2', '<f4' or '<f8'");
  EXPECT_EQ(error(Dict("<f4", "()")),
            "npy header: shape () has 0 dimensions; trit reads one vector (n,) or rows of vectors (rows, columns)");
  EXPECT_EQ(error(Dict("<f4", "(2, 3, 4)")),
            "npy header: shape (2, 3, 4) has 3 dimensions; trit reads one vector (n,) or rows of vectors (rows, "
            "columns)");
  EXPECT_EQ(error(Dict("<f8", "(4294967296, 4294967296)")),
            "npy header: shape (4294967296, 4294967296) of '<f8' would hold more than 2^63 bytes");
  EXPECT_EQ(error(Dict("<f4", "(9223372036854775807,)")),
            "npy header: shape (9223372036854775807,) of '<f4' would hold more than 2^63 bytes");
}

TEST(NpyFile, DataSizeMustMatchTheShape) {
  const std::vector<uint8_t> five = Bytes(std::vector<float>{1, 2, 3, 4, 5});
  EXPECT_EQ(ErrorOf(NpyBytes(1, Dict("<f4", "(2, 3)"), five)),
            "npy data is 20 bytes after the 128-byte header; shape (2, 3) of '<f4' needs 24 (the file is truncated)");
  const std::vector<uint8_t> seven = Bytes(std::vector<float>{1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(ErrorOf(NpyBytes(1, Dict("<f4", "(2, 3)"), seven)),
            "npy data is 28 bytes after the 128-byte header; shape (2, 3) of '<f4' needs 24");
  // A header alone parses: ParseHeader does not look at the data.
  Expected<Header> h = ParseHeader(NpyBytes(1, Dict("<f4", "(2, 3)"), {}));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->data_bytes, 24u);
}

TEST(NpyFile, NonFiniteValuesReadAsThemselves) {
  const std::vector<float> odd = {NAN, INFINITY, -INFINITY, -0.0f};
  Expected<Array> a = ReadArray(EncodeF32(1, 4, odd));
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(std::isnan(a->values[0]));
  EXPECT_EQ(a->values[1], INFINITY);
  EXPECT_EQ(a->values[2], -INFINITY);
  EXPECT_TRUE(std::signbit(a->values[3]));
}

TEST(NpyFile, ReadArrayFileNamesThePath) {
  Expected<Array> missing = ReadArrayFile("/nonexistent/x.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/x.npy"), std::string::npos);
  const std::string path = ::testing::TempDir() + "npy_bad_" + std::to_string(getpid()) + ".npy";
  std::ofstream(path) << "not numpy";
  Expected<Array> bad = ReadArrayFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), path + ": not an .npy file: the first 6 bytes are not the magic \\x93NUMPY");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace trit::npy
