#include "engines/builtin_engines.h"

#include <filesystem>

#include "engines/model_format.h"
#include "formats/pack/plan.h"
#include "kernels/cpu_targets.h"

namespace trit::engines {

namespace {

// Runs GGUF models on this CPU through one kernel set.
class KernelSetEngine final : public Engine {
 public:
  KernelSetEngine(EngineInfo info, kernels::KernelSet set) : info_(std::move(info)), set_(set) {}

  const EngineInfo& info() const override { return info_; }
  // The reference set is portable C++. The optimized set dispatches at run
  // time to the best compiled SIMD target this CPU runs; when it runs none of
  // them the engine says so instead of computing garbage.
  Availability Available() const override {
    if (set_ == kernels::KernelSet::kOptimized) {
      if (Status s = kernels::CheckCpuSupport(); !s.ok()) return {false, s.message()};
    }
    return {true, ""};
  }
  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const override {
    return model::LoadModel(path, model::LoadOptions{.kernels = set_});
  }
  Expected<std::unique_ptr<model::Encoder>> LoadEncoder(const std::string& path) const override {
    return model::LoadEncoder(path, model::LoadOptions{.kernels = set_});
  }

 private:
  EngineInfo info_;
  kernels::KernelSet set_;
};

// Runs a pack on this CPU: its plan names the weights (a GGUF file in the
// pack), which the cpu engine loads and runs; the device kernels stay unused.
// Needing no device, it is available wherever the cpu engine is.
class PackHostEngine final : public Engine {
 public:
  explicit PackHostEngine(EngineInfo info) : info_(std::move(info)), cpu_(MakeCpuEngine()) {}

  const EngineInfo& info() const override { return info_; }
  Availability Available() const override { return cpu_->Available(); }
  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& dir) const override {
    Expected<pack::PackPlan> plan = pack::ReadPlan(dir);  // errors name plan.json and the field
    if (!plan.ok()) return plan.status();
    const std::string weights = (std::filesystem::path(dir) / plan->model).string();
    Expected<std::unique_ptr<model::Model>> m = cpu_->LoadModel(weights);
    if (!m.ok()) return m.status().WithContext(fmt::format("pack {}: weights file {}", dir, plan->model));
    return m;
  }

 private:
  EngineInfo info_;
  std::unique_ptr<Engine> cpu_;
};

}  // namespace

std::unique_ptr<Engine> MakeCpuEngine() {
  EngineInfo info;
  info.name = "cpu";
  info.aliases = {"optimized"};
  info.priority = kCpuPriority;
  info.capabilities = {kCapabilityGenerate, kCapabilityEmbed};
  info.formats = {kFormatGguf};
  return std::make_unique<KernelSetEngine>(std::move(info), kernels::KernelSet::kOptimized);
}

std::unique_ptr<Engine> MakeReferenceEngine() {
  EngineInfo info;
  info.name = "reference";
  info.aliases = {"ref", "scalar"};
  info.priority = kReferencePriority;
  info.capabilities = {kCapabilityGenerate, kCapabilityEmbed};
  info.formats = {kFormatGguf};
  return std::make_unique<KernelSetEngine>(std::move(info), kernels::KernelSet::kReference);
}

std::unique_ptr<Engine> MakePackEngine() {
  EngineInfo info;
  info.name = "pack";
  info.aliases = {"pack-host"};
  info.priority = kPackHostPriority;
  info.capabilities = {kCapabilityGenerate};
  info.formats = {kFormatPack};
  return std::make_unique<PackHostEngine>(std::move(info));
}

}  // namespace trit::engines
