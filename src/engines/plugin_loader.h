// Finds and loads engine plugins. Only two places are searched, so nothing
// ambient changes what a binary contains (docs/DESIGN.md contract 4):
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

// PluginDirectory::source values.
inline constexpr const char* kSourceExeDir = "exe dir";
inline constexpr const char* kSourceEnginePath = "TRIT_ENGINE_PATH";

// A directory searched for plugins and why.
struct PluginDirectory {
  std::string path;
  std::string source;  // kSourceExeDir or kSourceEnginePath
};

// Where plugins are looked for, in order, given the executable's directory
// (empty: unknown) and the value of TRIT_ENGINE_PATH (nullptr: unset).
std::vector<PluginDirectory> PluginDirectories(const std::string& exe_dir, const char* engine_path);

// "PATH (SOURCE)", or "PATH (SOURCE, absent)" when it is not a directory:
// how trit backends, trit doctor and the device-engine refusal name it.
std::string PluginDirectoryText(const PluginDirectory& dir);

// The files of `dir` that are plugin candidates (shared-library suffix), by
// name; none when the directory does not exist.
std::vector<std::string> PluginFiles(const std::string& dir);

// Loads one plugin file into `registry`: each engine it registers, or one
// unavailable entry (named after the file) saying why it cannot be used.
void LoadPluginFile(const std::string& path, Registry* registry);

// Loads every plugin of `dirs` (a file reached twice is loaded once).
void LoadPlugins(const std::vector<PluginDirectory>& dirs, Registry* registry);

// Whether `engine` stands for a plugin file that gave no engine (it could not
// be loaded, or its registration failed): what it would have declared, a
// device family included, is unknown.
bool IsUnusablePlugin(const Engine& engine);

}  // namespace trit::engines
