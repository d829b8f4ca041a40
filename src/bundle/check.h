// `trit bundle check`: every binary under the given paths, each dependency
// resolved inside the bundle (or allowed from the system), and the policy's
// rules. Fail-closed: a file that looks like a binary but cannot be read,
// a path that does not exist, and a dependency found nowhere are violations.
#pragma once

#include <string>
#include <vector>

#include "bundle/policy.h"
#include "bundle/resolve.h"

namespace trit::bundle {

struct Violation {
  std::string binary;  // the file ("(bundle)" for a missing required file)
  std::string entry;   // the offending dependency, rpath, version or file
  std::string rule;    // "readable", "closure", "forbid", "require", "max_glibc", "one_cxx_runtime", "rpath"
  std::string message;
};

enum class Origin { kBundle, kSystem, kMissing, kMissingWeak };

struct ResolvedDep {
  binfmt::Dependency dep;
  Origin origin = Origin::kMissing;
  std::string path;  // the bundle file when origin is kBundle
};

struct CheckedBinary {
  LoadedBinary binary;
  std::vector<std::vector<ResolvedDep>> deps;  // per image
};

struct CheckReport {
  std::vector<CheckedBinary> binaries;
  std::vector<Violation> violations;
  bool ok() const { return violations.empty(); }
};

// Files under `paths` (directories walked recursively; symlinks to files
// count as files of the bundle but are not read twice), checked against `policy`.
CheckReport CheckBundle(const std::vector<std::string>& paths, const BundlePolicy& policy);

// "libstdc++", "libc++", "MSVC STL" for a dependency naming a C++ runtime; empty otherwise.
std::string CxxRuntimeOf(const std::string& dep_name);

}  // namespace trit::bundle
