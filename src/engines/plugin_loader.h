// Finds and loads engine plugins. Only two places are searched, so nothing
// ambient changes what a binary contains (DESIGN.md contract 4):
//   1. <directory of the trit executable>/engines/
//   2. each directory of TRIT_ENGINE_PATH (':'-separated; empty items skipped)
// Never the working directory, LD_LIBRARY_PATH or a build-time prefix. A
// plugin that cannot be used is listed as unavailable with its path and the
// reason; it never stops trit.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "engines/registry.h"

namespace trit::engines {

// A directory searched for plugins and why.
struct PluginDirectory {
  std::string path;
  std::string source;  // "exe dir" or "TRIT_ENGINE_PATH"
};

// Where plugins are looked for, in order, given the executable's directory
// (empty: unknown) and the value of TRIT_ENGINE_PATH (nullptr: unset).
std::vector<PluginDirectory> PluginDirectories(const std::string& exe_dir, const char* engine_path);

// The files of `dir` that are plugin candidates (shared-library suffix), by
// name; none when the directory does not exist.
std::vector<std::string> PluginFiles(const std::string& dir);

// Loads one plugin file into `registry`: each engine it registers, or one
// unavailable entry (named after the file) saying why it cannot be used.
void LoadPluginFile(const std::string& path, Registry* registry);

// Loads every plugin of `dirs` (a file reached twice is loaded once).
void LoadPlugins(const std::vector<PluginDirectory>& dirs, Registry* registry);

}  // namespace trit::engines
