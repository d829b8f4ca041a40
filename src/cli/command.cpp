#include "cli/command.h"

#include <fmt/format.h>

namespace trit::cli {

void PrintError(std::string_view message) { fmt::print(stderr, "trit: error: {}\n", message); }

}  // namespace trit::cli
