// Formats are sniffed from bytes, never from the file name.
#include "engines/model_format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_paths.h"

namespace trit::engines {
namespace {

class ModelFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("trit-format-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(ModelFormatTest, GgufByMagic) {
  Expected<std::string> f = SniffModelFormat(testing::BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, "gguf");
  Expected<std::string> renamed = SniffModelFormat(Write("weights.bin", "GGUF\x03\0\0\0"));
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(*renamed, "gguf");
}

TEST_F(ModelFormatTest, ANameIsNotAFormat) {
  Expected<std::string> f = SniffModelFormat(Write("model.gguf", "PK\x03\x04"));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("first bytes [50 4b 03 04]"), std::string::npos) << f.status().message();
  EXPECT_FALSE(SniffModelFormat(Write("empty.gguf", "")).ok());
}

TEST_F(ModelFormatTest, PackIsADirectoryWithPlan) {
  std::filesystem::create_directories(dir_ / "pack");
  EXPECT_FALSE(SniffModelFormat((dir_ / "pack").string()).ok());
  Write("pack/plan.json", "{}");
  Expected<std::string> f = SniffModelFormat((dir_ / "pack").string());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, "pack");
}

TEST_F(ModelFormatTest, MissingFileIsNamed) {
  Expected<std::string> f = SniffModelFormat((dir_ / "nope.gguf").string());
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(f.status().message().find("nope.gguf"), std::string::npos);
}

}  // namespace
}  // namespace trit::engines
