// The engine that runs a pack on its device: packs are compiled for one
// device family (plan.json's "device", e.g. "xdna2"), and only an engine that
// declares that family (EngineInfo::device_family, trit_engine.device_family
// for plugins) can run them there. No device engine is built in; they come
// as plugins (docs/ENGINES.md, "Device engines (packs)").
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "engines/plugin_loader.h"
#include "engines/registry.h"

namespace trit::engines {

// The highest-priority available engine of `registry` that drives `family`
// and accepts "pack" models; equal priorities go to the smallest name, as
// Registry::Choose breaks them. When there is none, kUnsupported with a
// message for the user: the family, why each engine of that family cannot
// run (or that none was found), every directory of `searched` (the plugin
// directories the registry was built from), and that --host runs the pack
// on the CPU instead. An empty `family` is kInvalidArgument.
Expected<const Engine*> FindDeviceEngine(const Registry& registry, const std::string& family,
                                         const std::vector<PluginDirectory>& searched);

}  // namespace trit::engines
