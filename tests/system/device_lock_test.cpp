// The per-device lock (system/device_lock.h): one holder at a time, the
// holder named to the others, freed by the kernel when the holder dies
// (kill -9 included), a dead holder's record reported as stale and taken
// over, waiting, and the record's reader against bytes it did not write.
#include "system/device_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace trit::system {
namespace {

class DeviceLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/trit-lock-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    dir_ = root_ + "/home/locks";  // missing: the lock makes it
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  LockHolder Holder(const std::string& command) { return CurrentProcessHolder({"test", command}); }

  std::string root_, dir_;
};

TEST_F(DeviceLockTest, OneHolderAtATimeAndTheOthersAreToldWho) {
  Expected<LockAttempt> first = TryLockDevice(dir_, "xdna2-0", Holder("first"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->lock.has_value());
  EXPECT_FALSE(first->lock->taken_over().has_value());

  // Another open file description: refused, as another process would be.
  Expected<LockAttempt> second = TryLockDevice(dir_, "xdna2-0", Holder("second"));
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->lock.has_value());
  ASSERT_TRUE(second->holder.has_value());
  EXPECT_EQ(second->holder->pid, ::getpid());
  EXPECT_EQ(second->holder->command, "test first");

  // Another device is another lock.
  Expected<LockAttempt> other = TryLockDevice(dir_, "hexagon-v81", Holder("other"));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->lock.has_value());

  Expected<std::vector<DeviceLockState>> states = ReadDeviceLocks(dir_);
  ASSERT_TRUE(states.ok());
  ASSERT_EQ(states->size(), 2u);
  EXPECT_EQ((*states)[0].device, "hexagon-v81");
  EXPECT_EQ((*states)[1].device, "xdna2-0");
  EXPECT_TRUE((*states)[1].held);
  ASSERT_TRUE((*states)[1].holder.has_value());
  EXPECT_EQ((*states)[1].holder->command, "test first");

  // Released cleanly: free, no stale record, and the next taker gets it.
  first->lock->Release();
  states = ReadDeviceLocks(dir_, "xdna2-0");
  ASSERT_TRUE(states.ok());
  ASSERT_EQ(states->size(), 1u);
  EXPECT_FALSE((*states)[0].held);
  EXPECT_FALSE((*states)[0].holder.has_value());
  Expected<LockAttempt> third = TryLockDevice(dir_, "xdna2-0", Holder("third"));
  ASSERT_TRUE(third.ok());
  ASSERT_TRUE(third->lock.has_value());
  EXPECT_FALSE(third->lock->taken_over().has_value());
}

// A holder killed with SIGKILL runs no code: the kernel frees the lock, its
// record stays, and the next taker reports it as stale and takes it over.
TEST_F(DeviceLockTest, AHolderKilledWithSigkillFreesTheLockAndLeavesAStaleRecord) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Expected<LockAttempt> mine = TryLockDevice(dir_, "npu0", CurrentProcessHolder({"child", "holder"}));
    const char ok = mine.ok() && mine->lock.has_value() ? '1' : '0';
    (void)::write(ready[1], &ok, 1);
    ::pause();  // until killed
    ::_exit(0);
  }
  // A failed assertion below must not leave the paused child behind.
  struct KillOnExit {
    pid_t pid;
    ~KillOnExit() {
      if (::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
    }
  } guard{child};
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, '1');

  Expected<LockAttempt> refused = TryLockDevice(dir_, "npu0", Holder("parent"));
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->lock.has_value());
  ASSERT_TRUE(refused->holder.has_value());
  EXPECT_EQ(refused->holder->pid, child);

  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::close(ready[0]);
  ::close(ready[1]);

  Expected<std::vector<DeviceLockState>> states = ReadDeviceLocks(dir_, "npu0");
  ASSERT_TRUE(states.ok());
  EXPECT_FALSE((*states)[0].held);
  ASSERT_TRUE((*states)[0].holder.has_value()) << "the dead holder's record is reported";
  EXPECT_EQ((*states)[0].holder->pid, child);
  EXPECT_FALSE(ProcessRunning(child));

  Expected<LockAttempt> taken = TryLockDevice(dir_, "npu0", Holder("parent"));
  ASSERT_TRUE(taken.ok());
  ASSERT_TRUE(taken->lock.has_value());
  ASSERT_TRUE(taken->lock->taken_over().has_value());
  EXPECT_EQ(taken->lock->taken_over()->pid, child);
  EXPECT_EQ(taken->lock->taken_over()->command, "child holder");
}

TEST_F(DeviceLockTest, WaitingGetsTheLockWhenTheHolderLetsGo) {
  Expected<LockAttempt> holder = TryLockDevice(dir_, "npu0", Holder("holder"));
  ASSERT_TRUE(holder.ok() && holder->lock.has_value());
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    holder->lock->Release();
  });
  int waits = 0;
  std::optional<LockHolder> seen;
  Expected<LockAttempt> waited = LockDevice(dir_, "npu0", Holder("waiter"), 10.0, [&](const auto& h) {
    ++waits;
    seen = h;
  });
  release.join();
  ASSERT_TRUE(waited.ok());
  EXPECT_TRUE(waited->lock.has_value());
  EXPECT_EQ(waits, 1) << "told once that it waits";
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->command, "test holder");
}

TEST_F(DeviceLockTest, AShortWaitEndsWithTheHolderNamed) {
  Expected<LockAttempt> holder = TryLockDevice(dir_, "npu0", Holder("holder"));
  ASSERT_TRUE(holder.ok() && holder->lock.has_value());
  const auto start = std::chrono::steady_clock::now();
  Expected<LockAttempt> waited = LockDevice(dir_, "npu0", Holder("waiter"), 0.3, nullptr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(waited.ok());
  EXPECT_FALSE(waited->lock.has_value());
  ASSERT_TRUE(waited->holder.has_value());
  EXPECT_EQ(waited->holder->command, "test holder");
  EXPECT_GE(seconds, 0.3);  // it did wait (an upper bound would be a timing assertion)
}

TEST_F(DeviceLockTest, AnUnreadableRecordIsReportedAndTakenOver) {
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ + "/npu0.lock") << "{\"pid\": \"not a number\"";
  Expected<std::vector<DeviceLockState>> states = ReadDeviceLocks(dir_);
  ASSERT_TRUE(states.ok());
  ASSERT_EQ(states->size(), 1u);
  EXPECT_FALSE((*states)[0].held);
  EXPECT_FALSE((*states)[0].holder.has_value());
  EXPECT_NE((*states)[0].record_error.find("not a JSON object"), std::string::npos) << (*states)[0].record_error;
  Expected<LockAttempt> taken = TryLockDevice(dir_, "npu0", Holder("taker"));
  ASSERT_TRUE(taken.ok());
  EXPECT_TRUE(taken->lock.has_value());
}

TEST(DeviceLockRecord, RoundTripsAndRefusesWhatItDidNotWrite) {
  LockHolder h;
  h.pid = 4242;
  h.child_pid = 4243;
  h.user = "alice";
  h.command = "trit pack run /packs/gemma --ids \"1 2\"";
  h.started_unix = 1796441964;
  Expected<LockHolder> back = DecodeLockRecord(EncodeLockRecord(h));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->pid, h.pid);
  EXPECT_EQ(back->child_pid, h.child_pid);
  EXPECT_EQ(back->user, h.user);
  EXPECT_EQ(back->command, h.command);
  EXPECT_EQ(back->started_unix, h.started_unix);
  EXPECT_EQ(DescribeHolder(h),
            "pid 4242 (running pid 4243), user alice, since 2026-12-05 03:39:24 UTC: trit pack run /packs/gemma --ids "
            "\"1 2\"");

  for (const char* bad : {"", "[]", "{}", "{\"pid\": 0, \"started_unix\": 1}", "{\"pid\": -3, \"started_unix\": 1}",
                          "{\"pid\": 5}", "{\"pid\": 5, \"started_unix\": 1, \"user\": 7}", "\xff\xfe"}) {
    EXPECT_FALSE(DecodeLockRecord(bad).ok()) << bad;
  }
  EXPECT_FALSE(DecodeLockRecord(std::string(70000, ' ')).ok());
}

TEST(DeviceLockName, IsAFileNameAndNothingElse) {
  for (const char* good : {"xdna2-0", "hexagon-v81", "npu_0", "a", "A.b"}) EXPECT_TRUE(CheckDeviceName(good).ok()) << good;
  for (const char* bad : {"", ".", "..", ".hidden", "../x", "a/b", "a b", "x\n"}) {
    EXPECT_FALSE(CheckDeviceName(bad).ok()) << bad;
  }
  EXPECT_FALSE(CheckDeviceName(std::string(65, 'a')).ok());
}

TEST(DeviceLockName, AMissingDirectoryHasNoLocksAndABadNameIsRefused) {
  Expected<std::vector<DeviceLockState>> none = ReadDeviceLocks("/nonexistent/trit/locks");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(TryLockDevice("/tmp", "../etc", CurrentProcessHolder({})).ok());
}

}  // namespace
}  // namespace trit::system
