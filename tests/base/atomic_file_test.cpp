#include "base/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace trit {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trit-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  size_t FileCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, CommitRenamesIntoPlace) {
  const fs::path target = dir_ / "out.bin";
  {
    Expected<AtomicFileWriter> w = AtomicFileWriter::Create(target.string());
    ASSERT_TRUE(w.ok()) << w.status().message();
    const uint8_t data[] = {'a', 'b'};
    ASSERT_TRUE(w->Write(data).ok());
    ASSERT_TRUE(w->WriteZeros(3).ok());
    EXPECT_EQ(w->bytes_written(), 5u);
    EXPECT_FALSE(fs::exists(target));  // nothing at the target until commit
    ASSERT_TRUE(w->Commit().ok());
  }
  EXPECT_EQ(Read(target), std::string("ab\0\0\0", 5));
  EXPECT_EQ(FileCount(), 1u);  // no temporary left
}

TEST_F(AtomicFileTest, AbandonedWriteLeavesTargetUntouched) {
  const fs::path target = dir_ / "out.bin";
  std::ofstream(target) << "previous";
  {
    Expected<AtomicFileWriter> w = AtomicFileWriter::Create(target.string());
    ASSERT_TRUE(w.ok());
    const uint8_t data[] = {'x'};
    ASSERT_TRUE(w->Write(data).ok());
    EXPECT_TRUE(fs::exists(w->temp_path()));
  }  // destroyed without Commit
  EXPECT_EQ(Read(target), "previous");
  EXPECT_EQ(FileCount(), 1u);
}

TEST_F(AtomicFileTest, UnwritableDirectoryIsAnError) {
  Expected<AtomicFileWriter> w = AtomicFileWriter::Create((dir_ / "missing" / "out.bin").string());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), ErrorCode::kIo);
  EXPECT_NE(w.status().message().find("missing"), std::string::npos);
}

}  // namespace
}  // namespace trit
