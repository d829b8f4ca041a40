// A subcommand of `trit`: its CLI11 parser and the function that runs it
// once arguments are parsed. main() picks the parsed one and turns its
// result into the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace trit::cli {

// Process exit codes, the same for every command.
enum ExitCode : int {
  kExitSuccess = 0,
  kExitFailure = 1,  // the work failed (bad file, I/O error, refused conversion)
  kExitUsage = 2,    // the command line was wrong
};

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command AddRunCommand(CLI::App& parent);
Command AddShowCommand(CLI::App& parent);
Command AddQuantizeCommand(CLI::App& parent);
Command AddConvertCommand(CLI::App& parent);
Command AddEmbedCommand(CLI::App& parent);
Command AddVerifyCommand(CLI::App& parent);
Command AddCompareCommand(CLI::App& parent);
Command AddPerplexityCommand(CLI::App& parent);
Command AddTokenizeCommand(CLI::App& parent);
Command AddDetokenizeCommand(CLI::App& parent);
Command AddBundleCommand(CLI::App& parent);
Command AddHwxCommand(CLI::App& parent);
Command AddPullCommand(CLI::App& parent);
Command AddModelsCommand(CLI::App& parent);
Command AddBackendsCommand(CLI::App& parent);
Command AddDoctorCommand(CLI::App& parent);
Command AddBenchCommand(CLI::App& parent);
Command AddServeCommand(CLI::App& parent);
Command AddLockCommand(CLI::App& parent);
Command AddPackCommand(CLI::App& parent);

// Prints "trit: error: <message>" on stderr.
void PrintError(std::string_view message);

}  // namespace trit::cli
