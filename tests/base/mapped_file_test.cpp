#include "base/mapped_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace trit {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string();
}

TEST(MappedFileTest, MapsContents) {
  const std::string path = TempPath("trit-mapped");
  std::ofstream(path, std::ios::binary) << "hello";
  Expected<MappedFile> f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 5u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(f->bytes().data()), 5), "hello");
  MappedFile moved = std::move(f.value());
  EXPECT_EQ(moved.size(), 5u);
  EXPECT_EQ(moved.path(), path);
  std::remove(path.c_str());
}

TEST(MappedFileTest, EmptyFileIsEmptySpan) {
  const std::string path = TempPath("trit-empty");
  std::ofstream(path, std::ios::binary).flush();
  Expected<MappedFile> f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->size(), 0u);
  EXPECT_TRUE(f->bytes().empty());
  std::remove(path.c_str());
}

TEST(MappedFileTest, MissingFileNamesPath) {
  Expected<MappedFile> f = MappedFile::Open("/nonexistent/trit/model.gguf");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(f.status().message().find("/nonexistent/trit/model.gguf"), std::string::npos);
}

TEST(MappedFileTest, DirectoryIsRefused) {
  Expected<MappedFile> f = MappedFile::Open(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace trit
