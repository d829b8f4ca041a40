#include "engines/open_model.h"

#include "engines/default_registry.h"
#include "engines/model_format.h"
#include "formats/pack/plan.h"

namespace trit::engines {

Expected<OpenedModel> OpenForCapability(const std::string& path, std::string_view capability,
                                        const std::string& engine, bool* pin_rejected) {
  if (pin_rejected != nullptr) *pin_rejected = false;
  OpenedModel out;
  out.registry = BuildRegistry(DiscoveryFromEnvironment());
  Expected<std::string> format = SniffModelFormat(path);
  if (!format.ok()) return format.status();
  out.format = *format;
  Request request{std::string(capability), out.format, engine, ""};
  if (out.format == kFormatPack) {
    // A device engine may run only packs built for its family.
    Expected<pack::PackPlan> plan = pack::ReadPlan(path);
    if (!plan.ok()) return plan.status();
    request.device_family = plan->device;
  }
  Expected<const Engine*> chosen = out.registry->Choose(request);
  if (!chosen.ok()) {
    if (engine.empty()) return chosen.status().WithContext(path);
    if (pin_rejected != nullptr) *pin_rejected = true;
    return Error(ErrorCode::kInvalidArgument, "--engine {}: {}", engine, chosen.status().message());
  }
  out.engine = *chosen;
  if (capability == kCapabilityEmbed) {
    Expected<std::unique_ptr<model::Encoder>> e = out.engine->LoadEncoder(path);
    if (!e.ok()) return e.status();
    out.encoder = std::move(e).value();
    return out;
  }
  Expected<std::unique_ptr<model::Model>> m = out.engine->LoadModel(path);
  if (!m.ok()) return m.status();
  out.model = std::move(m).value();
  return out;
}

}  // namespace trit::engines
