// The speculative decoding flags (--spec, --draft, --draft-max,
// --draft-p-min), declared once with their defaults and help, for trit run
// and trit serve (docs/SPECULATIVE.md).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "base/status.h"
#include "runtime/draft_model.h"

namespace trit::cli {

struct SpeculationFlags {
  std::string spec = "none";  // --spec: none or lookup
  std::string draft;          // --draft MODEL (a path or store name)
  int32_t draft_max = 8;      // --draft-max
  float draft_p_min = runtime::ModelDrafter::kDefaultMinProbability;  // --draft-p-min

  bool lookup() const { return spec == "lookup"; }
};

// `unit`: what --draft-max counts per ("pass" for run, "slot and step" for serve).
void AddSpeculationFlags(CLI::App* app, SpeculationFlags* flags, const std::string& unit);

// kInvalidArgument when the flags ask for two drafters.
Status CheckSpeculationFlags(const SpeculationFlags& flags);

}  // namespace trit::cli
