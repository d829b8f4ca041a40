#include "cli/command.h"

#include <fmt/format.h>

#include <cstdio>

namespace trit::cli {

void PrintError(std::string_view message) {
  // What was printed before the error comes before it, also when both streams go to one pipe.
  std::fflush(stdout);
  fmt::print(stderr, "trit: error: {}\n", message);
}

}  // namespace trit::cli
