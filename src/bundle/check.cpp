#include "bundle/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace trit::bundle {
namespace fs = std::filesystem;

namespace {

std::string Canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct BundleFiles {
  std::vector<std::string> roots;      // canonical directories (or files) given
  std::vector<std::string> files;      // every file, as walked (symlinks included)
  std::set<std::string> canonical;     // canonical paths of those files
  std::vector<std::string> binaries;   // regular files (not symlinks) with a binary's magic
  std::vector<Violation> violations;   // unreadable paths
};

BundleFiles Walk(const std::vector<std::string>& paths) {
  BundleFiles out;
  auto add_file = [&](const fs::path& p, bool is_symlink) {
    out.files.push_back(p.lexically_normal().string());
    out.canonical.insert(Canonical(p.string()));
    if (!is_symlink && FileLooksLikeBinary(p.string())) out.binaries.push_back(p.lexically_normal().string());
  };
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      out.violations.push_back({path, path, "readable", fmt::format("cannot read '{}': {}", path,
                                                                     ec ? ec.message() : "no such file or directory")});
      continue;
    }
    out.roots.push_back(Canonical(path));
    if (!fs::is_directory(st)) {
      add_file(fs::path(path), fs::is_symlink(fs::symlink_status(path, ec)));
      continue;
    }
    fs::recursive_directory_iterator it(path, ec), end;
    if (ec) {
      out.violations.push_back({path, path, "readable", fmt::format("cannot list '{}': {}", path, ec.message())});
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        out.violations.push_back({path, path, "readable", fmt::format("cannot list '{}': {}", path, ec.message())});
        break;
      }
      std::error_code e2;
      const bool link = it->is_symlink(e2);
      if (it->is_regular_file(e2)) add_file(it->path(), link);
    }
  }
  std::sort(out.binaries.begin(), out.binaries.end());
  return out;
}

bool IsExecutable(const binfmt::Image& image) { return image.kind.rfind("executable", 0) == 0; }

}  // namespace

std::string CxxRuntimeOf(const std::string& dep_name) {
  const std::string base = Lower(BaseName(dep_name));
  if (GlobMatch("libstdc++.so*", base, false) || GlobMatch("libstdc++*.dll", base, false) ||
      GlobMatch("libstdc++*.dylib", base, false)) {
    return "libstdc++";
  }
  if (GlobMatch("libc++.so*", base, false) || GlobMatch("libc++*.dll", base, false) ||
      GlobMatch("libc++*.dylib", base, false) || GlobMatch("libc++abi*", base, false)) {
    return "libc++";
  }
  if (GlobMatch("msvcp*.dll", base, false)) return "MSVC STL";
  return std::string();
}

CheckReport CheckBundle(const std::vector<std::string>& paths, const BundlePolicy& policy) {
  CheckReport report;
  BundleFiles files = Walk(paths);
  report.violations = files.violations;

  for (const std::string& path : files.binaries) {
    CheckedBinary cb;
    cb.binary = LoadBinary(path);
    if (!cb.binary.error.empty()) {
      report.violations.push_back({path, path, "readable", fmt::format("cannot read binary: {}", cb.binary.error)});
    }
    report.binaries.push_back(std::move(cb));
  }

  // The executables' directories and (Mach-O) rpaths, for @executable_path,
  // the PE application directory and dyld's load-chain rpath search.
  std::vector<std::string> exe_dirs;
  std::vector<std::string> exe_rpaths;
  for (const CheckedBinary& cb : report.binaries) {
    for (const binfmt::Image& image : cb.binary.images) {
      if (!IsExecutable(image)) continue;
      const std::string dir = fs::absolute(cb.binary.path).lexically_normal().parent_path().string();
      if (std::find(exe_dirs.begin(), exe_dirs.end(), dir) == exe_dirs.end()) exe_dirs.push_back(dir);
      if (image.format == binfmt::Format::kMachO) {
        for (const binfmt::SearchPath& p : image.search_paths) {
          exe_rpaths.push_back(ExpandSearchEntry(p.path, cb.binary.path, dir));
        }
      }
    }
  }

  std::map<std::string, std::vector<std::string>> cxx_users;  // runtime -> "binary (dep)"
  std::vector<std::tuple<std::string, std::string, std::string>> cxx_uses;  // binary, dep, runtime
  for (CheckedBinary& cb : report.binaries) {
    const std::string& path = cb.binary.path;
    for (const binfmt::Image& image : cb.binary.images) {
      const bool fold = image.format == binfmt::Format::kPe;
      std::vector<ResolvedDep> resolved;
      std::set<std::string> runtimes_here;
      for (const binfmt::Dependency& dep : image.deps) {
        ResolvedDep r{dep, Origin::kMissing, {}};
        for (const std::string& c : CandidatePaths(image, dep, path, exe_dirs,
                                                   image.format == binfmt::Format::kMachO ? exe_rpaths
                                                                                          : std::vector<std::string>())) {
          const std::string found = FindFile(c, image.format);
          if (!found.empty() && files.canonical.count(Canonical(found)) > 0) {
            r.origin = Origin::kBundle;
            r.path = found;
            break;
          }
        }
        if (r.origin == Origin::kMissing) {
          const bool system = std::any_of(policy.system.begin(), policy.system.end(), [&](const std::string& g) {
            return GlobMatch(g, dep.name, fold) || GlobMatch(g, BaseName(dep.name), fold);
          });
          if (system) {
            r.origin = Origin::kSystem;
          } else if (dep.kind == binfmt::DepKind::kWeak) {
            r.origin = Origin::kMissingWeak;  // dyld starts without it
          } else {
            report.violations.push_back({path, dep.name, "closure",
                                         fmt::format("{} dependency '{}' is not in the bundle and not allowed from the system",
                                                     binfmt::DepKindName(dep.kind), dep.name)});
          }
        }
        for (const std::string& g : policy.forbid) {
          if (GlobMatch(g, BaseName(dep.name), fold) || GlobMatch(g, dep.name, fold)) {
            report.violations.push_back({path, dep.name, "forbid", fmt::format("depends on '{}', forbidden by '{}'", dep.name, g)});
          }
        }
        if (const std::string rt = CxxRuntimeOf(dep.name); !rt.empty() && runtimes_here.insert(rt).second) {
          cxx_users[rt].push_back(path);
          cxx_uses.emplace_back(path, dep.name, rt);
        }
        resolved.push_back(std::move(r));
      }
      if (policy.max_glibc) {
        auto it = image.max_versions.find("GLIBC");
        if (it != image.max_versions.end() && binfmt::CompareVersions(it->second, *policy.max_glibc) > 0) {
          report.violations.push_back({path, "GLIBC_" + it->second, "max_glibc",
                                       fmt::format("needs GLIBC_{}, newer than the policy's {}", it->second, *policy.max_glibc)});
        }
      }
      if (policy.rpath == RpathRule::kRelative) {
        for (const binfmt::SearchPath& p : image.search_paths) {
          if (!IsRelocatableSearchEntry(p.path)) {
            report.violations.push_back({path, p.path, "rpath",
                                         fmt::format("{} entry '{}' is not relative to the binary ($ORIGIN, @loader_path, @executable_path)",
                                                     p.kind == binfmt::SearchPathKind::kRunpath ? "runpath" : "rpath", p.path)});
          }
        }
      }
      cb.deps.push_back(std::move(resolved));
    }
  }

  // forbid also covers files shipped in the bundle (a prebuilt runtime copied in).
  for (const std::string& f : files.files) {
    for (const std::string& g : policy.forbid) {
      if (GlobMatch(g, BaseName(f), false)) {
        report.violations.push_back({f, BaseName(f), "forbid", fmt::format("bundle ships '{}', forbidden by '{}'", BaseName(f), g)});
      }
    }
  }

  for (const std::string& req : policy.require) {
    bool found = false;
    if (req.find('/') != std::string::npos) {
      for (const std::string& root : files.roots) {
        found |= files.canonical.count(Canonical((fs::path(root) / req).string())) > 0;
      }
    } else {
      found = std::any_of(files.files.begin(), files.files.end(), [&](const std::string& f) { return BaseName(f) == req; });
    }
    if (!found) report.violations.push_back({"(bundle)", req, "require", fmt::format("required '{}' is not in the bundle", req)});
  }

  if (policy.one_cxx_runtime && cxx_users.size() > 1) {
    std::string summary;
    for (const auto& [rt, users] : cxx_users) {
      summary += fmt::format("{}{} ({} binar{})", summary.empty() ? "" : ", ", rt, users.size(), users.size() == 1 ? "y" : "ies");
    }
    for (const auto& [binary, dep, rt] : cxx_uses) {
      report.violations.push_back({binary, dep, "one_cxx_runtime",
                                   fmt::format("uses {} ('{}'); the bundle mixes C++ runtimes: {}", rt, dep, summary)});
    }
  }
  return report;
}

}  // namespace trit::bundle
