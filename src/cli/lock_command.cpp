// `trit lock run DEVICE [--wait S] -- COMMAND...` and `trit lock status
// [DEVICE] [--json]`: the per-device exclusive lock (system/device_lock.h)
// from the shell, for any tool that drives an accelerator. See
// docs/DEVICE_LOCK.md.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "store/models_home.h"
#include "system/device_lock.h"

namespace trit::cli {
namespace {

struct LockOptions {
  std::string device;
  double wait_seconds = 0;
  std::vector<std::string> command;
  bool json = false;
};

// The command's pid, for the forwarding handler below.
volatile pid_t g_child = 0;
void ForwardSignal(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

// Exit status of a finished child as a shell reports it: its code, or 128 +
// the signal that ended it.
int ShellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitFailure;
}

// The locks directory for a command on `device` (empty: every device), or
// the exit code after saying what is wrong: a bad name is a usage error.
std::optional<std::string> LocksDirFor(const std::string& device, int& exit_code) {
  if (!device.empty()) {
    if (Status s = system::CheckDeviceName(device); !s.ok()) {
      PrintError(s.message());
      exit_code = kExitUsage;
      return std::nullopt;
    }
  }
  Expected<std::string> dir = store::LocksDir();  // $TRIT_HOME/locks
  if (!dir.ok()) {
    PrintError(dir.status().message());
    exit_code = kExitFailure;
    return std::nullopt;
  }
  return *dir;
}

int RunLocked(const LockOptions& o) {
  int exit_code = kExitSuccess;
  const std::optional<std::string> dir = LocksDirFor(o.device, exit_code);
  if (!dir) return exit_code;
  const system::LockHolder me = system::CurrentProcessHolder(o.command);
  Expected<system::LockAttempt> attempt =
      system::LockDevice(*dir, o.device, me, o.wait_seconds, [&](const std::optional<system::LockHolder>& holder) {
        fmt::print(stderr, "trit: waiting up to {}s for {}, held by {}\n", o.wait_seconds, o.device,
                   holder ? system::DescribeHolder(*holder) : std::string("a process that has not written its record"));
      });
  if (!attempt.ok()) {
    PrintError(attempt.status().message());
    return kExitFailure;
  }
  if (!attempt->lock) {
    PrintError(fmt::format("{} is in use by {}{}; wait for it with --wait SECONDS, or see trit lock status {}", o.device,
                           attempt->holder ? system::DescribeHolder(*attempt->holder)
                                           : std::string("a process that has not written its record"),
                           o.wait_seconds > 0 ? fmt::format(" (waited {}s)", o.wait_seconds) : "", o.device));
    return kExitFailure;
  }
  system::DeviceLock& lock = *attempt->lock;
  if (lock.taken_over()) {
    fmt::print(stderr, "trit: took over {}'s lock from a holder that died: {}\n", o.device,
               system::DescribeHolder(*lock.taken_over()));
  }
  // The command holds the lock too (the descriptor without close-on-exec),
  // so it stays held while either process lives; a Ctrl-C reaches both (one
  // process group), and this one waits for the command before releasing.
  const pid_t child = ::fork();
  if (child < 0) {
    PrintError(fmt::format("cannot start {}: {}", o.command[0], std::strerror(errno)));
    return kExitFailure;
  }
  if (child == 0) {
    ::fcntl(lock.fd(), F_SETFD, 0);
    std::vector<char*> argv;
    for (const std::string& arg : o.command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int err = errno;
    fmt::print(stderr, "trit: error: cannot run {}: {}\n", o.command[0], std::strerror(err));
    ::_exit(err == ENOENT ? 127 : 126);  // the shell's codes for not found / not runnable
  }
  system::LockHolder with_child = me;
  with_child.child_pid = child;
  if (Status s = lock.UpdateRecord(with_child); !s.ok()) fmt::print(stderr, "trit: warning: {}\n", s.message());
  // This process outlives the command to release the lock: a Ctrl-C reaches
  // the command from the terminal (one process group), and a SIGTERM or
  // SIGHUP sent to this process is passed on to it.
  g_child = child;
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, ForwardSignal);
  std::signal(SIGHUP, ForwardSignal);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      PrintError(fmt::format("lost the command {}: {}", o.command[0], std::strerror(errno)));
      return kExitFailure;
    }
  }
  lock.Release();
  return ShellStatus(status);
}

nlohmann::ordered_json StateJson(const system::DeviceLockState& s) {
  nlohmann::ordered_json j;
  j["device"] = s.device;
  j["state"] = s.held ? "held" : s.holder || !s.record_error.empty() ? "stale" : "free";
  if (s.holder) {
    nlohmann::ordered_json h;
    h["pid"] = s.holder->pid;
    if (s.holder->child_pid > 0) h["child_pid"] = s.holder->child_pid;
    h["user"] = s.holder->user;
    h["command"] = s.holder->command;
    h["started_unix"] = s.holder->started_unix;
    h["pid_running"] = system::ProcessRunning(s.holder->pid);
    j[s.held ? "holder" : "stale_record"] = h;
  }
  if (!s.record_error.empty()) j["record_error"] = s.record_error;
  return j;
}

std::string StateText(const system::DeviceLockState& s) {
  if (s.held) {
    if (!s.holder) return fmt::format("{}: held by a process that has not written its record yet\n", s.device);
    // The descriptor passes to the command and to what the command starts:
    // a process they started can hold the lock after both have gone.
    const bool gone = !system::ProcessRunning(s.holder->pid) &&
                      (s.holder->child_pid == 0 || !system::ProcessRunning(s.holder->child_pid));
    return fmt::format("{}: held by {}{}\n", s.device, system::DescribeHolder(*s.holder),
                       gone ? " (neither pid is running: a process they started still holds the lock)" : "");
  }
  if (s.holder) {
    return fmt::format("{}: free (stale record of {}, {}; the next taker takes it over)\n", s.device,
                       system::DescribeHolder(*s.holder),
                       system::ProcessRunning(s.holder->pid) ? "whose pid is in use again" : "no longer running");
  }
  if (!s.record_error.empty()) return fmt::format("{}: free (unreadable stale record: {})\n", s.device, s.record_error);
  return fmt::format("{}: free\n", s.device);
}

int RunStatus(const LockOptions& o) {
  int exit_code = kExitSuccess;
  const std::optional<std::string> dir = LocksDirFor(o.device, exit_code);
  if (!dir) return exit_code;
  Expected<std::vector<system::DeviceLockState>> states = system::ReadDeviceLocks(*dir, o.device);
  if (!states.ok()) {
    PrintError(states.status().message());
    return kExitFailure;
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["dir"] = *dir;
    j["locks"] = nlohmann::ordered_json::array();
    for (const system::DeviceLockState& s : *states) j["locks"].push_back(StateJson(s));
    fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return kExitSuccess;
  }
  if (states->empty()) fmt::print("no device locks in {}\n", *dir);
  for (const system::DeviceLockState& s : *states) fmt::print("{}", StateText(s));
  return kExitSuccess;
}

}  // namespace

Command AddLockCommand(CLI::App& parent) {
  auto opt = std::make_shared<LockOptions>();
  CLI::App* app = parent.add_subcommand("lock", "Hold a device's exclusive lock while a command runs, or show who holds it");
  app->require_subcommand(1);
  app->footer(
      "One lock per device, shared by every process that drives it: $TRIT_HOME/locks/DEVICE.lock (default "
      "~/.trit/locks), held with flock(2), so it is freed when its holder dies, even by kill -9. "
      "See docs/DEVICE_LOCK.md.");

  CLI::App* run = app->add_subcommand("run", "Run COMMAND holding DEVICE's lock; its exit status is the command's");
  run->add_option("device", opt->device, "Device name, e.g. xdna2-0 (letters, digits, '.', '_', '-')")->required();
  run->add_option("--wait", opt->wait_seconds, "Wait up to this many seconds for the holder to finish (default: fail at once)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("command", opt->command, "The command and its arguments, after --")->required();
  run->footer(
      "Examples:\n"
      "  trit lock run xdna2-0 -- ./bringup --kernel full_i8_matmul_K640_N2048.elf\n"
      "  trit lock run xdna2-0 --wait 600 -- make device-test\n"
      "Exit status: the command's (128 + N if signal N ended it, 127 if it was not found); 1 if the lock is held "
      "by another process (it is named), 2 for a wrong command line.");

  CLI::App* status = app->add_subcommand("status", "Who holds each device's lock, since when, running what");
  status->add_option("device", opt->device, "Only this device");
  status->add_flag("--json", opt->json,
                   "Print {\"dir\", \"locks\": [{device, state (held|free|stale), holder or stale_record: {pid, "
                   "child_pid, user, command, started_unix, pid_running}, record_error}]}");

  return {app, [opt, run, status] {
            if (run->parsed()) return RunLocked(*opt);
            if (status->parsed()) return RunStatus(*opt);
            return static_cast<int>(kExitUsage);
          }};
}

}  // namespace trit::cli
