#include "engines/builtin_engines.h"

#include "engines/model_format.h"
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

 private:
  EngineInfo info_;
  kernels::KernelSet set_;
};

}  // namespace

std::unique_ptr<Engine> MakeCpuEngine() {
  EngineInfo info;
  info.name = "cpu";
  info.aliases = {"optimized"};
  info.priority = kCpuPriority;
  info.capabilities = {kCapabilityGenerate};
  info.formats = {kFormatGguf};
  return std::make_unique<KernelSetEngine>(std::move(info), kernels::KernelSet::kOptimized);
}

std::unique_ptr<Engine> MakeReferenceEngine() {
  EngineInfo info;
  info.name = "reference";
  info.aliases = {"ref", "scalar"};
  info.priority = kReferencePriority;
  info.capabilities = {kCapabilityGenerate};
  info.formats = {kFormatGguf};
  return std::make_unique<KernelSetEngine>(std::move(info), kernels::KernelSet::kReference);
}

}  // namespace trit::engines
