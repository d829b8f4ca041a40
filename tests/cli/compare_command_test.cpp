// `trit compare A B` end to end, as a user runs it: .npy and JSON told apart
// by their bytes, the totals and --json fields, tolerances that fail naming
// the tolerance, the row and the value (exit 1), files that cannot be read
// (exit 1, named) and wrong command lines (exit 2).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_trit.h"
#include "formats/npy/npy_file.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

// Three rows of four: B is A with row 1 nudged (0.01 in column 2) and row 2's
// largest logit moved from column 3 to column 0.
const std::vector<float> kA = {1, 2, 3, 4, -1, 0.5f, 0.25f, 2, 0.1f, 0.2f, 0.3f, 0.4f};
const std::vector<float> kB = {1, 2, 3, 4, -1, 0.5f, 0.26f, 2, 0.5f, 0.2f, 0.3f, 0.4f};

class CompareCommand : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-compare"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Npy(const std::string& name, const std::vector<float>& v, int64_t rows = 3, int64_t cols = 4) {
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(npy::WriteF32File(path, rows, cols, v).ok());
    return path;
  }
  std::string Text(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

nlohmann::json Json(const RunResult& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << r.err;
  return j;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(CompareCommand, IdenticalFilesAgreeEverywhere) {
  const std::string a = Npy("a.npy", kA);
  const RunResult r = RunTrit({"compare", a, a, "--min-cos", "1", "--max-abs", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "3 rows x 4 columns")) << r.out;
  EXPECT_TRUE(Has(r.out, "cosine    min 1.00000000 (row 0), mean 1.00000000")) << r.out;
  EXPECT_TRUE(Has(r.out, "abs diff  max 0.000e+00")) << r.out;
  EXPECT_TRUE(Has(r.out, "argmax    the same in 3 of 3 rows\n")) << r.out;
  EXPECT_TRUE(Has(r.out, "within --min-cos 1 and --max-abs 0")) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(CompareCommand, JsonFields) {
  const RunResult r = RunTrit({"compare", Npy("a.npy", kA), Npy("b.npy", kB), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["a"]["format"], "npy");
  EXPECT_EQ(j["a"]["detail"], "npy 1.0, <f4");
  EXPECT_EQ(j["a"]["shape"], nlohmann::json::array({3, 4}));
  EXPECT_EQ(j["rows"], 3);
  EXPECT_EQ(j["columns"], 4);
  EXPECT_EQ(j["min_cosine_row"], 2);
  EXPECT_LT(j["min_cosine"].get<double>(), 0.99);
  EXPECT_EQ(j["max_abs_row"], 2);
  EXPECT_EQ(j["max_abs_column"], 0);
  EXPECT_NEAR(j["max_abs"].get<double>(), 0.4, 1e-6);
  EXPECT_EQ(j["argmax_agree"], 2);
  EXPECT_EQ(j["argmax_differ_rows"], nlohmann::json::array({2}));
  EXPECT_EQ(j["non_finite_rows"], 0);
  EXPECT_TRUE(j["tolerances"]["min_cos"].is_null());
  EXPECT_TRUE(j["within_tolerances"].get<bool>());
  EXPECT_TRUE(j["failures"].empty());
  ASSERT_EQ(j["worst_rows"].size(), 3u);
  EXPECT_EQ(j["worst_rows"][0]["row"], 2);
  EXPECT_EQ(j["worst_rows"][0]["argmax_a"], 3);
  EXPECT_EQ(j["worst_rows"][0]["argmax_b"], 0);
  EXPECT_FALSE(j["worst_rows"][0]["argmax_agree"].get<bool>());
  EXPECT_TRUE(j["worst_rows"][0]["non_finite"].is_null());
  EXPECT_FALSE(j.contains("per_row"));

  const nlohmann::json all = Json(RunTrit({"compare", dir_ + "/a.npy", dir_ + "/b.npy", "--json", "--rows"}));
  ASSERT_EQ(all["per_row"].size(), 3u);
  EXPECT_EQ(all["per_row"][1]["row"], 1);
  EXPECT_NEAR(all["per_row"][1]["max_abs"].get<double>(), 0.01, 1e-6);
  EXPECT_EQ(all["per_row"][1]["max_abs_column"], 2);
}

TEST_F(CompareCommand, TextNamesTheRowsWhoseArgmaxDiffers) {
  const RunResult r = RunTrit({"compare", Npy("a.npy", kA), Npy("b.npy", kB)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "argmax    the same in 2 of 3 rows; differ: row 2\n")) << r.out;
  // Many rows that differ: the first five are named.
  std::vector<float> up(8 * 2), down(8 * 2);
  for (size_t i = 0; i < up.size(); i += 2) {
    up[i] = down[i + 1] = 1.0f;
  }
  const RunResult many = RunTrit({"compare", Npy("up.npy", up, 8, 2), Npy("down.npy", down, 8, 2)});
  EXPECT_TRUE(Has(many.out, "argmax    the same in 0 of 8 rows; differ: rows 0, 1, 2, 3, 4 and 3 more\n")) << many.out;
}

TEST_F(CompareCommand, MinCosFailureNamesTheRowAndValue) {
  // Row 1's cosine is 0.99999071, row 2's 0.84473680: both below 0.999995, row 2 named as the worst.
  const RunResult r = RunTrit({"compare", Npy("a.npy", kA), Npy("b.npy", kB), "--min-cos", "0.999995"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "trit: error: beyond --min-cos 0.999995: row 2 has cosine 0.84473680")) << r.err;
  EXPECT_TRUE(Has(r.err, "(2 of 3 rows beyond it)")) << r.err;
  EXPECT_TRUE(Has(r.out, "worst 3 rows:")) << r.out;  // the report still prints

  const nlohmann::json j =
      Json(RunTrit({"compare", dir_ + "/a.npy", dir_ + "/b.npy", "--min-cos", "0.999995", "--json"}));
  EXPECT_FALSE(j["within_tolerances"].get<bool>());
  ASSERT_EQ(j["failures"].size(), 2u);
  EXPECT_EQ(j["failures"][0]["tolerance"], "min-cos");
  EXPECT_EQ(j["failures"][0]["row"], 1);
  EXPECT_EQ(j["failures"][0]["limit"], 0.999995);
  EXPECT_EQ(RunTrit({"compare", dir_ + "/a.npy", dir_ + "/b.npy", "--min-cos", "0.9999"}).exit_code, 1);  // row 2 only
  EXPECT_EQ(RunTrit({"compare", dir_ + "/a.npy", dir_ + "/b.npy", "--min-cos", "0.8"}).exit_code, 0);
  EXPECT_EQ(j["failures"][1]["row"], 2);
}

TEST_F(CompareCommand, MaxAbsFailureNamesTheRowAndColumn) {
  const RunResult r = RunTrit({"compare", Npy("a.npy", kA), Npy("b.npy", kB), "--max-abs", "0.001"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "beyond --max-abs 0.001: row 2 differs by 0.4 at column 0 (2 of 3 rows beyond it)"))
      << r.err;
  EXPECT_FALSE(Has(r.err, "--min-cos"));
  EXPECT_EQ(RunTrit({"compare", dir_ + "/a.npy", dir_ + "/b.npy", "--max-abs", "0.5"}).exit_code, 0);
}

// kA as /v1/embeddings answers: {"data": [{"embedding": [...]}, ...]}.
std::string EmbeddingsResponse(const std::vector<float>& v, int64_t rows, int64_t cols) {
  nlohmann::json data = nlohmann::json::array();
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<double> row(v.begin() + i * cols, v.begin() + (i + 1) * cols);
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", row}});
  }
  return nlohmann::json({{"object", "list"}, {"model", "m"}, {"data", data}}).dump();
}

TEST_F(CompareCommand, FormatIsSniffedNotTakenFromTheName) {
  const std::string npy = Npy("really-npy.json", kA);
  const std::string json = Text("really-json.npy", EmbeddingsResponse(kA, 3, 4));
  const RunResult r = RunTrit({"compare", npy, json, "--max-abs", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "A  " + npy + ": npy 1.0, <f4, shape (3, 4)")) << r.out;
  EXPECT_TRUE(Has(r.out, "B  " + json + ": JSON, OpenAI embeddings response, shape (3, 4)")) << r.out;
}

TEST_F(CompareCommand, OneVectorAgainstOneRow) {
  // A shape (n,) is one row: it compares with (1, n).
  const std::string flat = Text("flat.json", "[1, 2, 3, 4]");
  const std::string row = Npy("row.npy", {1, 2, 3, 4}, 1, 4);
  const RunResult r = RunTrit({"compare", flat, row, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["a"]["shape"], nlohmann::json::array({4}));
  EXPECT_EQ(j["b"]["shape"], nlohmann::json::array({1, 4}));
  EXPECT_EQ(j["max_abs"], 0.0);
}

TEST_F(CompareCommand, NonFiniteRowsFailEveryTolerance) {
  std::vector<float> b = kA;
  b[5] = NAN;
  const std::string fa = Npy("a.npy", kA);
  const std::string fb = Npy("nan.npy", b);
  const RunResult report = RunTrit({"compare", fa, fb});
  EXPECT_EQ(report.exit_code, 0) << report.err;  // no tolerance given: a report only
  EXPECT_TRUE(Has(report.out, "non-finite 1 row (NaN or infinity), left out of the figures above")) << report.out;
  EXPECT_TRUE(Has(report.out, "(B column 1 is nan)")) << report.out;

  const RunResult r = RunTrit({"compare", fa, fb, "--min-cos", "-1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r.err, "beyond --min-cos -1: row 1 holds a non-finite value (B column 1 is nan) (1 of 3 rows "
                         "beyond it)")) << r.err;
  const nlohmann::json j = Json(RunTrit({"compare", fa, fb, "--json", "--max-abs", "100"}));
  EXPECT_EQ(j["non_finite_rows"], 1);
  EXPECT_EQ(j["failures"][0]["row"], 1);
  EXPECT_TRUE(j["failures"][0]["value"].is_null());
  EXPECT_EQ(j["worst_rows"][0]["non_finite"], "B column 1 is nan");
}

TEST_F(CompareCommand, RowsPrintsEveryRow) {
  std::vector<float> many(40 * 2, 1.0f);
  const std::string f = Npy("many.npy", many, 40, 2);
  const RunResult worst = RunTrit({"compare", f, f});
  EXPECT_TRUE(Has(worst.out, "worst 5 rows:")) << worst.out;
  const RunResult all = RunTrit({"compare", f, f, "--rows"});
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_TRUE(Has(all.out, "rows:\n")) << all.out;
  EXPECT_TRUE(Has(all.out, "\n      39  ")) << all.out;
}

TEST_F(CompareCommand, ShapesThatDifferAreNamedWithTheirFiles) {
  const std::string a = Npy("a.npy", kA);
  const std::string b = Npy("b.npy", kA, 4, 3);
  const RunResult r = RunTrit({"compare", a, b});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "trit: error: shapes differ: A (" + a + ") is (3, 4) (3 rows x 4 columns), B (" + b +
                       ") is (4, 3) (4 rows x 3 columns)\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(CompareCommand, EmptyArraysAreNamed) {
  const std::string a = Npy("empty-a.npy", {}, 0, 4);
  const std::string b = Npy("empty-b.npy", {}, 0, 4);
  const RunResult r = RunTrit({"compare", a, b, "--min-cos", "0.5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "trit: error: nothing to compare: A (" + a + ") holds no values, shape (0, 4)\n");
}

TEST_F(CompareCommand, UnreadableFilesAreNamedWithWhatIsWrong) {
  const std::string a = Npy("a.npy", kA);
  const RunResult missing = RunTrit({"compare", a, dir_ + "/none.npy"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(Has(missing.err, dir_ + "/none.npy: cannot open")) << missing.err;

  const std::string text = Text("b.txt", "1 2 3\n");
  const RunResult neither = RunTrit({"compare", text, a});
  EXPECT_EQ(neither.exit_code, 1);
  EXPECT_EQ(neither.err, "trit: error: " + text +
                             ": neither .npy (no \\x93NUMPY magic) nor JSON (no '[' or '{' first): byte 0 is 0x31\n");

  const std::string ragged = Text("ragged.json", "[[1, 2, 3, 4], [1, 2, 3]]");
  const RunResult r = RunTrit({"compare", a, ragged});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "trit: error: " + ragged + ": JSON [1] has 3 numbers; the rows before it have 4\n");

  std::ifstream in(a, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = Text("cut.npy", bytes.substr(0, bytes.size() - 4));
  const RunResult truncated = RunTrit({"compare", cut, a});
  EXPECT_EQ(truncated.exit_code, 1);
  EXPECT_TRUE(Has(truncated.err, cut + ": npy data is 44 bytes after the 128-byte header; shape (3, 4) of '<f4' "
                                       "needs 48 (the file is truncated)")) << truncated.err;
}

TEST_F(CompareCommand, WrongCommandLinesExitTwo) {
  const std::string a = Npy("a.npy", kA);
  EXPECT_EQ(RunTrit({"compare", a}).exit_code, 2);
  EXPECT_EQ(RunTrit({"compare", a, a, "--min-cos", "1.5"}).exit_code, 2);
  EXPECT_EQ(RunTrit({"compare", a, a, "--min-cos", "x"}).exit_code, 2);
  EXPECT_EQ(RunTrit({"compare", a, a, "--max-abs", "-1"}).exit_code, 2);
  EXPECT_EQ(RunTrit({"compare", a, a, "--tolerance", "1"}).exit_code, 2);
}

TEST_F(CompareCommand, HelpTeachesWithExamples) {
  const RunResult r = RunTrit({"compare", "--help"});
  ASSERT_EQ(r.exit_code, 0);
  for (const char* part : {"--min-cos", "--max-abs", "--rows", "--json", "two machines", "llama.cpp", "two builds",
                           "zero row", "NaN", "docs/COMPARE.md"}) {
    EXPECT_TRUE(Has(r.out, part)) << part;
  }
}

}  // namespace
}  // namespace trit::testing
