// `trit lock run|status` end to end, as a user runs them: exit statuses, the
// holder named to a second taker, waiting, stale records, and the refusals.
// The other holder is this test process (system/device_lock.h), so the
// binary meets a lock held by another process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cli/run_trit.h"
#include "system/device_lock.h"

namespace trit {
namespace {

using testing::EnvironmentWith;
using testing::MakeTempDir;
using testing::RunProgram;
using testing::RunResult;
using testing::SpawnOptions;

class LockCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = MakeTempDir("trit-lock-cli");
    spawn_.env = EnvironmentWith({"TRIT_HOME"}, {"TRIT_HOME=" + home_});
  }
  void TearDown() override { std::filesystem::remove_all(home_); }

  RunResult Trit(const std::vector<std::string>& args) { return RunProgram(spawn_, args, 60); }
  std::string LocksDir() const { return home_ + "/locks"; }

  std::string home_;
  SpawnOptions spawn_;
};

TEST_F(LockCommandTest, RunsTheCommandHoldingTheLockAndGivesItsExitStatus) {
  // The command sees the lock held by its own run (the record names it).
  const RunResult seen = Trit({"lock", "run", "npu0", "--", TRIT_BINARY, "lock", "status", "npu0", "--json"});
  ASSERT_EQ(seen.exit_code, 0) << seen.err;
  const nlohmann::json j = nlohmann::json::parse(seen.out);
  EXPECT_EQ(j["locks"][0]["state"], "held");
  EXPECT_NE(j["locks"][0]["holder"]["command"].get<std::string>().find("lock status npu0"), std::string::npos);
  EXPECT_GT(j["locks"][0]["holder"]["child_pid"].get<int64_t>(), 0);

  EXPECT_EQ(Trit({"lock", "run", "npu0", "--", "sh", "-c", "exit 7"}).exit_code, 7);
  const RunResult missing = Trit({"lock", "run", "npu0", "--", "/nonexistent/tool"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("cannot run /nonexistent/tool"), std::string::npos) << missing.err;

  // Released after each run: free, and no stale record.
  const RunResult after = Trit({"lock", "status"});
  EXPECT_EQ(after.exit_code, 0);
  EXPECT_EQ(after.out, "npu0: free\n");
}

TEST_F(LockCommandTest, ASecondTakerIsRefusedWithTheHolderNamedThenWaitsForIt) {
  Expected<system::LockAttempt> held =
      system::TryLockDevice(LocksDir(), "xdna2-0", system::CurrentProcessHolder({"bringup", "--kernel", "k.elf"}));
  ASSERT_TRUE(held.ok() && held->lock.has_value());

  const RunResult refused = Trit({"lock", "run", "xdna2-0", "--", "true"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("xdna2-0 is in use by pid " + std::to_string(::getpid())), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("bringup --kernel k.elf"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--wait SECONDS"), std::string::npos) << refused.err;

  const RunResult status = Trit({"lock", "status", "xdna2-0"});
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.out.find("xdna2-0: held by pid " + std::to_string(::getpid())), std::string::npos) << status.out;

  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    held->lock->Release();
  });
  const RunResult waited = Trit({"lock", "run", "xdna2-0", "--wait", "30", "--", "echo", "ran"});
  release.join();
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(waited.out, "ran\n");
  EXPECT_NE(waited.err.find("waiting up to 30s for xdna2-0, held by pid"), std::string::npos) << waited.err;
}

TEST_F(LockCommandTest, AStaleRecordIsReportedAndTakenOver) {
  std::filesystem::create_directories(LocksDir());
  system::LockHolder dead;
  dead.pid = 999999999;  // above any pid_max
  dead.user = "bob";
  dead.command = "old-tool --flash";
  dead.started_unix = 1796400000;
  {
    FILE* f = std::fopen((LocksDir() + "/npu0.lock").c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string record = system::EncodeLockRecord(dead);
    std::fwrite(record.data(), 1, record.size(), f);
    std::fclose(f);
  }
  const RunResult status = Trit({"lock", "status", "--json"});
  ASSERT_EQ(status.exit_code, 0);
  const nlohmann::json j = nlohmann::json::parse(status.out);
  EXPECT_EQ(j["locks"][0]["state"], "stale");
  EXPECT_EQ(j["locks"][0]["stale_record"]["pid"], 999999999);
  EXPECT_EQ(j["locks"][0]["stale_record"]["pid_running"], false);

  const RunResult taken = Trit({"lock", "run", "npu0", "--", "true"});
  EXPECT_EQ(taken.exit_code, 0);
  EXPECT_NE(taken.err.find("took over npu0's lock from a holder that died: pid 999999999"), std::string::npos)
      << taken.err;
  EXPECT_EQ(Trit({"lock", "status", "npu0"}).out, "npu0: free\n");
}

// The lock's descriptor passes on to what the command starts: a lock held
// while the recorded pids are gone is said to be held by their offspring.
TEST_F(LockCommandTest, StatusSaysWhenALockOutlivesTheProcessesItNames) {
  system::LockHolder gone = system::CurrentProcessHolder({"flash-tool"});
  gone.pid = 999999999;  // above any pid_max: not running
  Expected<system::LockAttempt> held = system::TryLockDevice(LocksDir(), "npu0", gone);
  ASSERT_TRUE(held.ok() && held->lock.has_value());
  const RunResult status = Trit({"lock", "status", "npu0"});
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.out.find("held by pid 999999999"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("neither pid is running: a process they started still holds the lock"),
            std::string::npos)
      << status.out;
}

TEST_F(LockCommandTest, RefusesABadDeviceNameOrAMissingCommand) {
  const RunResult bad = Trit({"lock", "run", "../etc", "--", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'../etc' is not a device name"), std::string::npos) << bad.err;
  EXPECT_EQ(Trit({"lock", "run", "npu0"}).exit_code, 2);
  EXPECT_EQ(Trit({"lock", "status", "a/b"}).exit_code, 2);
  const RunResult none = Trit({"lock", "status"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no device locks in " + LocksDir()), std::string::npos) << none.out;
}

}  // namespace
}  // namespace trit
