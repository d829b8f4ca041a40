// A pack directory for the tests: made by MakePack from a model, with
// stand-in kernel files built by the host C compiler (make_kernel.sh: real
// ELF files carrying a trit.kernel note), removed at the end.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/elf/kernel_note.h"
#include "pack/make_pack.h"
#include "test_paths.h"

namespace trit::pack {

class PackFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/trit-pack-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    dir_ = root_ + "/pack";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // A pack of `model` (default: the bundled model) for xdna2 at widths 1 and 4.
  PackPlan Make(const std::string& model = testing::BundledModelPath(), int64_t prefill_m = 4) {
    MakeOptions o;
    o.device = "xdna2";
    o.prefill_m = prefill_m;
    Expected<MadePack> made = MakePack(model, dir_, o);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? made->plan : PackPlan{};
  }

  // Builds dir_/file with a trit.kernel note `desc` ("" for no note).
  void BuildKernel(const std::string& file, const std::string& desc) {
    const std::string cmd = "bash '" + testing::SourcePath("tests/pack/make_kernel.sh") + "' '" TRIT_TEST_CC "' '" +
                            dir_ + "/" + file + "' '" + desc + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }

  // Every kernel of generation `g` the plan names, each with the note its
  // first use asks for.
  void BuildKernels(const PackPlan& plan, Generation g) {
    for (const RequiredKernel& k : RequiredKernels(plan, g)) {
      const PlanOp* first = nullptr;
      for (const PlanOp& op : plan.ops) {
        if (op.Describe() == k.ops[0]) first = &op;
      }
      ASSERT_NE(first, nullptr);
      elf::KernelNote note;
      note.op = g == Generation::kSealed ? first->op : "layer";
      note.k = first->k;
      note.n = first->n;
      note.m = k.m;
      BuildKernel(k.file, elf::KernelNoteText(note));
    }
    if (g == Generation::kPerRole) std::ofstream(dir_ + "/layer.pdi") << "device image";
  }

  void WriteFile(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }

  std::string root_, dir_;
};

}  // namespace trit::pack
