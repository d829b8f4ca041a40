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
#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"

namespace trit::cli {

// Adds `--engine NAME` (a name or alias from `trit backends`) to `app`.
void AddEngineOption(CLI::App* app, std::string* engine);

// A model loaded by the engine the registry chose. Members are destroyed
// bottom up: the model before the registry that holds its engine's plugin.
struct EngineModel {
  std::unique_ptr<engines::Registry> registry;
  const engines::Engine* engine = nullptr;
  std::string format;  // as sniffed from the file
  std::unique_ptr<model::Model> model;
};

// Sniffs the format of `path`, chooses the engine (pinned by `engine` when
// not empty) and loads the model with it. A pin that cannot be honoured is
// a usage error (*exit_code = kExitUsage), its message starting with
// "--engine NAME:" and naming why and which engines can; any other failure
// (unreadable file, unknown format, no engine for it, load error) is
// *exit_code = kExitFailure.
Expected<EngineModel> OpenModel(const std::string& path, const std::string& capability, const std::string& engine,
                                int* exit_code);

}  // namespace trit::cli
