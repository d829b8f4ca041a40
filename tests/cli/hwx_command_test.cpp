// `trit hwx inspect|regs|diff|clean|convert` run as a user would: exit codes,
// JSON, files written. The acceptance list of the hwx issue, end to end.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

std::string Ane(const std::string& rel) { return SharedDataPath("ane/" + rel); }
std::string Local(const std::string& rel) { return SourcePath("tests/data/ane/" + rel); }

#define SKIP_WITHOUT_SHARED(path) \
  if ((path).empty()) GTEST_SKIP() << "shared data ../shared/data/ane absent"

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

nlohmann::json Json(const RunResult& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << r.err;
  return j;
}

class HwxCommand : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-hwx"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Out(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(HwxCommand, InspectEveryHwxOfTheSharedData) {
  const std::string root = SharedDataPath("ane");
  SKIP_WITHOUT_SHARED(root);
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || path.find(".hwx") == std::string::npos) continue;
    ++n;
    RunResult r = RunTrit({"hwx", "inspect", path, "--json"});
    ASSERT_EQ(r.exit_code, 0) << path << r.err;
    const nlohmann::json j = Json(r);
    for (const auto& note : j["notes"]) EXPECT_NE(note["kind"], "inconsistent") << path << ": " << note["what"];
    EXPECT_EQ(j["generation"], "H13 (A14, M1)");
  }
  EXPECT_GE(n, 20);
}

TEST_F(HwxCommand, InspectReportsTheThreeMulGenerations) {
  SKIP_WITHOUT_SHARED(Ane("allbilly/mul.hwx"));
  const nlohmann::json j12 = Json(RunTrit({"hwx", "inspect", Ane("allbilly/mul.hwx"), "--json"}));
  const nlohmann::json j14 = Json(RunTrit({"hwx", "inspect", Ane("allbilly/mul_macos14.hwx"), "--json"}));
  const nlohmann::json j26 = Json(RunTrit({"hwx", "inspect", Ane("allbilly/mul_macos26.hwx"), "--json"}));
  EXPECT_EQ(j12["layout_summary"], "old");
  EXPECT_EQ(j14["layout_summary"], "old + extra kernel-DMA state");
  EXPECT_EQ(j26["layout"], "compact");
  EXPECT_EQ(j26["descriptors"][0]["size"], 0x1f8);
  std::vector<std::string> names;
  for (const auto& b : j26["buffers"]) names.push_back(b["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"image", "image2", "probs"}));
  EXPECT_EQ(j26["buffers"][2]["role"], "output");
  EXPECT_EQ(j26["buffers"][2]["bar"], 6);
  EXPECT_EQ(j26["buffers"][2]["nchw"], nlohmann::json({1, 64, 1, 1}));
  EXPECT_EQ(j26["buffers"][2]["dtype"], "float16");
  // Text form.
  RunResult r = RunTrit({"hwx", "inspect", Ane("allbilly/mul_macos14.hwx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compiler: zin_ane_compiler v7.6.4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layout: old + extra kernel-DMA state"), std::string::npos) << r.out;
}

TEST_F(HwxCommand, ConvertMatchesTheReferenceConverter) {
  const std::string root = Ane("allbilly");
  SKIP_WITHOUT_SHARED(root);
  for (const std::string name : {"mul", "tinygrad/concat", "tinygrad/conv", "tinygrad/gemm", "tinygrad/relu",
                                 "tinygrad/sum"}) {
    for (const bool compat : {false, true}) {
      const std::string out = Out("x.ane");
      std::vector<std::string> args = {"hwx", "convert", root + "/" + name + ".hwx", "-o", out};
      if (compat) args.push_back("--anecc-compat");
      RunResult r = RunTrit(args);
      ASSERT_EQ(r.exit_code, 0) << name << r.err;
      EXPECT_TRUE(Slurp(out) == Slurp(root + "/" + name + ".ane")) << name << (compat ? " --anecc-compat" : "");
      EXPECT_EQ(r.err.find("note:"), std::string::npos) << r.err;  // outputs first: nothing to say
    }
  }
}

TEST_F(HwxCommand, ConvertSaysWhenTheHwxIsInputsFirst) {
  SKIP_WITHOUT_SHARED(Ane("allbilly/mul.ane"));
  RunResult r = RunTrit({"hwx", "convert", Ane("allbilly/mul_macos26.hwx"), "-o", Out("m26.ane")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("does not put outputs first"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--anecc-compat"), std::string::npos) << r.err;
  // Its .ane describes the same tensors as the old MUL's reference .ane.
  const nlohmann::json ours = Json(RunTrit({"hwx", "inspect", Out("m26.ane"), "--json"}));
  const nlohmann::json ref = Json(RunTrit({"hwx", "inspect", Ane("allbilly/mul.ane"), "--json"}));
  EXPECT_EQ(ours["format"], "ane");
  EXPECT_EQ(ours["layout"], "compact");
  EXPECT_EQ(ours["src_count"], ref["src_count"]);
  EXPECT_EQ(ours["dst_count"], ref["dst_count"]);
  auto tensors = [](const nlohmann::json& j) {
    std::multiset<std::string> s;
    for (const auto& slot : j["slots"]) {
      if (slot["slot"] != 0) s.insert(slot["nchw"].dump() + slot["tiles"].dump() + slot["plane_stride"].dump());
    }
    return s;
  };
  EXPECT_EQ(tensors(ours), tensors(ref));
  // --anecc-compat: the reference layout, with a warning.
  r = RunTrit({"hwx", "convert", Ane("allbilly/mul_macos26.hwx"), "-o", Out("m26c.ane"), "--anecc-compat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrong buffers"), std::string::npos) << r.err;
  const std::string compat = Slurp(Out("m26c.ane")), reference = Slurp(Ane("allbilly/mul.ane"));
  EXPECT_EQ(compat.substr(0x28, 0x1000 - 0x28), reference.substr(0x28, 0x1000 - 0x28));  // tiles and nchw
}

TEST_F(HwxCommand, DiffExitCodesAndNames) {
  SKIP_WITHOUT_SHARED(Ane("allbilly/mul.hwx"));
  RunResult same = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx"), Ane("allbilly/mul.hwx")});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("identical"), std::string::npos);
  RunResult r = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx"), Ane("allbilly/mul_macos14.hwx"), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json j = Json(r);
  std::set<std::string> names;
  for (const auto& d : j["differences"]) names.insert(d["name"]);
  EXPECT_EQ(names.size(), 45u);
  EXPECT_TRUE(names.count("NE.KernelCfg"));
  EXPECT_TRUE(names.count("NE.MACCfg"));
  EXPECT_TRUE(names.count("KernelDMASrc.CoeffDMAConfig[15]"));
  EXPECT_TRUE(names.count("unknown@0x1f8c8"));
  EXPECT_TRUE(names.count("TD.Header[8]"));
  // An HWX against its reference .ane: the same registers.
  r = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx"), Ane("allbilly/mul.ane")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Unreadable input: 2.
  std::ofstream(Out("junk")) << "not an ane file";
  r = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx"), Out("junk")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("neither an HWX"), std::string::npos) << r.err;
  r = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx")});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(HwxCommand, CleanThenDiffShowsNoKernelDmaOrNeDifference) {
  SKIP_WITHOUT_SHARED(Ane("allbilly/mul.hwx"));
  RunResult r = RunTrit({"hwx", "clean", Ane("allbilly/mul_macos14.hwx"), "-o", Out("clean.hwx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NE.KernelCfg: 0x80 -> 0x0 (ne)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("42 register value(s) changed"), std::string::npos) << r.out;
  EXPECT_EQ(Slurp(Out("clean.hwx")).size(), Slurp(Ane("allbilly/mul_macos14.hwx")).size());
  r = RunTrit({"hwx", "diff", Ane("allbilly/mul.hwx"), Out("clean.hwx"), "--json"});
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json j = Json(r);
  std::set<std::string> names;
  for (const auto& d : j["differences"]) names.insert(d["name"]);
  for (const std::string& n : names) {
    EXPECT_EQ(n.find("KernelDMASrc"), std::string::npos) << n;
    EXPECT_EQ(n.find("NE."), std::string::npos) << n;
    EXPECT_EQ(n.find("unknown@0x1f8"), std::string::npos) << n;
  }
  EXPECT_EQ(names.size(), 3u);
}

TEST_F(HwxCommand, CleanRefusesAnOpThatFetchesWeights) {
  RunResult r = RunTrit({"hwx", "clean", Local("conv.hwx"), "-o", Out("c.hwx")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("fetches weights"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Out("c.hwx")));
  r = RunTrit({"hwx", "clean", Local("conv.hwx"), "-o", Out("c.hwx"), "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(Out("c.hwx")));
}

TEST_F(HwxCommand, RegsNamesEveryWrite) {
  RunResult r = RunTrit({"hwx", "regs", Local("concat.hwx"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_EQ(j["descriptors"].size(), 2u);
  EXPECT_EQ(j["descriptors"][0]["writes"].size(), 140u);
  bool found = false;
  for (const auto& w : j["descriptors"][1]["writes"]) {
    if (w["name"] == "NE.KernelCfg") {
      found = true;
      EXPECT_EQ(w["address"], 0xc800);
      EXPECT_EQ(w["value"], 0x80);
      EXPECT_TRUE(w["fields"].contains("KernelFmt"));
    }
  }
  EXPECT_TRUE(found);
  r = RunTrit({"hwx", "regs", Local("concat.hwx")});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("unknown@0x8800"), std::string::npos);
  EXPECT_NE(r.out.find("TD.Header[8]"), std::string::npos);
}

TEST_F(HwxCommand, ConvertLocalFileAndErrors) {
  RunResult r = RunTrit({"hwx", "convert", Local("concat.hwx"), "-o", Out("concat.ane")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 descriptor(s)"), std::string::npos) << r.out;
  r = RunTrit({"hwx", "inspect", Out("concat.ane")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A truncated HWX: an error naming what, nothing written.
  const std::string bytes = Slurp(Local("concat.hwx"));
  std::ofstream(Out("cut.hwx"), std::ios::binary) << bytes.substr(0, 0x4100);
  r = RunTrit({"hwx", "convert", Out("cut.hwx"), "-o", Out("cut.ane")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Out("cut.ane")));
  r = RunTrit({"hwx", "inspect", Out("missing.hwx")});
  EXPECT_EQ(r.exit_code, 1);
  r = RunTrit({"hwx", "convert", Local("concat.hwx")});
  EXPECT_EQ(r.exit_code, 2);  // -o is required
  r = RunTrit({"hwx"});
  EXPECT_EQ(r.exit_code, 2);
}

// A buffer name that is not UTF-8 (every occurrence, so the file stays
// consistent): text output escapes it, JSON replaces it; nothing throws.
TEST_F(HwxCommand, NonUtf8NamesAreEscaped) {
  std::string bytes = Slurp(Local("concat.hwx"));
  for (size_t at = bytes.find("input_1"); at != std::string::npos; at = bytes.find("input_1", at)) bytes[at + 5] = '\xff';
  std::ofstream(Out("odd.hwx"), std::ios::binary) << bytes;
  RunResult r = RunTrit({"hwx", "inspect", Out("odd.hwx"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["buffers"].size(), 3u);
  r = RunTrit({"hwx", "inspect", Out("odd.hwx")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("input\\xff1 input BAR 5"), std::string::npos) << r.out;
  r = RunTrit({"hwx", "convert", Out("odd.hwx"), "-o", Out("odd.ane")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace trit::testing
