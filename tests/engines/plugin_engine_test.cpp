// AdoptPluginEngine on trit_engine structs built here: the struct_size rule
// (a plugin built against the version-1 base header is a host engine, and
// nothing past its struct_size is read), the checks on a device engine's
// fields, and DescribePack through the ABI with what it validates.
#include "engines/plugin_engine.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

// The ABI's opaque model, as a test plugin defines it: what its
// describe_pack reports.
struct trit_model {
  trit_pack_info pack;
  int32_t describe_pack_rc;
};

namespace trit::engines {
namespace {

int32_t Available(void*, char*, size_t) { return 1; }
// Hands back the trit_model the test put in ctx.
trit_model* LoadModel(void* ctx, const char*, char*, size_t) { return static_cast<trit_model*>(ctx); }
int32_t DescribeModel(const trit_model*, trit_model_info* out) {
  std::snprintf(out->architecture, sizeof out->architecture, "llama");
  out->n_vocab = out->n_ctx_train = out->n_embd = out->n_layer = out->n_head = out->n_head_kv = out->head_dim = 8;
  return 0;
}
int32_t Forward(trit_model*, const trit_forward_batch*, const trit_kv_access*, int32_t, float*, char* error, size_t size) {
  std::snprintf(error, size, "not run by these tests");
  return 1;
}
void FreeModel(trit_model*) {}
int32_t DescribePack(const trit_model* model, trit_pack_info* out) {
  *out = model->pack;
  return model->describe_pack_rc;
}

const char* const kCaps[] = {"generate", nullptr};
const char* const kPack[] = {"pack", nullptr};
const char* const kGguf[] = {"gguf", nullptr};

std::shared_ptr<const PluginLibrary> Library() {
  auto l = std::make_shared<PluginLibrary>();
  l->path = "/test/libnpu.so";
  return l;
}

// A complete device engine for "xdna2" whose models are `model`.
trit_engine DeviceEngine(trit_model* model, const char* name = "npu") {
  trit_engine e{};
  e.struct_size = sizeof e;
  e.name = name;
  e.priority = 300;
  e.capabilities = kCaps;
  e.formats = kPack;
  e.ctx = model;
  e.available = &Available;
  e.load_model = &LoadModel;
  e.describe_model = &DescribeModel;
  e.forward = &Forward;
  e.free_model = &FreeModel;
  e.device_family = "xdna2";
  e.describe_pack = &DescribePack;
  return e;
}

std::string Refusal(const trit_engine& e) {
  Expected<std::unique_ptr<Engine>> a = AdoptPluginEngine(e, Library());
  return a.ok() ? "adopted" : a.status().message();
}

TEST(PluginEngineTest, DeviceEngineDeclaresItsFamily) {
  trit_model m{};
  Expected<std::unique_ptr<Engine>> a = AdoptPluginEngine(DeviceEngine(&m), Library());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ((*a)->info().device_family, "xdna2");
  EXPECT_EQ((*a)->info().formats, std::vector<std::string>{"pack"});
}

TEST(PluginEngineTest, V1BaseStructIsAHostEngineAndNothingPastItIsRead) {
  trit_model m{};
  // What follows struct_size is not the plugin's: a family there must be ignored.
  trit_engine e = DeviceEngine(&m);
  e.struct_size = offsetof(trit_engine, device_family);
  e.formats = kGguf;
  Expected<std::unique_ptr<Engine>> a = AdoptPluginEngine(e, Library());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE((*a)->info().device_family.empty());
  Expected<std::unique_ptr<model::Model>> model = (*a)->LoadModel("/models/x.gguf");
  ASSERT_TRUE(model.ok()) << model.status().message();
  Expected<PackInfo> p = (*a)->DescribePack(**model);  // describe_pack lies past struct_size: never called
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(p.status().message(), "engine 'npu' drives no device");

  e.struct_size = offsetof(trit_engine, device_family) - 1;
  EXPECT_EQ(Refusal(e), "trit_engine.struct_size is " + std::to_string(offsetof(trit_engine, device_family) - 1) +
                            ", expected at least " + std::to_string(offsetof(trit_engine, device_family)));
}

TEST(PluginEngineTest, DeviceEngineWithoutDescribePackIsRefused) {
  trit_model m{};
  trit_engine e = DeviceEngine(&m);
  e.describe_pack = nullptr;
  EXPECT_EQ(Refusal(e), "engine 'npu': device_family is 'xdna2' but describe_pack is NULL");
}

TEST(PluginEngineTest, DeviceEngineThatDoesNotAcceptPacksIsRefused) {
  trit_model m{};
  trit_engine e = DeviceEngine(&m);
  e.formats = kGguf;
  EXPECT_EQ(Refusal(e), "engine 'npu': device_family is 'xdna2' but formats do not list \"pack\"");
}

TEST(PluginEngineTest, DeviceFamilyHasTheChecksOfAName) {
  trit_model m{};
  trit_engine e = DeviceEngine(&m);
  e.device_family = "";
  EXPECT_EQ(Refusal(e), "trit_engine.device_family must be 1..128 bytes long");
  const std::string long_name(129, 'x');
  e.device_family = long_name.c_str();
  EXPECT_EQ(Refusal(e), "trit_engine.device_family must be 1..128 bytes long");
}

TEST(PluginEngineTest, HostPluginEngineDrivesNoDevice) {
  trit_model m{};
  trit_engine e = DeviceEngine(&m, "host");
  e.device_family = nullptr;
  e.formats = kGguf;
  Expected<std::unique_ptr<Engine>> a = AdoptPluginEngine(e, Library());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE((*a)->info().device_family.empty());
  Expected<std::unique_ptr<model::Model>> model = (*a)->LoadModel("/models/x.gguf");
  ASSERT_TRUE(model.ok()) << model.status().message();
  Expected<PackInfo> p = (*a)->DescribePack(**model);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "engine 'host' drives no device");
}

class DescribePackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::snprintf(model_.pack.generation, sizeof model_.pack.generation, "per-role");
    model_.pack.width = 64;
    model_.pack.n_kernels = 12;
    Expected<std::unique_ptr<Engine>> a = AdoptPluginEngine(DeviceEngine(&model_), Library());
    ASSERT_TRUE(a.ok()) << a.status().message();
    engine_ = std::move(a).value();
    Expected<std::unique_ptr<model::Model>> m = engine_->LoadModel("/packs/p");
    ASSERT_TRUE(m.ok()) << m.status().message();
    loaded_ = std::move(m).value();
  }
  std::string Described() {
    Expected<PackInfo> p = engine_->DescribePack(*loaded_);
    if (!p.ok()) return p.status().message();
    return p->generation + " width " + std::to_string(p->width) + " kernels " + std::to_string(p->n_kernels);
  }

  trit_model model_{};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<model::Model> loaded_;
};

TEST_F(DescribePackTest, ReportsWhatThePluginSays) { EXPECT_EQ(Described(), "per-role width 64 kernels 12"); }

TEST_F(DescribePackTest, GenerationMustBeNulTerminatedAndNonEmpty) {
  std::memset(model_.pack.generation, 'g', sizeof model_.pack.generation);  // no NUL
  EXPECT_EQ(Described(), "engine 'npu' (/test/libnpu.so): pack info generation must be 1..31 bytes and NUL-terminated");
  std::memset(model_.pack.generation, 0, sizeof model_.pack.generation);
  EXPECT_EQ(Described(), "engine 'npu' (/test/libnpu.so): pack info generation must be 1..31 bytes and NUL-terminated");
  std::memset(model_.pack.generation, 'g', sizeof model_.pack.generation - 1);  // 31 bytes and the NUL: fine
  EXPECT_EQ(Described(), std::string(31, 'g') + " width 64 kernels 12");
}

TEST_F(DescribePackTest, WidthAndKernelCountMustBePositive) {
  model_.pack.width = 0;
  EXPECT_EQ(Described(), "engine 'npu' (/test/libnpu.so): pack info width = 0 and n_kernels = 12 must both be >= 1");
  model_.pack.width = 64;
  model_.pack.n_kernels = -1;
  EXPECT_EQ(Described(), "engine 'npu' (/test/libnpu.so): pack info width = 64 and n_kernels = -1 must both be >= 1");
}

TEST_F(DescribePackTest, PluginFailureIsAnError) {
  model_.describe_pack_rc = 3;
  EXPECT_EQ(Described(), "engine 'npu' (/test/libnpu.so) could not describe the pack it loaded");
}

// Not a model of this engine's plugin: trit must not hand it to describe_pack.
class BuiltinModel final : public model::Model {
 public:
  const model::HParams& hparams() const override { return hparams_; }
  void Forward(const model::ForwardBatch&, model::KvProvider&, ThreadPool&, float*) const override {}

 private:
  model::HParams hparams_;
};

TEST_F(DescribePackTest, ModelOfAnotherEngineIsRefused) {
  trit_model other_model = model_;
  // Another name in the same kind of library, and the same name in another library.
  for (const char* name : {"npu2", "npu"}) {
    Expected<std::unique_ptr<Engine>> other = AdoptPluginEngine(DeviceEngine(&other_model, name), Library());
    ASSERT_TRUE(other.ok()) << other.status().message();
    Expected<PackInfo> p = (*other)->DescribePack(*loaded_);
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_EQ(p.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(p.status().message(), "engine '" + std::string(name) + "' was asked to describe a model it did not load");
  }
  Expected<PackInfo> p = engine_->DescribePack(BuiltinModel());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "engine 'npu' was asked to describe a model it did not load");
}

}  // namespace
}  // namespace trit::engines
