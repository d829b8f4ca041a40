// Vectors as JSON (formats/vectors/json_vectors.h) and the sniffing of a
// file's format (formats/vectors/vector_file.h): every accepted layout reads
// to its rows, and every refusal names the element that is wrong.
#include "formats/vectors/json_vectors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/npy/npy_file.h"
#include "formats/vectors/vector_file.h"

namespace trit::vectors {
namespace {

JsonVectors Parse(const std::string& text) {
  Expected<JsonVectors> v = ParseJsonVectors(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().message();
  return v.ok() ? *v : JsonVectors{};
}

std::string ErrorOf(const std::string& text) {
  Expected<JsonVectors> v = ParseJsonVectors(text);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? std::string() : v.status().message();
}

TEST(JsonVectors, OneArrayIsOneRow) {
  const JsonVectors v = Parse("[1, -2.5, 3e-2, 4]");
  EXPECT_EQ(v.layout, "array");
  EXPECT_EQ(v.n_dims, 1);
  EXPECT_EQ(v.n_rows, 1);
  EXPECT_EQ(v.n_cols, 4);
  EXPECT_EQ(v.values, (std::vector<double>{1, -2.5, 0.03, 4}));
}

TEST(JsonVectors, ArrayOfArraysIsRows) {
  const JsonVectors v = Parse("[[1, 2], [3, 4], [5, 6]]");
  EXPECT_EQ(v.layout, "array of arrays");
  EXPECT_EQ(v.n_dims, 2);
  EXPECT_EQ(v.n_rows, 3);
  EXPECT_EQ(v.n_cols, 2);
  EXPECT_EQ(v.values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(JsonVectors, KeyedLayouts) {
  EXPECT_EQ(Parse(R"({"embedding": [1, 2, 3], "model": "m"})").layout, "'embedding': array");
  const JsonVectors e = Parse(R"({"model": "m", "embeddings": [[1, 2], [3, 4]]})");
  EXPECT_EQ(e.layout, "'embeddings': array of arrays");
  EXPECT_EQ(e.n_rows, 2);
  const JsonVectors l = Parse(R"({"logits": [[0.5, 1.5, -1]]})");
  EXPECT_EQ(l.layout, "'logits': array of arrays");
  EXPECT_EQ(l.n_cols, 3);
  EXPECT_EQ(Parse(R"({"data": [1, 2]})").layout, "'data': array");
}

TEST(JsonVectors, OpenAIEmbeddingsResponse) {
  // As /v1/embeddings answers (trit serve's, OpenAI's) and llama-embedding
  // --embd-output-format json prints.
  const JsonVectors v = Parse(R"({"object": "list", "model": "m",
      "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2, 0.3]},
               {"object": "embedding", "index": 1, "embedding": [-1, 0, 1]}],
      "usage": {"prompt_tokens": 4, "total_tokens": 4}})");
  EXPECT_EQ(v.layout, "OpenAI embeddings response");
  EXPECT_EQ(v.n_rows, 2);
  EXPECT_EQ(v.n_cols, 3);
  EXPECT_EQ(v.values, (std::vector<double>{0.1, 0.2, 0.3, -1, 0, 1}));
}

TEST(JsonVectors, RefusalsNameTheElement) {
  EXPECT_EQ(ErrorOf("[[1, 2], [3]]"), "JSON [1] has 1 number; the rows before it have 2");
  EXPECT_EQ(ErrorOf("[[1, 2], [3, \"x\"]]"), "JSON [1][1] is a string, not a number");
  EXPECT_EQ(ErrorOf("[1, null]"), "JSON [1] is null, not a number");
  EXPECT_EQ(ErrorOf("[[1], 2]"), "JSON [1] is a number, not an array of numbers");
  EXPECT_EQ(ErrorOf("[]"), "JSON the top-level array is an empty array: no vectors");
  EXPECT_EQ(ErrorOf("[[]]"), "JSON [0] is an empty array");
  EXPECT_EQ(ErrorOf("[true]"), "JSON [0] is a boolean: expected numbers (one vector) or arrays of numbers (rows)");
  EXPECT_EQ(ErrorOf("{\"logits\": {\"a\": 1}}"), "JSON logits is an object, not an array");
  EXPECT_EQ(ErrorOf("{\"logits\": [[1], [2, 3]]}"), "JSON logits[1] has 2 numbers; the rows before it have 1");
  EXPECT_EQ(ErrorOf("{\"data\": [{\"embedding\": [1, 2]}, {\"embedding\": [1, \"2\"]}]}"),
            "JSON data[1].embedding[1] is a string, not a number");
  EXPECT_EQ(ErrorOf("{\"data\": [{\"embedding\": \"AACAPwAAAEA=\"}]}"),
            "JSON data[0].embedding is a string (a base64 embedding?); trit compares arrays of numbers: ask for "
            "encoding_format \"float\"");
  EXPECT_EQ(ErrorOf("{\"data\": [{\"index\": 0}]}"), "JSON data[0] is not an object holding \"embedding\"");
  EXPECT_EQ(ErrorOf("{\"embedding\": [1], \"logits\": [2]}"),
            "JSON object holds both \"embedding\" and \"logits\"; keep the one with the vectors");
  EXPECT_EQ(ErrorOf("{\"vectors\": [1], \"model\": \"m\"}"),
            "JSON object holds none of \"data\", \"embeddings\", \"embedding\", \"logits\" (its keys: \"model\", "
            "\"vectors\")");
  EXPECT_EQ(ErrorOf("{}"),
            "JSON object holds none of \"data\", \"embeddings\", \"embedding\", \"logits\" (its keys: none)");
  EXPECT_EQ(ErrorOf("3"), "JSON document is a number, not an array");
}

TEST(JsonVectors, InvalidJsonAndNaN) {
  EXPECT_EQ(ErrorOf("[1, 2").substr(0, 15), "not valid JSON:");
  const std::string nan = ErrorOf("[1, NaN]");
  EXPECT_NE(nan.find("JSON has no NaN or Infinity; save .npy to compare such values"), std::string::npos) << nan;
  EXPECT_NE(ErrorOf("[Infinity]").find("JSON has no NaN or Infinity"), std::string::npos);
  EXPECT_NE(ErrorOf("[[1], [-Infinity]]").find("JSON has no NaN or Infinity"), std::string::npos);
  EXPECT_EQ(ErrorOf("[1, x]").find("NaN"), std::string::npos);
}

TEST(JsonVectors, NumberBeyondDoubleIsAnErrorNotACrash) {
  // nlohmann's parser throws out_of_range for these (npy_reader_fuzz's first finding).
  EXPECT_EQ(ErrorOf("[0.5, 1e400]"),
            "not valid JSON: number overflow parsing '1e400' (beyond the range of a double)");
  EXPECT_EQ(ErrorOf("{\"logits\": [[-9223371e3083720368547758072]]}"),
            "not valid JSON: number overflow parsing '-9223371e3083720368547758072' (beyond the range of a double)");
}

TEST(JsonVectors, NestingIsBoundedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(ErrorOf(deep),
            "JSON nests deeper than 8 levels; a file of vectors is an array of numbers or of arrays of numbers");
  EXPECT_NE(ErrorOf("[[[1]]]").find("JSON [0][0] is an array, not a number"), std::string::npos);
}

std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

TEST(VectorFile, FormatIsSniffedFromTheBytes) {
  Expected<VectorTable> npy = ParseVectorFile(npy::EncodeF32(2, 2, std::vector<float>{1, 2, 3, 4}));
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  EXPECT_EQ(npy->format, VectorFormat::kNpy);
  EXPECT_EQ(npy->detail, "npy 1.0, <f4");
  EXPECT_EQ(npy->ShapeText(), "(2, 2)");
  EXPECT_EQ(npy->values, (std::vector<double>{1, 2, 3, 4}));

  // A byte order mark and whitespace before the JSON are allowed.
  Expected<VectorTable> json = ParseVectorFile(Bytes("\xef\xbb\xbf \n [1, 2, 3]\n"));
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(json->format, VectorFormat::kJson);
  EXPECT_EQ(json->detail, "JSON, array");
  EXPECT_EQ(json->ShapeText(), "(3,)");
  EXPECT_EQ(json->n_rows, 1);
  Expected<VectorTable> rows = ParseVectorFile(Bytes("[[1], [2]]"));
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->ShapeText(), "(2, 1)");
}

TEST(VectorFile, NeitherFormatIsRefusedNamingTheByte) {
  Expected<VectorTable> text = ParseVectorFile(Bytes("  1 2 3"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "neither .npy (no \\x93NUMPY magic) nor JSON (no '[' or '{' first): byte 2 is 0x31");
  Expected<VectorTable> empty = ParseVectorFile({});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "the file is empty: expected .npy or JSON");
  Expected<VectorTable> blank = ParseVectorFile(Bytes(" \n"));
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.status().message(), "the file is empty but for whitespace: expected .npy or JSON");
  // A first byte of 0x93 is read as .npy, and refused as .npy.
  Expected<VectorTable> broken = ParseVectorFile(Bytes("\x93NUMPX"));
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message(), "not an .npy file: the first 6 bytes are not the magic \\x93NUMPY");
}

TEST(VectorFile, ReadVectorFileNamesThePath) {
  const std::string path = ::testing::TempDir() + "vectors_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << "[[1, 2], [3]]";
  Expected<VectorTable> t = ReadVectorFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), path + ": JSON [1] has 1 number; the rows before it have 2");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace trit::vectors
