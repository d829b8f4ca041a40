// The subcommands of `trit pack` (docs/PACKS.md), one file each; the work
// itself is in src/pack/.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"
#include "formats/pack/plan.h"

namespace trit::cli {

Command AddPackMakeCommand(CLI::App& pack);
Command AddPackCheckCommand(CLI::App& pack);
Command AddPackRunCommand(CLI::App& pack);

// --generation's value ("sealed", "per-role"; empty: none) as a pin.
std::optional<pack::Generation> GenerationPin(const std::string& flag);

}  // namespace trit::cli
