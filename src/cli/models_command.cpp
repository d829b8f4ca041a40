// `trit models list|show|rm`: what the models directory holds.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "cli/command.h"
#include "cli/format_util.h"
#include "formats/gguf/model_summary.h"
#include "formats/gguf/reader.h"
#include "store/model_store.h"

namespace trit::cli {
namespace {

struct ModelsOptions {
  bool json = false;
  std::string name;
  bool yes = false;
};

// A present entry with what its GGUF says.
struct Listed {
  store::StoreEntry entry;
  gguf::ModelSummary summary;
};

std::string TypeMix(const gguf::ModelSummary& s) {
  std::string out;
  for (const gguf::TypeUsage& u : s.types) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", u.type, u.tensors);
  return out.empty() ? "-" : out;
}

nlohmann::ordered_json EntryJson(const Listed& l) {
  const store::Manifest& m = *l.entry.manifest;
  nlohmann::ordered_json j;
  j["name"] = m.name;
  j["path"] = l.entry.paths.model;
  j["size"] = m.size;
  j["sha256"] = m.sha256;
  j["source"] = m.source;
  j["added"] = m.added;
  j["architecture"] = l.summary.architecture.empty() ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(l.summary.architecture);
  j["parameters"] = l.summary.parameters;
  nlohmann::ordered_json types = nlohmann::ordered_json::object();
  for (const gguf::TypeUsage& u : l.summary.types) types[u.type] = {{"tensors", u.tensors}, {"bytes", u.bytes}};
  j["types"] = types;
  return j;
}

std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Opens the model's GGUF; a file that no longer parses is not listed as a model.
Expected<Listed> Describe(const store::StoreEntry& e) {
  Expected<gguf::File> file = gguf::File::Open(e.paths.model);
  if (!file.ok()) return file.status();
  return Listed{e, gguf::Summarize(*file)};
}

// Cleans stale manifests, saying so, and returns the models that are present.
std::vector<Listed> PresentModels(const store::ModelStore& models) {
  for (const store::StoreEntry& e : models.CleanStale()) {
    fmt::print(stderr, "trit: removed the stale manifest of '{}': {}\n", e.name, e.problem);
  }
  std::vector<Listed> out;
  for (const store::StoreEntry& e : models.Scan()) {
    if (!e.present) {
      fmt::print(stderr, "trit: '{}' is not usable ({}); skipped\n", e.name, e.problem);
      continue;
    }
    Expected<Listed> l = Describe(e);
    if (!l.ok()) {
      fmt::print(stderr, "trit: '{}' is not a readable GGUF file ({}); skipped (trit models rm {})\n", e.name,
                 l.status().message(), e.name);
      continue;
    }
    out.push_back(std::move(l).value());
  }
  return out;
}

Expected<store::ModelStore> OpenStore() { return store::ModelStore::OpenDefault(); }

int RunList(const ModelsOptions& opt) {
  Expected<store::ModelStore> models = OpenStore();
  if (!models.ok()) {
    PrintError(models.status().message());
    return kExitFailure;
  }
  const std::vector<Listed> listed = PresentModels(*models);
  if (opt.json) {
    nlohmann::ordered_json out;
    out["dir"] = models->dir();
    out["models"] = nlohmann::ordered_json::array();
    for (const Listed& l : listed) out["models"].push_back(EntryJson(l));
    fmt::print("{}\n", Dump(out));
    return kExitSuccess;
  }
  if (listed.empty()) {
    fmt::print("no models in {} (add one with trit pull)\n", models->dir());
    return kExitSuccess;
  }
  size_t name_w = 4, arch_w = 12, types_w = 5;
  for (const Listed& l : listed) {
    name_w = std::max(name_w, l.entry.name.size());
    arch_w = std::max(arch_w, l.summary.architecture.size());
    types_w = std::max(types_w, TypeMix(l.summary).size());
  }
  fmt::print("{:<{}}  {:>10}  {:<{}}  {:<{}}  {}\n", "NAME", name_w, "SIZE", "ARCHITECTURE", arch_w, "TYPES", types_w,
             "PATH");
  for (const Listed& l : listed) {
    fmt::print("{:<{}}  {:>10}  {:<{}}  {:<{}}  {}\n", l.entry.name, name_w, FormatBytes(l.entry.manifest->size),
               l.summary.architecture.empty() ? "-" : l.summary.architecture, arch_w, TypeMix(l.summary), types_w,
               l.entry.paths.model);
  }
  return kExitSuccess;
}

// The entry of `name` when it is present and readable; prints why not otherwise.
std::optional<Listed> FindPresent(const store::ModelStore& models, const std::string& name, int* exit_code) {
  Expected<store::StoreEntry> e = models.Find(name);
  if (!e.ok()) {
    PrintError(e.status().message());
    *exit_code = e.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
    return std::nullopt;
  }
  if (!e->present) {
    PrintError(fmt::format("model '{}': {}; its manifest is stale (trit models list cleans it)", name, e->problem));
    *exit_code = kExitFailure;
    return std::nullopt;
  }
  Expected<Listed> l = Describe(*e);
  if (!l.ok()) {
    PrintError(l.status().WithContext(fmt::format("model '{}'", name)).message());
    *exit_code = kExitFailure;
    return std::nullopt;
  }
  return std::move(l).value();
}

int RunShowModel(const ModelsOptions& opt) {
  Expected<store::ModelStore> models = OpenStore();
  if (!models.ok()) {
    PrintError(models.status().message());
    return kExitFailure;
  }
  int code = kExitSuccess;
  std::optional<Listed> l = FindPresent(*models, opt.name, &code);
  if (!l.has_value()) return code;
  if (opt.json) {
    fmt::print("{}\n", Dump(EntryJson(*l)));
    return kExitSuccess;
  }
  const store::Manifest& m = *l->entry.manifest;
  fmt::print("{}\n", m.name);
  fmt::print("  path           {}\n", l->entry.paths.model);
  fmt::print("  size           {} ({} bytes)\n", FormatBytes(m.size), m.size);
  fmt::print("  sha256         {}\n", m.sha256);
  fmt::print("  source         {}\n", m.source);
  fmt::print("  added          {}\n", m.added);
  fmt::print("  architecture   {}\n", l->summary.architecture.empty() ? "(none)" : l->summary.architecture);
  fmt::print("  parameters     {} ({})\n", HumanCount(l->summary.parameters), l->summary.parameters);
  fmt::print("  types          {}\n", TypeMix(l->summary));
  fmt::print("(trit show {} describes the file in full)\n", m.name);
  return kExitSuccess;
}

int RunRemove(const ModelsOptions& opt) {
  Expected<store::ModelStore> models = OpenStore();
  if (!models.ok()) {
    PrintError(models.status().message());
    return kExitFailure;
  }
  Expected<store::StoreEntry> e = models->Find(opt.name);
  if (!e.ok() && e.status().code() == ErrorCode::kInvalidArgument) {
    PrintError(e.status().message());
    return kExitUsage;
  }
  if (!opt.yes) {
    if (::isatty(STDIN_FILENO) == 0) {
      PrintError(fmt::format("not asking on a non-terminal: run 'trit models rm {} -y' to remove it", opt.name));
      return kExitUsage;
    }
    const std::string what = e.ok() && e->manifest.has_value()
                                 ? fmt::format("'{}' ({}, {})", opt.name, FormatBytes(e->manifest->size), e->paths.model)
                                 : fmt::format("'{}'", opt.name);
    fmt::print(stderr, "Remove model {}? [y/N] ", what);
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      fmt::print(stderr, "not removed\n");
      return kExitFailure;
    }
  }
  if (Status s = models->Remove(opt.name); !s.ok()) {
    PrintError(s.message());
    return kExitFailure;
  }
  fmt::print("removed {}\n", opt.name);
  return kExitSuccess;
}

}  // namespace

Command AddModelsCommand(CLI::App& parent) {
  auto opt = std::make_shared<ModelsOptions>();
  CLI::App* app = parent.add_subcommand("models", "List, describe or remove the models in the models directory");
  app->require_subcommand(1);
  app->footer("Models live in $TRIT_HOME/models (default ~/.trit/models); add them with trit pull. See docs/MODELS.md.");

  CLI::App* list = app->add_subcommand("list", "The models present: name, size, architecture, type mix, path");
  list->add_flag("--json", opt->json, "Print {\"dir\", \"models\": [{name, path, size, sha256, source, added, "
                                      "architecture, parameters, types}]}");
  list->footer("A manifest whose model file is gone is reported on stderr and removed, never listed.");

  CLI::App* show = app->add_subcommand("show", "One model's manifest (source, sha256, added) and summary");
  show->add_option("name", opt->name, "Model name (see trit models list)")->required();
  show->add_flag("--json", opt->json, "Print one JSON object, as one element of trit models list --json");

  CLI::App* rm = app->add_subcommand("rm", "Remove a model (its file, manifest and any partial download)");
  rm->add_option("name", opt->name, "Model name (see trit models list)")->required();
  rm->add_flag("-y,--yes", opt->yes, "Do not ask (needed when stdin is not a terminal)");

  return {app, [opt, list, show, rm] {
            if (list->parsed()) return RunList(*opt);
            if (show->parsed()) return RunShowModel(*opt);
            if (rm->parsed()) return RunRemove(*opt);
            return static_cast<int>(kExitUsage);
          }};
}

}  // namespace trit::cli
