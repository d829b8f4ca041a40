// Opening a model for a capability through the default registry: the one
// place that sniffs the file's format, chooses the engine (or honours a pin)
// and loads the model with it. `trit run`, `verify`, `bench`, `embed` (via
// cli/engine_option.h) and `trit serve` (server/served_model.h) call it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "engines/engine.h"
#include "engines/registry.h"
#include "model/model.h"

namespace trit::engines {

// A model loaded by the engine the registry chose. Members are destroyed
// bottom up: the model before the registry that holds its engine's plugin.
struct OpenedModel {
  std::unique_ptr<Registry> registry;
  const Engine* engine = nullptr;
  std::string format;  // as sniffed from the file
  std::unique_ptr<model::Model> model;      // set for every capability but embed
  std::unique_ptr<model::Encoder> encoder;  // set for kCapabilityEmbed
};

// Sniffs the format of `path`, builds the default registry, chooses the
// engine for `capability` (pinned by `engine`, a name or alias, when not
// empty) and loads the model with it. A pin that cannot be honoured is
// kInvalidArgument, its message "--engine NAME: " and why (naming the
// engines that can), and sets *pin_rejected when given; any other failure
// (unreadable file, unknown format, no engine for it, load error) keeps its
// code, with the path as context where the message lacks it.
Expected<OpenedModel> OpenForCapability(const std::string& path, std::string_view capability,
                                        const std::string& engine, bool* pin_rejected = nullptr);

}  // namespace trit::engines
