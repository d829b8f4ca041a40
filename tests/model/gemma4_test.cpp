// The gemma4 architecture on a tiny random-weight Gemma 4 converted by
// llama.cpp's own converter (tests/data/hf/gemma4/, every part of the
// architecture in one file: per-layer head sizes and KV heads, proportional
// rope, V = K layers, shared-KV layers, per-layer embeddings, double-wide
// MLP, final soft-capping; and a twin whose full layers have their own V):
// every row's logits against transformers' float32
// forward of the same checkpoint, the same bits for any pass width and
// thread count, and a session's shared cache through Truncate and CopyPrefix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/chunked_logits.h"
#include "model/transformers_reference.h"
#include "model/model.h"
#include "runtime/session.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

constexpr const char* kModel = "tests/data/hf/gemma4/gemma4-tiny-f32.gguf";
constexpr const char* kLogits = "tests/data/hf/gemma4/expected_logits.json";
// The same model with full layers that have their own V (attention_k_eq_v
// false, as Gemma 4 E2B and E4B).
constexpr const char* kOwnVModel = "tests/data/hf/gemma4/gemma4-ownv-tiny-f32.gguf";
constexpr const char* kOwnVLogits = "tests/data/hf/gemma4/expected_logits_ownv.json";

// Measured: trit with an f32 cache is within 1.9e-5 of transformers' float32
// logits on this file, both kernel sets (the reference is rounded to 6
// decimals); the full layers' rope without rope_freqs' factors is off by 0.36.
constexpr float kTolerance = 1e-4f;

std::unique_ptr<model::Model> Load(kernels::KernelSet set = kernels::KernelSet::kOptimized,
                                   const char* path = kModel) {
  return LoadSourceModel(path, set);
}

nlohmann::json Reference(const char* path = kLogits) { return ReadExpectedLogits(path); }

TEST(Gemma4Test, ReadsThePerLayerLayout) {
  std::unique_ptr<model::Model> m = Load();
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.architecture, "gemma4");
  EXPECT_EQ(h.n_layer, 9);
  EXPECT_EQ(h.swa_layers, (std::vector<uint8_t>{1, 1, 0, 1, 1, 0, 1, 1, 0}));
  EXPECT_EQ(h.n_swa, 4);
  EXPECT_EQ(h.layer_n_ff, (std::vector<int64_t>{96, 96, 96, 96, 96, 96, 192, 192, 192}));
  // Sliding layers: 2 KV heads of 16; full: 1 of 32; the last three share.
  EXPECT_EQ(h.layer_kv_dims, (std::vector<int64_t>{32, 32, 32, 32, 32, 32, 0, 0, 0}));
  EXPECT_EQ(h.rope.n_rot, 32);
  EXPECT_EQ(h.rope_swa.n_rot, 16);
  EXPECT_FLOAT_EQ(h.rope_swa.freq_base, 10000.0f);
  EXPECT_FLOAT_EQ(h.final_softcap, 30.0f);
  EXPECT_FLOAT_EQ(h.attn_scale, 1.0f);
}

TEST(Gemma4Test, LogitsMatchTransformers) { ExpectLogitsMatchTransformers(kModel, kLogits, kTolerance); }

TEST(Gemma4Test, LogitsMatchTransformersWithFullLayersOwnV) {
  ExpectLogitsMatchTransformers(kOwnVModel, kOwnVLogits, kTolerance);
}

TEST(Gemma4Test, SameBitsForEveryPassWidthAndThreadCount) {
  std::unique_ptr<model::Model> m = Load();
  ASSERT_NE(m, nullptr);
  const std::vector<int32_t> ids = SequenceIds(Reference()["sequences"][0]);
  const std::vector<float> whole = ChunkedLogits(*m, ids, ids.size(), 1);
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{5}}) {
    for (int threads : {1, 2, 3}) {
      EXPECT_TRUE(SameBits(whole, ChunkedLogits(*m, ids, chunk, threads))) << chunk << " rows, " << threads << " threads";
    }
  }
}

std::vector<float> Continue(runtime::Session& s, int32_t seq, std::span<const int32_t> ids) {
  Expected<runtime::Logits> l = s.Verify(ids, seq);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? l->values : std::vector<float>();
}

// The shared-KV layers read another layer's cache: a truncated draft and a
// copied prefix must leave them reading what a fresh run would.
TEST(Gemma4Test, TruncateAndCopyPrefixKeepTheSharedCacheRight) {
  std::unique_ptr<model::Model> m = Load();
  ASSERT_NE(m, nullptr);
  const std::vector<int32_t> ids = SequenceIds(Reference()["sequences"][0]);  // 17 tokens
  const std::span<const int32_t> all(ids);
  auto s = runtime::Session::Create(*m, {.n_ctx = 64, .n_seq = 3, .n_threads = 2});
  ASSERT_TRUE(s.ok());
  runtime::Session& t = **s;
  Continue(t, 0, all.first(10));
  const std::vector<float> tail = Continue(t, 0, all.subspan(10));

  Continue(t, 1, all.first(8));
  Continue(t, 1, std::vector<int32_t>{ids[8], ids[9], 5, 6, 7});
  ASSERT_TRUE(t.Truncate(1, 10).ok());
  EXPECT_TRUE(SameBits(tail, Continue(t, 1, all.subspan(10))));

  ASSERT_TRUE(t.Truncate(0, 10).ok());
  ASSERT_TRUE(t.CopyPrefix(0, 2, 10).ok());
  EXPECT_TRUE(SameBits(tail, Continue(t, 2, all.subspan(10))));
}

}  // namespace
}  // namespace trit::testing
