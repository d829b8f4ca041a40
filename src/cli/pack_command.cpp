// `trit pack make|check|run`: accelerator packs from the shell. Each
// subcommand is in its own file (pack_*_command.cpp).
#include "cli/pack_subcommands.h"

namespace trit::cli {

std::optional<pack::Generation> GenerationPin(const std::string& flag) {
  if (flag.empty()) return std::nullopt;
  return pack::ParseGeneration(flag);  // CLI11 has checked the value
}

Command AddPackCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "pack", "Accelerator packs: make a plan for a model, check a pack, run it (on the host CPU with --host)");
  app->require_subcommand(1);
  app->footer(
      "A pack is a directory: plan.json, the model's GGUF file and the device kernels the plan names. "
      "See docs/PACKS.md.\n"
      "  trit pack make models/stories260K.gguf /tmp/p --device xdna2 --prefill-m 4\n"
      "  trit pack check /tmp/p\n"
      "  trit pack run /tmp/p --ids \"1 403 407 261 378 425 1209\" --host --check");
  const Command make = AddPackMakeCommand(*app);
  const Command check = AddPackCheckCommand(*app);
  const Command run = AddPackRunCommand(*app);
  return {app, [make, check, run] {
            for (const Command& c : {make, check, run}) {
              if (c.app->parsed()) return c.run();
            }
            return static_cast<int>(kExitUsage);
          }};
}

}  // namespace trit::cli
