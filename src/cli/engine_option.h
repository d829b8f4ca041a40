// The CLI side of engine selection, shared by every command that runs a
// model (run, verify; bench and serve add it the same way): the --engine
// option, and opening a model through the registry for a capability.
//
//   std::string engine;                       // in the command's options
//   AddEngineOption(app, &engine);            // when declaring flags
//   int exit_code = 0;
//   Expected<EngineModel> m = OpenModel(path, engines::kCapabilityGenerate, engine, &exit_code);
//   if (!m.ok()) { PrintError(m.status().message()); return exit_code; }
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "base/status.h"
#include "engines/open_model.h"

namespace trit::cli {

// Adds `--engine NAME` (a name or alias from `trit backends`) to `app`.
void AddEngineOption(CLI::App* app, std::string* engine);

// A model loaded by the engine the registry chose (engines/open_model.h).
using EngineModel = engines::OpenedModel;

// engines::OpenForCapability with the command's exit code: a pin that cannot
// be honoured is a usage error (*exit_code = kExitUsage), its message
// starting with "--engine NAME:" and naming why and which engines can; any
// other failure is *exit_code = kExitFailure.
Expected<EngineModel> OpenModel(const std::string& path, const std::string& capability, const std::string& engine,
                                int* exit_code);

}  // namespace trit::cli
