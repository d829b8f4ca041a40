// What `trit hwx inspect|regs|diff` print, as text and as JSON, from a
// loaded .hwx or .ane file. Pure functions of the parsed file, unit-tested.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "formats/hwx/ane_file.h"
#include "formats/hwx/diff.h"
#include "formats/hwx/hwx_file.h"

namespace trit::hwx {

// A file `trit hwx` reads: an HWX (by its magic) or a driver .ane file.
struct HwxInput {
  std::string path;
  MappedFile file;
  std::optional<hwx::HwxFile> hwx;
  std::optional<hwx::AneFile> ane;
  const std::vector<hwx::Descriptor>& descriptors() const { return hwx ? hwx->descriptors : ane->descriptors; }
};

Expected<HwxInput> LoadHwxInput(const std::string& path);

// "old", "compact", "other" or "mixed" over the chain.
std::string ChainLayout(const std::vector<hwx::Descriptor>& descriptors);
// ChainLayout plus ", chained (N descriptors)" and " + extra kernel-DMA state".
std::string LayoutSummary(const std::vector<hwx::Descriptor>& descriptors);

std::string InspectText(const HwxInput& in);
nlohmann::ordered_json InspectJson(const HwxInput& in);

std::string RegsText(const HwxInput& in);
nlohmann::ordered_json RegsJson(const HwxInput& in);

std::string DiffText(const std::vector<hwx::Difference>& diffs, const HwxInput& a, const HwxInput& b);
nlohmann::ordered_json DiffJson(const std::vector<hwx::Difference>& diffs, const HwxInput& a, const HwxInput& b);

}  // namespace trit::hwx
