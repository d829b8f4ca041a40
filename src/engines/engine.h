// The Engine interface (docs/DESIGN.md contract 4): what an engine declares about
// itself, whether it can run here, and the entry points that load a model and
// open a session on it. Built-in engines implement it in C++; plugins through
// the C ABI of include/trit/engine.h (plugin_engine.h adapts them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/encoder.h"
#include "model/model.h"
#include "runtime/session.h"

namespace trit::engines {

// Capability names an engine may declare.
inline constexpr const char* kCapabilityGenerate = "generate";
inline constexpr const char* kCapabilityEmbed = "embed";

// Where an engine comes from: compiled into trit, or a plugin file.
inline constexpr const char* kOriginBuiltin = "builtin";

struct EngineInfo {
  std::string name;                       // unique; what --engine and trit backends use
  std::vector<std::string> aliases;       // other names --engine accepts
  int32_t priority = 0;                   // higher wins among available engines
  std::vector<std::string> capabilities;  // kCapabilityGenerate, ...
  std::vector<std::string> formats;       // model formats as SniffModelFormat names them
  std::string origin = kOriginBuiltin;    // "builtin" or the plugin's path
  std::string device_family;              // the device it drives, as a pack's plan.json "device"; empty: none

  bool Has(const std::string& capability) const;
  bool Accepts(const std::string& format) const;
  bool Answers(const std::string& name_or_alias) const;
};

// What a device engine says of a pack it loaded (trit_pack_info).
struct PackInfo {
  std::string generation;  // kernel set the pack runs: "sealed" or "per-role"
  int64_t width = 0;       // rows one forward pass runs (the kernels' prefill M)
  int64_t n_kernels = 0;   // kernel files the engine loaded
};

struct Availability {
  bool available = false;
  std::string reason;  // why not, when !available
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual const EngineInfo& info() const = 0;
  // Whether the engine can run on this machine, with the reason when not.
  virtual Availability Available() const = 0;
  // Loads the model at `path` (whose format the engine accepts). Errors name
  // the file and what is wrong with it.
  virtual Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const = 0;
  // Loads the embedding model at `path` (engines with the embed
  // capability). The default is kUnsupported naming the engine.
  virtual Expected<std::unique_ptr<model::Encoder>> LoadEncoder(const std::string& path) const;
  // A session (KV cache, threads) over a model this engine loaded. The
  // default is trit's runtime session, which drives Model::Forward.
  virtual Expected<std::unique_ptr<runtime::Session>> CreateSession(const model::Model& model,
                                                                    const runtime::SessionOptions& options) const;
  // The kernel set and width of a pack this engine loaded (`model` came from
  // this engine's LoadModel on a pack directory). The default, for engines
  // that drive no device, is kUnsupported naming the engine.
  virtual Expected<PackInfo> DescribePack(const model::Model& model) const;
};

}  // namespace trit::engines
