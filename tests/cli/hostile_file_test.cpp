// Corrupt and truncated model files given to `trit show`: each ends with a
// clear error and exit code 1, or still reads as a valid file; never a signal,
// a hang or (in the sanitizer build) a sanitizer report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

std::vector<char> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteAll(const std::string& path, const char* data, size_t n) {
  std::ofstream(path, std::ios::binary).write(data, static_cast<std::streamsize>(n));
}

class HostileFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("trit-hostile");
    original_ = ReadAll(BundledModelPath());
    ASSERT_EQ(original_.size(), 1185376u);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string dir_;
  std::vector<char> original_;
};

TEST_F(HostileFileTest, HundredTruncationsEachFailClearly) {
  // Cuts spread over the header (dense) and the tensor data (sparse).
  std::vector<size_t> cuts;
  for (size_t i = 0; i < 60; ++i) cuts.push_back(i * 14176 / 60);
  for (size_t i = 0; i < 40; ++i) cuts.push_back(14176 + (i + 1) * (original_.size() - 14176) / 41);
  ASSERT_EQ(cuts.size(), 100u);
  const std::string path = dir_ + "/truncated.gguf";
  for (size_t cut : cuts) {
    WriteAll(path, original_.data(), cut);
    RunResult r = RunTrit({"show", path}, 30);
    ASSERT_FALSE(r.signaled) << "signal " << r.signal << " at cut " << cut << "\n" << r.err;
    EXPECT_EQ(r.exit_code, 1) << "cut " << cut;
    EXPECT_NE(r.err.find("trit: error: " + path), std::string::npos) << "cut " << cut << ": " << r.err;
    // The message says where: a byte offset, or the end of the file.
    EXPECT_TRUE(r.err.find("byte") != std::string::npos || r.err.find("end of file") != std::string::npos)
        << "cut " << cut << ": " << r.err;
  }
}

TEST_F(HostileFileTest, HundredHeaderCorruptionsNeverCrash) {
  std::mt19937 rng(20261130);
  std::uniform_int_distribution<size_t> pos(0, 14175);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string path = dir_ + "/corrupt.gguf";
  int failed = 0;
  for (int i = 0; i < 100; ++i) {
    std::vector<char> bytes = original_;
    const int n_flips = 1 + i % 4;
    for (int k = 0; k < n_flips; ++k) bytes[pos(rng)] = static_cast<char>(byte(rng));
    WriteAll(path, bytes.data(), bytes.size());
    RunResult r = RunTrit({"show", path, "--json"}, 30);
    ASSERT_FALSE(r.signaled) << "signal " << r.signal << " on corruption " << i << "\n" << r.err;
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "corruption " << i << " exit " << r.exit_code;
    if (r.exit_code == 1) {
      ++failed;
      EXPECT_NE(r.err.find("trit: error: "), std::string::npos) << r.err;
    } else {
      EXPECT_TRUE(r.err.empty()) << r.err;
    }
  }
  // Most random header corruptions hit string lengths, counts and types.
  EXPECT_GT(failed, 10);
}

}  // namespace
}  // namespace trit::testing
