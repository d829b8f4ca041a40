// engines::OpenForCapability: the default choice loads the bundled model,
// a pin that cannot be honoured is a usage error named after the flag, and
// a file problem is not mistaken for one.
#include "engines/open_model.h"

#include <gtest/gtest.h>

#include <string>

namespace trit::engines {
namespace {

const std::string kModel = std::string(TRIT_SOURCE_DIR) + "/models/stories260K.gguf";

TEST(OpenForCapability, ChoosesTheHighestPriorityEngineAndLoads) {
  bool pin_rejected = true;
  Expected<OpenedModel> m = OpenForCapability(kModel, kCapabilityGenerate, "", &pin_rejected);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_FALSE(pin_rejected);
  EXPECT_EQ(m->format, "gguf");
  ASSERT_NE(m->engine, nullptr);
  EXPECT_EQ(m->engine->info().name, "cpu");
  ASSERT_NE(m->model, nullptr);
  EXPECT_GT(m->model->hparams().n_layer, 0);
}

TEST(OpenForCapability, HonoursAPin) {
  Expected<OpenedModel> m = OpenForCapability(kModel, kCapabilityGenerate, "reference");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->engine->info().name, "reference");
}

TEST(OpenForCapability, AnUnknownPinIsAUsageErrorNamingTheFlag) {
  bool pin_rejected = false;
  Expected<OpenedModel> m = OpenForCapability(kModel, kCapabilityGenerate, "no-such-engine", &pin_rejected);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(pin_rejected);
  EXPECT_EQ(m.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(m.status().message().starts_with("--engine no-such-engine: ")) << m.status().message();
}

TEST(OpenForCapability, AMissingFileIsNotAPinProblem) {
  bool pin_rejected = true;
  Expected<OpenedModel> m = OpenForCapability("/nonexistent/model.gguf", kCapabilityGenerate, "cpu", &pin_rejected);
  ASSERT_FALSE(m.ok());
  EXPECT_FALSE(pin_rejected);
  EXPECT_NE(m.status().message().find("/nonexistent/model.gguf"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace trit::engines
