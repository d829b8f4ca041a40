// plan.json (formats/pack/plan.h): a full plan parses to the fields it
// states and encodes back to itself; every malformed field is refused by
// its name; a newer version is refused as newer.
#include "formats/pack/plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace trit::pack {
namespace {

constexpr const char* kPlan = R"({
  "format": "trit-pack", "version": 1, "model": "model.gguf", "device": "xdna2",
  "generation": "sealed", "decode_m": 1, "prefill_m": 4,
  "ops": [
    {"op": "matmul", "tensors": "blk.{layer}.attn_q.weight", "layers": [0, 4], "K": 64, "N": 128,
     "kernels": [{"generation": "sealed", "file": "full_i8_matmul_K64_N128.elf", "M": 4},
                 {"generation": "per-role", "file": "layer_ctx1.elf", "M": 1}]},
    {"op": "lmhead", "tensors": "output.weight", "K": 64, "N": 512, "kernels": []}
  ]
})";

// kPlan with `from` replaced by `to` (once; the test fails when absent).
std::string PlanWith(const std::string& from, const std::string& to) {
  std::string s = kPlan;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string ErrorOf(const std::string& text) {
  Expected<PackPlan> p = ParsePlan(text);
  EXPECT_FALSE(p.ok()) << text;
  return p.ok() ? std::string() : p.status().message();
}

TEST(PlanTest, ParsesEveryField) {
  Expected<PackPlan> p = ParsePlan(kPlan);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->model, "model.gguf");
  EXPECT_EQ(p->device, "xdna2");
  EXPECT_EQ(p->generation, Generation::kSealed);
  EXPECT_EQ(p->decode_m, 1);
  EXPECT_EQ(p->prefill_m, 4);
  ASSERT_EQ(p->ops.size(), 2u);
  const PlanOp& q = p->ops[0];
  EXPECT_EQ(q.op, "matmul");
  EXPECT_EQ(q.k, 64);
  EXPECT_EQ(q.n, 128);
  EXPECT_EQ(q.first_layer, 0);
  EXPECT_EQ(q.last_layer, 4);
  ASSERT_EQ(q.kernels.size(), 2u);
  EXPECT_EQ(q.kernels[1].generation, Generation::kPerRole);
  EXPECT_EQ(q.kernels[1].file, "layer_ctx1.elf");
  EXPECT_EQ(q.kernels[1].m, 1);
  EXPECT_FALSE(p->ops[1].first_layer.has_value());
  EXPECT_EQ(q.Describe(), "matmul blk.{layer}.attn_q.weight (layers 0-4)");
  EXPECT_EQ(p->ops[1].Describe(), "lmhead output.weight");
}

TEST(PlanTest, ExpandsLayerRanges) {
  Expected<PackPlan> p = ParsePlan(kPlan);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ops[0].TensorNames(),
            (std::vector<std::string>{"blk.0.attn_q.weight", "blk.1.attn_q.weight", "blk.2.attn_q.weight",
                                      "blk.3.attn_q.weight", "blk.4.attn_q.weight"}));
  EXPECT_EQ(p->ops[1].TensorNames(), std::vector<std::string>{"output.weight"});
}

TEST(PlanTest, EncodesToTextThatParsesToTheSamePlan) {
  Expected<PackPlan> p = ParsePlan(kPlan);
  ASSERT_TRUE(p.ok());
  const std::string text = EncodePlan(*p);
  Expected<PackPlan> again = ParsePlan(text);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(EncodePlan(*again), text);
  EXPECT_EQ(again->ops[0].kernels[0].file, "full_i8_matmul_K64_N128.elf");
  EXPECT_EQ(again->prefill_m, 4);
  EXPECT_NE(text.find("\"prefill_m\": 4,\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    {\"op\": \"matmul\", \"tensors\": \"blk.{layer}.attn_q.weight\", \"layers\": [0, 4], \"K\": 64, \"N\": 128, \"kernels\": [\n      {\"generation\": \"sealed\""), std::string::npos) << text;
}

TEST(PlanTest, WidthsAndGenerationAreOptional) {
  Expected<PackPlan> p = ParsePlan(
      R"({"format":"trit-pack","version":1,"model":"m.gguf","device":"hexagon-v81","ops":[]})");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(p->prefill_m.has_value());
  EXPECT_FALSE(p->decode_m.has_value());
  EXPECT_FALSE(p->generation.has_value());
  EXPECT_EQ(EncodePlan(*p).find("prefill_m"), std::string::npos);
}

TEST(PlanTest, RefusesEachBadFieldByName) {
  EXPECT_EQ(ErrorOf("[1]"), "plan.json: expected a JSON object at the top level");
  EXPECT_EQ(ErrorOf("{"), "plan.json: not valid JSON");
  EXPECT_EQ(ErrorOf(PlanWith("\"trit-pack\"", "\"other\"")), "plan.json: format: expected \"trit-pack\"");
  EXPECT_EQ(ErrorOf(PlanWith("\"prefill_m\": 4", "\"prefill_m\": 0")),
            "plan.json: prefill_m: 0 is out of range 1..2147483648");
  EXPECT_EQ(ErrorOf(PlanWith("\"prefill_m\": 4", "\"prefill_m\": 4.5")), "plan.json: prefill_m: expected an integer >= 1");
  EXPECT_EQ(ErrorOf(PlanWith("\"decode_m\": 1", "\"decode_m\": \"1\"")), "plan.json: decode_m: expected an integer >= 1");
  EXPECT_EQ(ErrorOf(PlanWith("\"generation\": \"sealed\"", "\"generation\": \"v2\"")),
            "plan.json: generation: expected \"sealed\" or \"per-role\"");
  EXPECT_EQ(ErrorOf(PlanWith("\"model.gguf\"", "\"../model.gguf\"")),
            "plan.json: model: '../model.gguf' is not a plain file name inside the pack (no '/', '.' or '..')");
  EXPECT_EQ(ErrorOf(PlanWith("\"M\": 1", "\"M\": -1")), "plan.json: ops[0].kernels[1].M: -1 is out of range 1..2147483648");
  EXPECT_EQ(ErrorOf(PlanWith("\"layer_ctx1.elf\"", "\"sub/layer_ctx1.elf\"")),
            "plan.json: ops[0].kernels[1].file: 'sub/layer_ctx1.elf' is not a plain file name inside the pack (no '/', "
            "'.' or '..')");
  EXPECT_EQ(ErrorOf(PlanWith("\"generation\": \"per-role\", ", "")), "plan.json: ops[0].kernels[1]: missing 'generation'");
  EXPECT_EQ(ErrorOf(PlanWith("\"layers\": [0, 4]", "\"layers\": [4, 0]")),
            "plan.json: ops[0].layers: first layer 4 is after last layer 0");
  EXPECT_EQ(ErrorOf(PlanWith("\"layers\": [0, 4]", "\"layers\": [0]")),
            "plan.json: ops[0].layers: expected [first, last], two layer numbers");
  EXPECT_EQ(ErrorOf(PlanWith("\"layers\": [0, 4], ", "")),
            "plan.json: ops[0]: 'tensors' has '{layer}' but there is no 'layers' range");
  EXPECT_EQ(ErrorOf(PlanWith("\"tensors\": \"output.weight\"", "\"tensors\": \"output.weight\", \"layers\": [0, 1]")),
            "plan.json: ops[1]: 'layers' is given but 'tensors' has no '{layer}'");
  EXPECT_EQ(ErrorOf(PlanWith("blk.{layer}.attn_q", "blk.{layer}.{layer}")),
            "plan.json: ops[0].tensors: '{layer}' appears more than once");
  EXPECT_EQ(ErrorOf(PlanWith("\"K\": 64, \"N\": 128", "\"N\": 128")), "plan.json: ops[0]: missing 'K'");
  EXPECT_EQ(ErrorOf(PlanWith("\"kernels\": []", "\"kernels\": {}")), "plan.json: ops[1].kernels: expected an array of kernels");
  EXPECT_EQ(ErrorOf(PlanWith("\"device\": \"xdna2\",", "")),
            "plan.json: device: missing (the device family, e.g. \"xdna2\")");
  EXPECT_EQ(ErrorOf(PlanWith("\"op\": \"lmhead\"", "\"op\": \"lmhead\", \"stride\": 2")),
            "plan.json: ops[1].stride: unknown key (known: op, tensors, layers, K, N, kernels)");
  EXPECT_EQ(ErrorOf(PlanWith("\"decode_m\": 1", "\"decode_M\": 1")),
            "plan.json: decode_M: unknown key (known: format, version, model, device, generation, decode_m, prefill_m, "
            "ops, comment)");
}

TEST(PlanTest, RefusesANewerVersionAsNewer) {
  // Version 2 may add keys: it is refused for being newer, before any unknown key is.
  EXPECT_EQ(ErrorOf(PlanWith("\"version\": 1", "\"version\": 2, \"tiles\": 4")),
            "plan.json: version: 2 is newer than this trit reads (1); update trit");
  EXPECT_EQ(ErrorOf(PlanWith("\"version\": 1,", "")), "plan.json: version: missing");
}

TEST(PlanTest, RefusesDeepNesting) {
  std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(ErrorOf(deep), "plan.json: nested deeper than 16 levels");
}

TEST(PlanTest, PlainFileNames) {
  EXPECT_TRUE(IsPlainFileName("layer_ctx17.elf"));
  EXPECT_FALSE(IsPlainFileName(""));
  EXPECT_FALSE(IsPlainFileName(".."));
  EXPECT_FALSE(IsPlainFileName("."));
  EXPECT_FALSE(IsPlainFileName("a/b"));
  EXPECT_FALSE(IsPlainFileName(std::string("a\0b", 3)));
}

TEST(PlanTest, ReadPlanNamesTheDirectory) {
  char pattern[] = "/tmp/trit-plan-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  Expected<PackPlan> missing = ReadPlan(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), dir + "/plan.json: cannot open for reading");
  std::ofstream(dir + "/plan.json") << PlanWith("\"K\": 64, \"N\": 512", "\"K\": 64, \"N\": 0");
  Expected<PackPlan> bad = ReadPlan(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), dir + ": plan.json: ops[1].N: 0 is out of range 1..2147483648");
  std::ofstream(dir + "/plan.json") << kPlan;
  Expected<PackPlan> good = ReadPlan(dir);
  EXPECT_TRUE(good.ok()) << good.status().message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace trit::pack
