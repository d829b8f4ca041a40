#include "engines/registry.h"

#include <algorithm>

namespace trit::engines {

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

// Why `entry` cannot serve (capability, format, device family); empty when it can.
std::string WhyNot(const Registry::Entry& entry, const std::string& capability, const std::string& format,
                   const std::string& device_family) {
  const EngineInfo& info = entry.engine->info();
  if (!entry.availability.available) return "unavailable: " + entry.availability.reason;
  if (!info.Has(capability)) return fmt::format("cannot {} (capabilities: {})", capability, Join(info.capabilities));
  if (!info.Accepts(format)) return fmt::format("does not accept {} models (formats: {})", format, Join(info.formats));
  // A device engine runs packs built for its own family only.
  if (!info.device_family.empty() && info.device_family != device_family) {
    return device_family.empty()
               ? fmt::format("drives device family '{}', and the model names no device", info.device_family)
               : fmt::format("drives device family '{}', the model is for '{}'", info.device_family, device_family);
  }
  return "";
}

}  // namespace

std::optional<std::string> Registry::NameTakenBy(const EngineInfo& info) const {
  std::vector<std::string> names = info.aliases;
  names.insert(names.begin(), info.name);
  for (const Entry& e : entries_) {
    for (const std::string& n : names) {
      if (e.engine->info().Answers(n)) {
        return fmt::format("the name '{}' is already taken by engine '{}' ({})", n, e.engine->info().name,
                           e.engine->info().origin);
      }
    }
  }
  return std::nullopt;
}

void Registry::Add(std::unique_ptr<Engine> engine) {
  if (std::optional<std::string> taken = NameTakenBy(engine->info())) {
    AddUnavailable(std::move(engine), *taken);
    return;
  }
  Availability a = engine->Available();
  if (!a.available && a.reason.empty()) a.reason = "the engine gave no reason";
  entries_.push_back({std::move(engine), std::move(a)});
}

void Registry::AddUnavailable(std::unique_ptr<Engine> engine, std::string reason) {
  entries_.push_back({std::move(engine), Availability{false, std::move(reason)}});
}

const Registry::Entry* Registry::Find(const std::string& name_or_alias) const {
  for (const Entry& e : entries_) {
    if (e.engine->info().Answers(name_or_alias)) return &e;
  }
  return nullptr;
}

bool Registry::Before(const Entry& a, const Entry& b) {
  const EngineInfo& x = a.engine->info();
  const EngineInfo& y = b.engine->info();
  return x.priority != y.priority ? x.priority > y.priority : x.name < y.name;
}

std::vector<const Registry::Entry*> Registry::Candidates(const std::string& capability, const std::string& format,
                                                         const std::string& device_family) const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries_) {
    if (WhyNot(e, capability, format, device_family).empty()) out.push_back(&e);
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) { return Before(*a, *b); });
  return out;
}

Expected<const Engine*> Registry::Choose(const Request& request) const {
  const std::vector<const Entry*> candidates = Candidates(request.capability, request.format, request.device_family);
  std::vector<std::string> able;
  for (const Entry* e : candidates) able.push_back(e->engine->info().name);
  if (!request.pin.empty()) {
    const Entry* pinned = Find(request.pin);
    if (pinned == nullptr) {
      std::vector<std::string> all;
      for (const Entry& e : entries_) all.push_back(e.engine->info().name);
      return Error(ErrorCode::kInvalidArgument, "no engine is named '{}'; engines in this binary: {}; able to {} {} models: {}",
                   request.pin, Join(all), request.capability, request.format, Join(able));
    }
    const std::string why = WhyNot(*pinned, request.capability, request.format, request.device_family);
    if (!why.empty()) {
      return Error(ErrorCode::kInvalidArgument, "engine '{}' ({}) cannot be used: {}; able to {} {} models: {}",
                   pinned->engine->info().name, pinned->engine->info().origin, why, request.capability, request.format,
                   Join(able));
    }
    return pinned->engine.get();
  }
  if (candidates.empty()) {
    std::vector<std::string> reasons;
    for (const Entry& e : entries_) {
      reasons.push_back(fmt::format("{} ({})", e.engine->info().name,
                                     WhyNot(e, request.capability, request.format, request.device_family)));
    }
    return Error(ErrorCode::kUnsupported, "no available engine can {} a {} model: {}", request.capability, request.format,
                 Join(reasons));
  }
  return candidates.front()->engine.get();
}

}  // namespace trit::engines
