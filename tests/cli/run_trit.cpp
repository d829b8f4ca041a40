#include "cli/run_trit.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace trit::testing {

namespace {

RunResult Run(const SpawnOptions& spawn, const std::vector<std::string>& args, const std::string* input,
              int timeout_seconds) {
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(in_pipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  if (!spawn.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spawn.cwd.c_str());

  std::vector<std::string> argv_storage = {spawn.binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage = spawn.env;
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid;
  const int rc = posix_spawn(&pid, spawn.binary.c_str(), &actions, nullptr, argv.data(),
                             spawn.env.empty() ? environ : envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (rc != 0) throw std::runtime_error("cannot spawn " + spawn.binary);
  // Small inputs fit the pipe buffer; then stdin ends, as from a file.
  if (input != nullptr && !input->empty()) {
    if (write(in_pipe[1], input->data(), input->size()) != static_cast<ssize_t>(input->size())) {
      throw std::runtime_error("cannot write the child's standard input");
    }
  }
  close(in_pipe[1]);

  RunResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buf[65536];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        sinks[i]->append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out || WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = timed_out ? SIGKILL : WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace

RunResult RunTrit(const std::vector<std::string>& args, int timeout_seconds) {
  return Run(SpawnOptions{}, args, nullptr, timeout_seconds);
}

RunResult RunProgram(const SpawnOptions& spawn, const std::vector<std::string>& args, int timeout_seconds) {
  return Run(spawn, args, nullptr, timeout_seconds);
}

std::vector<std::string> EnvironmentWith(const std::vector<std::string>& drop, const std::vector<std::string>& add) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string item = *e;
    const std::string name = item.substr(0, item.find('='));
    bool dropped = false;
    for (const std::string& d : drop) dropped = dropped || d == name;
    if (!dropped) out.push_back(item);
  }
  out.insert(out.end(), add.begin(), add.end());
  return out;
}

RunResult RunTritWithInput(const std::vector<std::string>& args, const std::string& input, int timeout_seconds) {
  return Run(SpawnOptions{}, args, &input, timeout_seconds);
}

std::string MakeTempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return templ;
}

}  // namespace trit::testing
