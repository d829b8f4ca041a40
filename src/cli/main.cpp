// trit: run language models on this machine. Subcommands live in one file
// each (see command.h); this file only dispatches and sets exit codes.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <vector>

#include "cli/command.h"
#include "cli/version.h"

namespace trit::cli {
namespace {

int Main(int argc, char** argv) {
  CLI::App app{"trit: run language models on this machine, low-bit weights first"};
  app.name("trit");
  app.set_version_flag("-V,--version", std::string("trit ") + kVersion);
  app.require_subcommand(1);
  app.footer("Run 'trit COMMAND --help' for a command's options.\nExit codes: 0 success, 1 the work failed, 2 bad usage.");

  std::vector<Command> commands = {AddRunCommand(app), AddShowCommand(app), AddQuantizeCommand(app), AddConvertCommand(app),
                                   AddEmbedCommand(app), AddVerifyCommand(app),
                                   AddCompareCommand(app), AddPerplexityCommand(app),
                                   AddTokenizeCommand(app), AddDetokenizeCommand(app), AddBundleCommand(app),
                                   AddHwxCommand(app), AddPullCommand(app), AddModelsCommand(app),
                                   AddBackendsCommand(app), AddDoctorCommand(app), AddBenchCommand(app),
                                   AddServeCommand(app), AddLockCommand(app), AddPackCommand(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and a hint
    return kExitUsage;
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return kExitUsage;
}

}  // namespace
}  // namespace trit::cli

int main(int argc, char** argv) { return trit::cli::Main(argc, argv); }
