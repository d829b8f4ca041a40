// `trit pack make MODEL DIR --device F --prefill-m M [--decode-m 1]
// [--generation sealed|per-role] [--json]`: plan.json for a model's matrices
// and the weights beside it; lists the kernel files the device toolchain
// must provide (it never writes one).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <nlohmann/json.hpp>

#include "cli/pack_subcommands.h"
#include "pack/kernel_set.h"
#include "pack/make_pack.h"
#include "store/resolve.h"

namespace trit::cli {
namespace {

struct PackMakeOptions {
  std::string model;
  std::string dir;
  pack::MakeOptions make;
  std::string generation = "sealed";
  bool json = false;
};

size_t MatrixCount(const pack::PackPlan& plan) {
  size_t n = 0;
  for (const pack::PlanOp& op : plan.ops) n += op.first_layer ? static_cast<size_t>(*op.last_layer - *op.first_layer + 1) : 1;
  return n;
}

void PrintText(const PackMakeOptions& o, const pack::MadePack& made) {
  const pack::PackPlan& p = made.plan;
  const pack::Generation g = *p.generation;
  fmt::print("pack {}: plan.json for {}, device {}, widths decode_m={} prefill_m={}\n", o.dir, p.model, p.device,
             *p.decode_m, *p.prefill_m);
  fmt::print("weights: {} ({})\n", made.weights_path, made.weights_linked ? "a hard link to the model" : "a copy of the model");
  fmt::print("ops: {} covering {} weight matrices; each names its kernel of both generations\n", p.ops.size(),
             MatrixCount(p));
  const std::vector<pack::RequiredKernel> files = pack::RequiredKernels(p, g);
  fmt::print("the device toolchain must provide ({} set, plan.json's generation):\n", pack::GenerationName(g));
  size_t width = std::string_view(pack::kPerRoleImage).size();
  for (const pack::RequiredKernel& k : files) width = std::max(width, k.file.size());
  for (const pack::RequiredKernel& k : files) {
    fmt::print("  {:<{}}  M={}  for {} op{}: {}{}\n", k.file, width, k.m, k.ops.size(), k.ops.size() == 1 ? "" : "s",
               k.ops[0], k.ops.size() > 1 ? ", ..." : "");
  }
  if (g == pack::Generation::kPerRole) {
    fmt::print("  {:<{}}  the device image the layer kernels run in\n", pack::kPerRoleImage, width);
  }
  const pack::Generation other = g == pack::Generation::kSealed ? pack::Generation::kPerRole : pack::Generation::kSealed;
  fmt::print("or the {} set: {} files (see plan.json)\n", pack::GenerationName(other),
             pack::RequiredKernels(p, other).size() + (other == pack::Generation::kPerRole ? 1 : 0));
  fmt::print("next: put the kernel files in {}, then: trit pack check {}\n", o.dir, o.dir);
}

void PrintJson(const PackMakeOptions& o, const pack::MadePack& made) {
  nlohmann::ordered_json j;
  j["dir"] = o.dir;
  j["plan"] = nlohmann::ordered_json::parse(pack::EncodePlan(made.plan));
  j["weights"] = made.weights_path;
  j["weights_linked"] = made.weights_linked;
  nlohmann::ordered_json required = nlohmann::ordered_json::array();
  for (const pack::RequiredKernel& k : pack::RequiredKernels(made.plan, *made.plan.generation)) {
    required.push_back({{"file", k.file}, {"M", k.m}, {"ops", k.ops}});
  }
  if (*made.plan.generation == pack::Generation::kPerRole) {
    required.push_back({{"file", pack::kPerRoleImage}, {"M", nullptr}, {"ops", nlohmann::ordered_json::array()}});
  }
  j["required_kernels"] = std::move(required);
  fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

int RunPackMake(PackMakeOptions& o) {
  Expected<std::string> model = store::ResolveModelArgument(o.model);
  if (!model.ok()) {
    PrintError(model.status().message());
    return kExitFailure;
  }
  o.make.generation = *pack::ParseGeneration(o.generation);
  Expected<pack::MadePack> made = pack::MakePack(*model, o.dir, o.make);
  if (!made.ok()) {
    PrintError(made.status().message());
    return made.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (o.json) {
    PrintJson(o, *made);
  } else {
    PrintText(o, *made);
  }
  return kExitSuccess;
}

}  // namespace

Command AddPackMakeCommand(CLI::App& pack) {
  auto o = std::make_shared<PackMakeOptions>();
  CLI::App* app = pack.add_subcommand("make", "Write a pack's plan.json for a model and place the weights beside it");
  app->add_option("model", o->model, "The GGUF model (a path or a name in the model store)")->required();
  app->add_option("dir", o->dir, "The pack directory to make (must not hold a plan.json)")->required();
  app->add_option("--device", o->make.device, "The device family the kernels are built for, e.g. xdna2, hexagon-v81")
      ->required();
  app->add_option("--prefill-m", o->make.prefill_m, "Rows one prefill pass computes (the kernels' width)")
      ->required()
      ->check(CLI::PositiveNumber);
  app->add_option("--decode-m", o->make.decode_m, "Rows one decode pass computes")->default_val(1)->check(CLI::PositiveNumber);
  app->add_option("--generation", o->generation, "The kernel set the plan prefers when a pack holds both")
      ->default_val("sealed")
      ->check(CLI::IsMember({"sealed", "per-role"}));
  app->add_flag("--json", o->json, "Print {dir, plan, weights, weights_linked, required_kernels: [{file, M, ops}]}");
  app->footer(
      "The plan has one op per weight-matrix role and shape over the layers that share it, plus the output head; "
      "each op names its kernel file in both generations (sealed: full_i8_<op>_K<K>_N<N>.elf, SEALED-lmhead.elf; "
      "per-role: layer_ctx<M>.elf, lmhead.elf, layer.pdi). No kernel file is written: the device toolchain builds "
      "them.\nExample:\n  trit pack make models/stories260K.gguf /tmp/p --device xdna2 --prefill-m 4");
  return {app, [o] { return RunPackMake(*o); }};
}

}  // namespace trit::cli
