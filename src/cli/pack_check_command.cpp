// `trit pack check DIR [--generation G] [--json]`: whether a pack can run on
// its device, and if not, each problem with the op, the file and what to
// fix. Exit 0 when it can, 1 when it cannot, 2 for a wrong command line.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/pack_subcommands.h"
#include "formats/elf/kernel_note.h"
#include "pack/check_pack.h"

namespace trit::cli {
namespace {

struct PackCheckOptions {
  std::string dir;
  std::string generation;
  bool json = false;
};

void PrintText(const PackCheckOptions& o, const pack::PackCheck& c) {
  fmt::print("pack {}: device {}, weights {}, {}\n", o.dir, c.plan.device, c.plan.model, pack::DescribeWidths(c.plan));
  const pack::Generation g = c.choice.generation;
  for (pack::Generation found : {pack::Generation::kSealed, pack::Generation::kPerRole}) {
    if (!c.scan.Of(found).empty()) fmt::print("found: {}\n", pack::DescribeKernelSet(found, c.scan));
  }
  fmt::print("runs: the {} set, because {}\n", pack::GenerationName(g), c.choice.reason);
  fmt::print("kernels of the {} set ({}):\n", pack::GenerationName(g), c.kernels.size());
  size_t width = 0;
  for (const pack::KernelFileState& k : c.kernels) width = std::max(width, k.file.size());
  for (const pack::KernelFileState& k : c.kernels) {
    std::string uses = k.ops == 0 ? "" : fmt::format("  M={}  {} op{}", k.m, k.ops, k.ops == 1 ? "" : "s");
    std::string note = k.note ? "  note: " + elf::KernelNoteText(*k.note) : "";
    std::string line = fmt::format("  {:<10} {:<{}}{}{}", k.state, k.file, width, uses, note);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print("{}\n", line);
  }
  for (const std::string& n : c.notes) fmt::print("note: {}\n", n);
  if (c.ok()) {
    fmt::print("pack check: ok: every op has its kernel file, and no kernel disagrees with the plan\n");
    return;
  }
  fmt::print("problems ({}):\n", c.problems.size());
  for (const pack::PackProblem& p : c.problems) {
    std::string where = p.op;
    if (!p.file.empty()) where += (where.empty() ? "" : ": ") + p.file;
    fmt::print("  {}{}{}\n", where, where.empty() ? "" : ": ", p.message);
  }
}

void PrintJson(const PackCheckOptions& o, const pack::PackCheck& c) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["dir"] = o.dir;
  j["ok"] = c.ok();
  j["device"] = c.plan.device;
  j["weights"] = c.plan.model;
  j["decode_m"] = c.plan.decode_m ? Json(*c.plan.decode_m) : Json(nullptr);
  j["prefill_m"] = c.plan.prefill_m ? Json(*c.plan.prefill_m) : Json(nullptr);
  j["found"] = {{"sealed", c.scan.sealed}, {"per-role", c.scan.per_role}};
  j["generation"] = pack::GenerationName(c.choice.generation);
  j["generation_reason"] = c.choice.reason;
  Json kernels = Json::array();
  for (const pack::KernelFileState& k : c.kernels) {
    Json e = {{"file", k.file}, {"state", k.state}, {"M", k.m}, {"ops", k.ops}};
    e["note"] = k.note ? Json(elf::KernelNoteText(*k.note)) : Json(nullptr);
    kernels.push_back(std::move(e));
  }
  j["kernels"] = std::move(kernels);
  Json problems = Json::array();
  for (const pack::PackProblem& p : c.problems) {
    problems.push_back({{"op", p.op}, {"file", p.file}, {"message", p.message}, {"missing_kernel", p.missing_kernel}});
  }
  j["problems"] = std::move(problems);
  j["notes"] = c.notes;
  fmt::print("{}\n", j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

int RunPackCheck(const PackCheckOptions& o) {
  Expected<pack::PackCheck> c = pack::CheckPack(o.dir, GenerationPin(o.generation));
  if (!c.ok()) {
    PrintError(c.status().message());
    return kExitFailure;
  }
  if (o.json) {
    PrintJson(o, *c);
  } else {
    PrintText(o, *c);
  }
  if (!c->ok()) {
    PrintError(fmt::format("{} cannot run on the device: {} problem{} (listed above); trit pack run --host runs it on "
                           "the CPU meanwhile",
                           o.dir, c->problems.size(), c->problems.size() == 1 ? "" : "s"));
    return kExitFailure;
  }
  return kExitSuccess;
}

}  // namespace

Command AddPackCheckCommand(CLI::App& pack) {
  auto o = std::make_shared<PackCheckOptions>();
  CLI::App* app = pack.add_subcommand("check", "Check a pack against its model and kernel files; name what to fix");
  app->add_option("dir", o->dir, "The pack directory (holding plan.json)")->required();
  app->add_option("--generation", o->generation, "Check this kernel set, whatever the files and the plan say")
      ->check(CLI::IsMember({"sealed", "per-role"}));
  app->add_flag("--json", o->json,
                "Print {dir, ok, device, weights, decode_m, prefill_m, found: {sealed, per-role}, generation, "
                "generation_reason, kernels: [{file, state, M, ops, note}], problems: [{op, file, message, "
                "missing_kernel}], notes}");
  app->footer(
      "Which set runs: --generation if given; else the only set whose files are present; else, with both present, "
      "plan.json's generation (sealed when it states none); with neither, plan.json's generation. "
      "Kernel files are read with trit's ELF reader; a trit.kernel note's M is checked against the plan (and a "
      "sealed kernel's op, K and N). Exit 0: the pack can run; 1: it cannot (each problem named); 2: wrong command "
      "line.\nExample:\n  trit pack check /tmp/p --json");
  return {app, [o] { return RunPackCheck(*o); }};
}

}  // namespace trit::cli
