// The registry: every engine this binary has (built-in, then plugins in
// discovery order), with its availability, and the rule that picks one.
//
// Unpinned work goes to the highest-priority available engine that has the
// capability and accepts the model's format; equal priorities are broken by
// name (smallest first) so the choice never depends on discovery order. A
// pin (name or alias) is honoured exactly or refused with the reason and the
// engines that could do the work.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "engines/engine.h"

namespace trit::engines {

struct Request {
  std::string capability;  // kCapabilityGenerate, ...
  std::string format;      // as SniffModelFormat names it
  std::string pin;         // engine name or alias; empty: choose by priority
  std::string device_family = {};  // a pack's plan.json "device": device engines of other families are passed over
};

class Registry {
 public:
  struct Entry {
    std::unique_ptr<Engine> engine;
    Availability availability;  // asked once, when the engine was added
  };

  // Adds `engine`, asking its availability once. An engine whose name or an
  // alias is already taken is kept (so it is listed) but unavailable, with
  // the reason naming the engine that holds the name.
  void Add(std::unique_ptr<Engine> engine);
  // Adds an entry that is unavailable whatever the engine says (a plugin
  // that failed to load is listed this way).
  void AddUnavailable(std::unique_ptr<Engine> engine, std::string reason);

  const std::vector<Entry>& entries() const { return entries_; }
  // The first engine answering to `name_or_alias`; nullptr when none.
  const Entry* Find(const std::string& name_or_alias) const;

  // The engine for `request`. A pin that cannot be honoured (unknown name,
  // unavailable, lacks the capability or format) is kInvalidArgument, its
  // message naming the engine, why, and the engines that can; no engine at
  // all for an unpinned request is kUnsupported, listing why each cannot.
  Expected<const Engine*> Choose(const Request& request) const;

  // The choice's order: higher priority first, equal priorities by name.
  static bool Before(const Entry& a, const Entry& b);

  // Available engines with the capability and format (and, for a device
  // engine, the device family), best first.
  std::vector<const Entry*> Candidates(const std::string& capability, const std::string& format,
                                       const std::string& device_family = "") const;

 private:
  std::optional<std::string> NameTakenBy(const EngineInfo& info) const;

  std::vector<Entry> entries_;
};

}  // namespace trit::engines
