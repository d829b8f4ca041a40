// Runs the trit binary under test and captures what a user would see.
#pragma once

#include <string>
#include <vector>

namespace trit::testing {

struct RunResult {
  int exit_code = -1;    // valid when !signaled
  bool signaled = false;  // killed by a signal (a crash)
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs TRIT_BINARY with `args` (no shell), with a timeout in seconds after
// which the process is killed and reported as signaled (a hang).
RunResult RunTrit(const std::vector<std::string>& args, int timeout_seconds = 60);
// The same, with `input` on standard input (small inputs: written before reading output).
RunResult RunTritWithInput(const std::vector<std::string>& args, const std::string& input, int timeout_seconds = 60);

// How to start a program other than as RunTrit does.
struct SpawnOptions {
  std::string binary = TRIT_BINARY;   // e.g. a copy of trit in a directory of the test's own
  std::vector<std::string> env;       // "NAME=value" items: the whole environment; empty: inherit trit's tests'
  std::string cwd;                    // working directory; empty: the test's
};
RunResult RunProgram(const SpawnOptions& spawn, const std::vector<std::string>& args, int timeout_seconds = 60);

// This process's environment without the variables named in `drop`, plus `add` ("NAME=value").
std::vector<std::string> EnvironmentWith(const std::vector<std::string>& drop, const std::vector<std::string>& add);

// A fresh empty directory under the system temp dir, removed by the caller.
std::string MakeTempDir(const std::string& prefix);

}  // namespace trit::testing
