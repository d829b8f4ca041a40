// The registry's choice: priority, ties by name, availability, capability
// and format filters, pins by name or alias and their refusals.
#include "engines/registry.h"

#include <gtest/gtest.h>

#include "engines/builtin_engines.h"
#include "engines/model_format.h"

namespace trit::engines {
namespace {

// An engine that only declares itself: the registry never loads models, so
// its choice logic is tested on declarations alone.
class DeclaredEngine final : public Engine {
 public:
  DeclaredEngine(std::string name, int32_t priority, bool available, std::vector<std::string> formats = {"gguf"},
                 std::vector<std::string> capabilities = {"generate"}, std::vector<std::string> aliases = {}) {
    info_.name = std::move(name);
    info_.priority = priority;
    info_.formats = std::move(formats);
    info_.capabilities = std::move(capabilities);
    info_.aliases = std::move(aliases);
    available_ = available;
  }
  const EngineInfo& info() const override { return info_; }
  DeclaredEngine& DrivingDevice(std::string family) {
    info_.device_family = std::move(family);
    return *this;
  }
  Availability Available() const override { return {available_, available_ ? "" : "no device /dev/npu0"}; }
  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const override {
    return Error(ErrorCode::kUnsupported, "{}: declared only", path);
  }

 private:
  EngineInfo info_;
  bool available_ = false;
};

std::string Chosen(const Registry& r, const Request& q) {
  Expected<const Engine*> e = r.Choose(q);
  return e.ok() ? (*e)->info().name : "error: " + e.status().message();
}

TEST(RegistryTest, HighestPriorityAvailableEngineWins) {
  Registry r;
  r.Add(std::make_unique<DeclaredEngine>("low", 10, true));
  r.Add(std::make_unique<DeclaredEngine>("npu", 500, false));
  r.Add(std::make_unique<DeclaredEngine>("high", 100, true));
  EXPECT_EQ(Chosen(r, {"generate", "gguf", ""}), "high");
}

TEST(RegistryTest, TiesAreBrokenByNameWhateverTheOrderOfDiscovery) {
  for (bool b_first : {false, true}) {
    Registry r;
    if (b_first) r.Add(std::make_unique<DeclaredEngine>("bravo", 50, true));
    r.Add(std::make_unique<DeclaredEngine>("alpha", 50, true));
    if (!b_first) r.Add(std::make_unique<DeclaredEngine>("bravo", 50, true));
    EXPECT_EQ(Chosen(r, {"generate", "gguf", ""}), "alpha");
  }
}

TEST(RegistryTest, ADeviceEngineRunsOnlyPacksOfItsFamily) {
  Registry r;
  auto xdna = std::make_unique<DeclaredEngine>("xdna", 300, true, std::vector<std::string>{"pack"});
  xdna->DrivingDevice("xdna2");
  r.Add(std::move(xdna));
  r.Add(std::make_unique<DeclaredEngine>("pack", 50, true, std::vector<std::string>{"pack"}));
  EXPECT_EQ(Chosen(r, {"generate", "pack", "", "xdna2"}), "xdna");
  EXPECT_EQ(Chosen(r, {"generate", "pack", "", "hexagon-v81"}), "pack");
  EXPECT_EQ(Chosen(r, {"generate", "pack", "xdna", "hexagon-v81"}),
            "error: engine 'xdna' (builtin) cannot be used: drives device family 'xdna2', the model is for "
            "'hexagon-v81'; able to generate pack models: pack");
  EXPECT_EQ(r.Candidates("generate", "pack", "").size(), 1u);  // a pack naming no device: the host engine only
}

TEST(RegistryTest, CapabilityAndFormatFilter) {
  Registry r;
  r.Add(std::make_unique<DeclaredEngine>("packer", 300, true, std::vector<std::string>{"pack"}));
  r.Add(std::make_unique<DeclaredEngine>("embedder", 200, true, std::vector<std::string>{"gguf"},
                                         std::vector<std::string>{"embed"}));
  r.Add(std::make_unique<DeclaredEngine>("cpu", 100, true));
  EXPECT_EQ(Chosen(r, {"generate", "gguf", ""}), "cpu");
  EXPECT_EQ(Chosen(r, {"generate", "pack", ""}), "packer");
  EXPECT_EQ(Chosen(r, {"embed", "gguf", ""}), "embedder");
  Expected<const Engine*> none = r.Choose({"embed", "pack", ""});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(none.status().message().find("cpu (cannot embed"), std::string::npos) << none.status().message();
}

TEST(RegistryTest, PinByNameOrAliasOverridesPriority) {
  Registry r;
  r.Add(MakeCpuEngine());
  r.Add(MakeReferenceEngine());
  EXPECT_EQ(Chosen(r, {"generate", "gguf", ""}), "cpu");
  EXPECT_EQ(Chosen(r, {"generate", "gguf", "reference"}), "reference");
  EXPECT_EQ(Chosen(r, {"generate", "gguf", "ref"}), "reference");
}

TEST(RegistryTest, RefusedPinsNameTheEngineWhyAndWhoCan) {
  Registry r;
  r.Add(MakeCpuEngine());
  r.Add(MakeReferenceEngine());
  r.Add(std::make_unique<DeclaredEngine>("npu", 500, false));
  Expected<const Engine*> unknown = r.Choose({"generate", "gguf", "nosuch"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "no engine is named 'nosuch'; engines in this binary: cpu, reference, npu; able to generate gguf models: "
            "cpu, reference");
  Expected<const Engine*> off = r.Choose({"generate", "gguf", "npu"});
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(off.status().message().find("engine 'npu' (builtin) cannot be used: unavailable: no device /dev/npu0"),
            std::string::npos)
      << off.status().message();
  Expected<const Engine*> format = r.Choose({"generate", "pack", "cpu"});
  ASSERT_FALSE(format.ok());
  EXPECT_NE(format.status().message().find("does not accept pack models (formats: gguf); able to generate pack models: none"),
            std::string::npos)
      << format.status().message();
}

TEST(RegistryTest, ATakenNameIsListedUnavailable) {
  Registry r;
  r.Add(MakeCpuEngine());
  r.Add(std::make_unique<DeclaredEngine>("impostor", 900, true, std::vector<std::string>{"gguf"},
                                         std::vector<std::string>{"generate"}, std::vector<std::string>{"cpu"}));
  ASSERT_EQ(r.entries().size(), 2u);
  EXPECT_FALSE(r.entries()[1].availability.available);
  EXPECT_NE(r.entries()[1].availability.reason.find("'cpu' is already taken by engine 'cpu' (builtin)"), std::string::npos);
  EXPECT_EQ(Chosen(r, {"generate", "gguf", ""}), "cpu");
  EXPECT_EQ(Chosen(r, {"generate", "gguf", "cpu"}), "cpu");
}

}  // namespace
}  // namespace trit::engines
