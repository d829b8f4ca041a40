#include "engines/engine.h"

#include <algorithm>

namespace trit::engines {

bool EngineInfo::Has(const std::string& capability) const {
  return std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
}

bool EngineInfo::Accepts(const std::string& format) const {
  return std::find(formats.begin(), formats.end(), format) != formats.end();
}

bool EngineInfo::Answers(const std::string& name_or_alias) const {
  return name == name_or_alias || std::find(aliases.begin(), aliases.end(), name_or_alias) != aliases.end();
}

Expected<std::unique_ptr<runtime::Session>> Engine::CreateSession(const model::Model& model,
                                                                  const runtime::SessionOptions& options) const {
  return runtime::Session::Create(model, options);
}

Expected<std::unique_ptr<model::Encoder>> Engine::LoadEncoder(const std::string& /*path*/) const {
  return Error(ErrorCode::kUnsupported, "engine '{}' does not load embedding models", info().name);
}

Expected<PackInfo> Engine::DescribePack(const model::Model& /*model*/) const {
  return Error(ErrorCode::kUnsupported, "engine '{}' drives no device", info().name);
}

}  // namespace trit::engines
