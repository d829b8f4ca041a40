#include "pack/make_pack.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include "base/atomic_file.h"
#include "pack/kernel_set.h"
#include "pack/model_matrices.h"
#include "system/device_lock.h"

namespace trit::pack {

namespace fs = std::filesystem;

namespace {

std::vector<KernelRef> KernelsFor(const std::string& op, int64_t k, int64_t n, const MakeOptions& o) {
  std::vector<KernelRef> out;
  if (op == "lmhead") {
    out.push_back({Generation::kSealed, SealedNamedFile("lmhead"), o.prefill_m});
    out.push_back({Generation::kPerRole, kPerRoleLmHead, o.prefill_m});
    return out;
  }
  out.push_back({Generation::kSealed, SealedKernelFile(op, k, n), o.prefill_m});
  out.push_back({Generation::kPerRole, PerRoleLayerFile(o.decode_m), o.decode_m});
  if (o.prefill_m != o.decode_m) out.push_back({Generation::kPerRole, PerRoleLayerFile(o.prefill_m), o.prefill_m});
  return out;
}

Status CheckOptions(const MakeOptions& o) {
  if (Status s = system::CheckDeviceName(o.device); !s.ok()) return s.WithContext("--device");
  if (o.prefill_m < 1) return Error(ErrorCode::kInvalidArgument, "--prefill-m {}: expected a width >= 1", o.prefill_m);
  if (o.decode_m < 1 || o.decode_m > o.prefill_m) {
    return Error(ErrorCode::kInvalidArgument, "--decode-m {}: expected a width from 1 to --prefill-m ({})", o.decode_m,
                 o.prefill_m);
  }
  return Status::Ok();
}

}  // namespace

Expected<PackPlan> PlanForModel(const gguf::File& file, const std::string& model_file, const MakeOptions& options) {
  if (Status s = CheckOptions(options); !s.ok()) return s;
  PackPlan plan;
  plan.model = model_file;
  plan.device = options.device;
  plan.generation = options.generation;
  plan.decode_m = options.decode_m;
  plan.prefill_m = options.prefill_m;
  // The op that each (role, K, N) extends while its layers run consecutively.
  std::map<std::tuple<std::string, int64_t, int64_t>, size_t> open;
  for (const ModelMatrix& m : ModelMatrices(file)) {
    if (!m.layer) {
      plan.ops.push_back({"lmhead", m.name, std::nullopt, std::nullopt, m.k, m.n, KernelsFor("lmhead", m.k, m.n, options)});
      continue;
    }
    const auto key = std::make_tuple(m.role, m.k, m.n);
    auto it = open.find(key);
    if (it != open.end() && *plan.ops[it->second].last_layer + 1 == *m.layer) {
      plan.ops[it->second].last_layer = *m.layer;
      continue;
    }
    plan.ops.push_back({"matmul", "blk.{layer}." + m.role, *m.layer, *m.layer, m.k, m.n,
                        KernelsFor("matmul", m.k, m.n, options)});
    open[key] = plan.ops.size() - 1;
  }
  if (plan.ops.empty()) {
    return Error(ErrorCode::kUnsupported, "{}: no weight matrices (blk.<layer>.* or output.weight) to plan", file.path());
  }
  return plan;
}

std::vector<RequiredKernel> RequiredKernels(const PackPlan& plan, Generation g) {
  std::vector<RequiredKernel> out;
  std::map<std::string, size_t> index;
  for (const PlanOp& op : plan.ops) {
    for (const KernelRef& k : op.kernels) {
      if (k.generation != g) continue;
      auto [it, inserted] = index.emplace(k.file, out.size());
      if (inserted) out.push_back({k.file, k.m, {}});
      out[it->second].ops.push_back(op.Describe());
    }
  }
  return out;
}

Expected<MadePack> MakePack(const std::string& model_path, const std::string& dir, const MakeOptions& options) {
  Expected<gguf::File> file = gguf::File::Open(model_path);
  if (!file.ok()) return file.status();
  const std::string weights_name = fs::path(model_path).filename().string();
  if (!IsPlainFileName(weights_name) || weights_name == kPlanFileName) {
    return Error(ErrorCode::kInvalidArgument, "{}: the weights' file name cannot be used in a pack", model_path);
  }
  Expected<PackPlan> plan = PlanForModel(*file, weights_name, options);
  if (!plan.ok()) return plan.status();

  std::error_code ec;
  const fs::path plan_path = fs::path(dir) / kPlanFileName;
  if (fs::exists(plan_path, ec)) {
    return Error(ErrorCode::kInvalidArgument, "{}: already a pack (it holds plan.json); choose a new directory", dir);
  }
  fs::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: cannot make the directory: {}", dir, ec.message());

  MadePack made;
  const fs::path weights = fs::path(dir) / weights_name;
  made.weights_path = weights.string();
  if (fs::exists(weights, ec)) {
    if (!fs::equivalent(weights, model_path, ec)) {
      return Error(ErrorCode::kInvalidArgument, "{}: exists and is not {}; remove it or choose a new directory",
                   made.weights_path, model_path);
    }
    made.weights_linked = true;
  } else {
    fs::create_hard_link(model_path, weights, ec);
    made.weights_linked = !ec;
    if (ec && !fs::copy_file(model_path, weights, ec)) {
      return Error(ErrorCode::kIo, "{}: cannot place the weights there: {}", made.weights_path, ec.message());
    }
  }

  const std::string text = EncodePlan(*plan);
  Expected<AtomicFileWriter> writer = AtomicFileWriter::Create(plan_path.string());
  if (!writer.ok()) return writer.status();
  if (Status s = writer->Write({reinterpret_cast<const uint8_t*>(text.data()), text.size()}); !s.ok()) return s;
  if (Status s = writer->Commit(); !s.ok()) return s;
  made.plan = std::move(plan).value();
  return made;
}

}  // namespace trit::pack
