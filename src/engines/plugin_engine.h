// Adapts an engine a plugin registered through the C ABI
// (include/trit/engine.h) to the Engine interface, and its models to
// model::Model: trit's runtime session drives them exactly as it drives a
// built-in model, with the KV cache on trit's side.
#pragma once

#include <memory>
#include <string>

#include "engines/engine.h"
#include "trit/engine.h"

namespace trit::engines {

// The loaded library; kept alive (never unloaded) by every engine it gave.
struct PluginLibrary {
  std::string path;
  void* handle = nullptr;  // from dlopen; never dlclose'd (see plugin_loader.cpp)
  std::string description;
};

// Checks a trit_engine a plugin passed to add_engine (struct size, strings,
// list lengths, function pointers) and copies what must be copied. Errors
// name the field.
Expected<std::unique_ptr<Engine>> AdoptPluginEngine(const trit_engine& engine, std::shared_ptr<const PluginLibrary> library);

}  // namespace trit::engines
