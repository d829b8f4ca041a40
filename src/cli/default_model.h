// Where commands find the bundled model when MODEL is not given.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace trit::cli {

// The places looked at, in order: <exe dir>/../models/stories260K.gguf (a
// build tree beside the sources, build/trit), <exe dir>/models/... (an
// installed layout), then the source tree's models/ this binary was built from.
std::vector<std::string> DefaultModelCandidates();

// The first candidate that exists; an error listing every candidate otherwise.
Expected<std::string> DefaultModelPath();

}  // namespace trit::cli
