// `trit bundle deps|symbols|check`: what a shipped binary links against
// (ELF, PE, Mach-O), read from the files themselves. See docs/BUNDLE.md.
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bundle/check.h"
#include "bundle/policy.h"
#include "bundle/resolve.h"
#include "cli/command.h"
#include "cli/format_util.h"

namespace trit::cli {
namespace {

namespace fs = std::filesystem;

// Writes to stdout and stops quietly when the reader has gone (EPIPE):
// `trit bundle symbols X | head` must not turn into a failure. SIGPIPE is
// ignored for the process so the write returns EPIPE instead of killing it.
class StdoutStream {
 public:
  StdoutStream() { std::signal(SIGPIPE, SIG_IGN); }
  // False once the output is closed or failed; callers stop producing.
  bool Write(std::string_view text) {
    if (closed_ || failed_) return false;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) Fail();
    return !closed_ && !failed_;
  }
  // Exit code: success when everything was written or the reader closed early.
  int Finish() {
    if (!closed_ && !failed_ && std::fflush(stdout) != 0) Fail();
    if (failed_) {
      PrintError(fmt::format("writing output: {}", std::strerror(errno_)));
      return kExitFailure;
    }
    return kExitSuccess;
  }

 private:
  void Fail() {
    if (errno == EPIPE) {
      closed_ = true;
    } else {
      failed_ = true;
      errno_ = errno;
    }
  }
  bool closed_ = false, failed_ = false;
  int errno_ = 0;
};

std::string Describe(const binfmt::Image& image) {
  return fmt::format("{} {}-bit {} {} {}", binfmt::FormatName(image.format), image.bits,
                     image.big_endian ? "big-endian" : "little-endian", image.arch, image.kind);
}

std::string OriginName(bundle::Origin o) {
  switch (o) {
    case bundle::Origin::kBundle: return "bundle";
    case bundle::Origin::kSystem: return "system";
    case bundle::Origin::kMissing: return "missing";
    case bundle::Origin::kMissingWeak: return "missing (weak)";
  }
  return "?";
}

// ---- deps -------------------------------------------------------------------

struct DepsOptions {
  std::string path;
  bool json = false;
};

int RunDeps(const DepsOptions& o) {
  const bundle::LoadedBinary b = bundle::LoadBinary(o.path);
  if (!b.error.empty()) {
    PrintError(fmt::format("{}: {}", o.path, b.error));
    return kExitFailure;
  }
  StdoutStream out;
  nlohmann::ordered_json json_images = nlohmann::ordered_json::array();
  for (const binfmt::Image& image : b.images) {
    nlohmann::ordered_json ji;
    std::string text = fmt::format("{}: {}\n", o.path, Describe(image));
    if (!image.soname.empty()) text += fmt::format("  name: {}\n", Quoted(image.soname, 200));
    nlohmann::ordered_json paths = nlohmann::ordered_json::array();
    for (const binfmt::SearchPath& p : image.search_paths) {
      const char* kind = p.kind == binfmt::SearchPathKind::kRunpath ? "runpath" : "rpath";
      const std::string expanded = bundle::ExpandSearchEntry(p.path, o.path, std::string());
      text += fmt::format("  {}: {} -> {}\n", kind, Quoted(p.path, 200), Quoted(expanded, 200));
      paths.push_back({{"kind", kind}, {"path", p.path}, {"expanded", expanded}});
    }
    nlohmann::ordered_json deps = nlohmann::ordered_json::array();
    for (const binfmt::Dependency& d : image.deps) {
      const std::vector<std::string> candidates = bundle::CandidatePaths(image, d, o.path, {}, {});
      std::string found;
      for (const std::string& c : candidates) {
        found = bundle::FindFile(c, image.format);
        if (!found.empty()) break;
      }
      text += fmt::format("  {}: {}", binfmt::DepKindName(d.kind), Quoted(d.name, 200));
      if (!found.empty()) {
        text += fmt::format(" -> {}", Quoted(found, 200));
      } else if (!candidates.empty()) {
        text += " (searched:";
        for (const std::string& c : candidates) text += fmt::format(" {}", Quoted(c, 200));
        text += ")";
      }
      text += "\n";
      deps.push_back({{"name", d.name}, {"kind", binfmt::DepKindName(d.kind)}, {"candidates", candidates},
                      {"found", found.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(found)}});
    }
    nlohmann::ordered_json versions = nlohmann::ordered_json::object();
    if (!image.max_versions.empty()) {
      text += "  requires:";
      for (const auto& [prefix, v] : image.max_versions) {
        text += fmt::format(" {}_{}", prefix, v);
        versions[prefix] = v;
      }
      text += "\n";
    }
    if (!o.json && !out.Write(text)) break;
    ji["format"] = binfmt::FormatName(image.format);
    ji["bits"] = image.bits;
    ji["big_endian"] = image.big_endian;
    ji["arch"] = image.arch;
    ji["kind"] = image.kind;
    ji["name"] = image.soname.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(image.soname);
    ji["search_paths"] = paths;
    ji["deps"] = deps;
    ji["max_versions"] = versions;
    json_images.push_back(ji);
  }
  if (o.json) {
    nlohmann::ordered_json j = {{"path", o.path}, {"images", json_images}};
    out.Write(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  return out.Finish();
}

// ---- symbols ----------------------------------------------------------------

struct SymbolsOptions {
  std::string path;
  bool imported = false;
  bool exported = false;
  std::string has;
  bool json = false;
};

int RunSymbols(const SymbolsOptions& o) {
  const bundle::LoadedBinary b = bundle::LoadBinary(o.path);
  if (!b.error.empty()) {
    PrintError(fmt::format("{}: {}", o.path, b.error));
    return kExitFailure;
  }
  const bool want_exported = o.exported || !o.imported;
  const bool want_imported = o.imported || !o.exported;
  if (!o.has.empty()) {
    // Exit code only: 0 present, 1 absent. Nothing is printed, so no pipe can break it.
    for (const binfmt::Image& image : b.images) {
      if (want_exported && std::find(image.exported.begin(), image.exported.end(), o.has) != image.exported.end()) return 0;
      if (want_imported && std::find(image.imported.begin(), image.imported.end(), o.has) != image.imported.end()) return 0;
    }
    return kExitFailure;
  }
  StdoutStream out;
  if (o.json) {
    nlohmann::ordered_json images = nlohmann::ordered_json::array();
    for (const binfmt::Image& image : b.images) {
      nlohmann::ordered_json ji = {{"arch", image.arch}};
      if (want_exported) ji["exported"] = image.exported;
      if (want_imported) ji["imported"] = image.imported;
      images.push_back(ji);
    }
    nlohmann::ordered_json j = {{"path", o.path}, {"images", images}};
    out.Write(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return out.Finish();
  }
  // One line per symbol, "E name" / "I name" (with the architecture first for universal files).
  const bool multi = b.images.size() > 1;
  for (const binfmt::Image& image : b.images) {
    const std::string prefix = multi ? image.arch + " " : std::string();
    auto emit = [&](const std::vector<std::string>& names, char tag) {
      for (const std::string& name : names) {
        if (!out.Write(fmt::format("{}{} {}\n", prefix, tag, name))) return false;
      }
      return true;
    };
    if (want_exported && !emit(image.exported, 'E')) break;
    if (want_imported && !emit(image.imported, 'I')) break;
  }
  return out.Finish();
}

// ---- check ------------------------------------------------------------------

struct CheckOptions {
  std::vector<std::string> paths;
  std::string policy;
  bool json = false;
};

int RunCheck(const CheckOptions& o) {
  std::ifstream in(o.policy, std::ios::binary);
  if (!in) {
    PrintError(fmt::format("--policy {}: cannot open", o.policy));
    return kExitUsage;
  }
  std::stringstream text;
  text << in.rdbuf();
  Expected<bundle::BundlePolicy> policy = bundle::ParseBundlePolicy(text.str());
  if (!policy.ok()) {
    PrintError(fmt::format("--policy {}: {}", o.policy, policy.status().message()));
    return kExitUsage;
  }
  const bundle::CheckReport report = bundle::CheckBundle(o.paths, *policy);
  StdoutStream out;
  if (o.json) {
    nlohmann::ordered_json bins = nlohmann::ordered_json::array();
    for (const bundle::CheckedBinary& cb : report.binaries) {
      nlohmann::ordered_json jb = {{"path", cb.binary.path}};
      if (!cb.binary.error.empty()) jb["error"] = cb.binary.error;
      nlohmann::ordered_json images = nlohmann::ordered_json::array();
      for (size_t i = 0; i < cb.deps.size(); ++i) {
        nlohmann::ordered_json deps = nlohmann::ordered_json::array();
        for (const bundle::ResolvedDep& r : cb.deps[i]) {
          deps.push_back({{"name", r.dep.name}, {"kind", binfmt::DepKindName(r.dep.kind)}, {"from", OriginName(r.origin)},
                          {"path", r.path.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.path)}});
        }
        images.push_back({{"arch", cb.binary.images[i].arch}, {"deps", deps}});
      }
      jb["images"] = images;
      bins.push_back(jb);
    }
    nlohmann::ordered_json violations = nlohmann::ordered_json::array();
    for (const bundle::Violation& v : report.violations) {
      violations.push_back({{"binary", v.binary}, {"entry", v.entry}, {"rule", v.rule}, {"message", v.message}});
    }
    nlohmann::ordered_json j = {{"ok", report.ok()}, {"binaries", bins}, {"violations", violations}};
    out.Write(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    for (const bundle::Violation& v : report.violations) {
      out.Write(fmt::format("{}: [{}] {}: {}\n", v.binary, v.rule, Quoted(v.entry, 200), v.message));
    }
    out.Write(fmt::format("{}: {} binar{}, {} violation{}\n", report.ok() ? "ok" : "FAILED", report.binaries.size(),
                          report.binaries.size() == 1 ? "y" : "ies", report.violations.size(),
                          report.violations.size() == 1 ? "" : "s"));
  }
  const int io = out.Finish();
  if (io != kExitSuccess) return io;
  return report.ok() ? kExitSuccess : kExitFailure;
}

}  // namespace

Command AddBundleCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("bundle", "What shipped binaries (ELF, PE, Mach-O) link against, checked against a policy");
  app->require_subcommand(1);

  auto deps = std::make_shared<DepsOptions>();
  CLI::App* d = app->add_subcommand("deps", "Format, architecture, needed libraries and where they are searched");
  d->add_option("FILE", deps->path, "Executable or shared library")->required();
  d->add_flag("--json", deps->json, "One JSON object");

  auto syms = std::make_shared<SymbolsOptions>();
  CLI::App* s = app->add_subcommand("symbols", "Exported (E) and imported (I) dynamic symbols; --has NAME for an exit code");
  s->add_option("FILE", syms->path, "Executable or shared library")->required();
  CLI::Option* imp = s->add_flag("--imported", syms->imported, "Only symbols needed from other libraries");
  s->add_flag("--exported", syms->exported, "Only symbols this file defines for others")->excludes(imp);
  s->add_option("--has", syms->has, "Exit 0 when NAME is among the symbols, 1 when not; prints nothing");
  s->add_flag("--json", syms->json, "One JSON object");

  auto check = std::make_shared<CheckOptions>();
  CLI::App* c = app->add_subcommand("check", "Resolve every binary's dependencies inside the bundle and check a policy");
  c->add_option("PATH", check->paths, "Files or directories of the bundle")->required();
  c->add_option("--policy", check->policy, "Policy JSON file (docs/BUNDLE.md)")->required();
  c->add_flag("--json", check->json, "One JSON object");

  return Command{app, [=]() -> int {
                   if (d->parsed()) return RunDeps(*deps);
                   if (s->parsed()) return RunSymbols(*syms);
                   if (c->parsed()) return RunCheck(*check);
                   return kExitUsage;
                 }};
}

}  // namespace trit::cli
