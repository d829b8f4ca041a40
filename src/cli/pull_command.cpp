// `trit pull SOURCE [--name NAME] [--sha256 HEX] [--json]`: fetch a model
// into the store (src/store/pull.h says how; docs/MODELS.md for users).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/units.h"
#include "cli/command.h"
#include "store/model_store.h"
#include "store/progress_printer.h"
#include "store/pull.h"

namespace trit::cli {
namespace {

struct PullCommandOptions {
  std::string source;
  std::string name;
  bool name_given = false;  // an empty --name is refused, not taken as "derive one"
  std::string sha256;
  bool json = false;
};

void PrintJsonError(const std::string& message) {
  nlohmann::ordered_json j;
  j["event"] = "error";
  j["message"] = message;
  fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  std::fflush(stdout);
}

int RunPull(const PullCommandOptions& opt) {
  Expected<store::ModelStore> models = store::ModelStore::OpenDefault();
  if (!models.ok()) {
    PrintError(models.status().message());
    return kExitFailure;
  }
  store::PullOptions po;
  if (opt.name_given) po.name = opt.name;
  if (!opt.sha256.empty()) po.sha256 = opt.sha256;
  const store::ProgressStyle style = opt.json ? store::ProgressStyle::kJson : store::DefaultProgressStyle(stderr);
  const store::PullObserver observer = store::MakeProgressPrinter(style, opt.json ? stdout : stderr);
  Expected<store::PullResult> result = store::Pull(*models, opt.source, po, observer);
  if (!result.ok()) {
    if (style == store::ProgressStyle::kBar) fmt::print(stderr, "\n");  // off the bar's line
    if (opt.json) PrintJsonError(result.status().message());
    PrintError(result.status().message());
    const ErrorCode code = result.status().code();
    const bool usage = code == ErrorCode::kInvalidArgument || code == ErrorCode::kNotFound;
    return usage ? kExitUsage : kExitFailure;
  }
  if (!opt.json) {
    const store::Manifest& m = result->manifest;
    fmt::print("{}\t{}\tsha256 {}\t{}\n", m.name, FormatBytes(m.size), m.sha256, result->path);
  }
  return kExitSuccess;
}

}  // namespace

Command AddPullCommand(CLI::App& parent) {
  auto opt = std::make_shared<PullCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "pull", "Download a GGUF model (URL, hf.co/ORG/REPO/FILE.gguf, or a local file) into the models directory");
  app->add_option("source", opt->source,
                  "http(s):// URL of a .gguf file, hf.co/ORG/REPO/FILE.gguf (a Hugging Face file), or a local path")
      ->required();
  CLI::Option* name = app->add_option("--name", opt->name,
                  "Name to store it under (letters, digits, '.', '_', '-'); default: the file name without .gguf, "
                  "lower-cased");
  app->add_option("--sha256", opt->sha256, "Expected SHA-256 of the file (64 hex digits); a mismatch is refused");
  app->add_flag("--json", opt->json,
                "Print one JSON event per line on stdout (start, resume, restart, progress, verify, done, "
                "already_present, waiting, error) instead of progress on stderr");
  app->footer(
      "An interrupted download stays as <name>.gguf.partial and the next pull of the same URL resumes it\n"
      "(HTTP Range). A finished file is checked (sha256 recorded, GGUF structure) before it is renamed into\n"
      "place. Models live in $TRIT_HOME/models (default ~/.trit/models); see docs/MODELS.md.\n"
      "Examples:\n"
      "  trit pull hf.co/Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf\n"
      "  trit pull https://example.com/qwen3-0.6b-q4_0.gguf --sha256 <hex>\n"
      "  trit pull ./my-model.gguf --name mine\n"
      "  trit run mine \"Once upon a time\"");
  return {app, [opt, name] {
            opt->name_given = name->count() > 0;
            return RunPull(*opt);
          }};
}

}  // namespace trit::cli
