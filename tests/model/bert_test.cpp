// The BERT encoder on small random models (random_bert.h): against a
// double-precision forward written here from Hugging Face's BertModel
// (independent of bert.cpp), bit for bit across batches, thread counts and
// kernel sets, and the refusals of malformed files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "model/architecture.h"
#include "model/encoder.h"
#include "model/random_bert.h"

namespace trit::model {
namespace {

using testing::RandomBertSpec;
using testing::WriteRandomBert;

class BertTest : public ::testing::Test {
 protected:
  std::string Write(const RandomBertSpec& spec, const std::string& tag) {
    const std::string path = ::testing::TempDir() + "bert_" + tag + "_" + std::to_string(getpid()) + ".gguf";
    EXPECT_TRUE(WriteRandomBert(spec, path).ok());
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& p : paths_) std::remove(p.c_str());
  }
  std::unique_ptr<Encoder> Load(const std::string& path, kernels::KernelSet set = kernels::KernelSet::kOptimized) {
    Expected<std::unique_ptr<Encoder>> e = LoadEncoder(path, {.kernels = set});
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(*e) : nullptr;
  }
  std::string Refusal(const RandomBertSpec& spec, const std::string& tag) {
    Expected<std::unique_ptr<Encoder>> e = LoadEncoder(Write(spec, tag));
    EXPECT_FALSE(e.ok());
    return e.ok() ? "" : e.status().message();
  }
  static std::vector<float> Embed(const Encoder& e, const std::vector<std::vector<int32_t>>& seqs, Pooling pooling,
                                  int threads) {
    ThreadPool pool(threads);
    std::vector<float> out(seqs.size() * static_cast<size_t>(e.hparams().n_embd));
    e.Embed(seqs, pooling, pool, out.data());
    return out;
  }
  std::vector<std::string> paths_;
};

// The file's f32 tensor as doubles.
std::vector<double> Tensor(const gguf::File& f, const std::string& name) {
  const gguf::TensorInfo* t = f.FindTensor(name);
  EXPECT_NE(t, nullptr) << name;
  std::span<const uint8_t> bytes = f.TensorData(*t);
  std::vector<double> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    float v;
    std::memcpy(&v, bytes.data() + 4 * i, 4);
    out[i] = v;
  }
  return out;
}

// BertModel's forward in double, one text, then the pooling. Weight
// matrices are (out, in) row-major, as GGUF's [in, out] shape stores them.
std::vector<double> ReferenceEmbedding(const gguf::File& f, const RandomBertSpec& s, const std::vector<int32_t>& ids,
                                       Pooling pooling) {
  const int64_t d = s.n_embd, n = static_cast<int64_t>(ids.size()), hd = d / s.n_head;
  const double eps = 1e-12;
  auto layer_norm = [&](std::vector<double>& x, const std::string& name) {
    const std::vector<double> w = Tensor(f, name + ".weight"), b = Tensor(f, name + ".bias");
    for (int64_t r = 0; r < n; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += x[r * d + i];
      mean /= d;
      for (int64_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
      var /= d;
      for (int64_t i = 0; i < d; ++i) x[r * d + i] = (x[r * d + i] - mean) / std::sqrt(var + eps) * w[i] + b[i];
    }
  };
  auto linear = [&](const std::vector<double>& x, int64_t in, const std::string& name, int64_t out) {
    const std::vector<double> w = Tensor(f, name + ".weight"), b = Tensor(f, name + ".bias");
    std::vector<double> y(static_cast<size_t>(n * out));
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double acc = b[o];
        for (int64_t i = 0; i < in; ++i) acc += x[r * in + i] * w[o * in + i];
        y[r * out + o] = acc;
      }
    }
    return y;
  };
  const std::vector<double> tok = Tensor(f, "token_embd.weight"), pos = Tensor(f, "position_embd.weight"),
                            types = Tensor(f, "token_types.weight");
  std::vector<double> x(static_cast<size_t>(n * d));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t i = 0; i < d; ++i) x[r * d + i] = tok[ids[r] * d + i] + types[i] + pos[r * d + i];
  }
  layer_norm(x, "token_embd_norm");
  for (int64_t il = 0; il < s.n_layer; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    const std::vector<double> q = linear(x, d, p + "attn_q", d), k = linear(x, d, p + "attn_k", d),
                              v = linear(x, d, p + "attn_v", d);
    std::vector<double> a(static_cast<size_t>(n * d));
    for (int64_t h = 0; h < s.n_head; ++h) {
      for (int64_t r = 0; r < n; ++r) {
        std::vector<double> score(static_cast<size_t>(n));
        double max = -1e300, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < hd; ++c) dot += q[r * d + h * hd + c] * k[j * d + h * hd + c];
          score[j] = dot / std::sqrt(static_cast<double>(hd));
          max = std::max(max, score[j]);
        }
        for (double& sc : score) sum += (sc = std::exp(sc - max));
        for (int64_t c = 0; c < hd; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) acc += score[j] / sum * v[j * d + h * hd + c];
          a[r * d + h * hd + c] = acc;
        }
      }
    }
    const std::vector<double> o = linear(a, d, p + "attn_output", d);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    layer_norm(x, p + "attn_output_norm");
    std::vector<double> up = linear(x, d, p + "ffn_up", s.n_ff);
    for (double& u : up) u = 0.5 * u * (1.0 + std::erf(u / std::sqrt(2.0)));
    const std::vector<double> down = linear(up, s.n_ff, p + "ffn_down", d);
    for (size_t i = 0; i < x.size(); ++i) x[i] += down[i];
    layer_norm(x, p + "layer_output_norm");
  }
  std::vector<double> out(static_cast<size_t>(d), 0.0);
  for (int64_t i = 0; i < d; ++i) {
    if (pooling == Pooling::kCls) out[i] = x[i];
    if (pooling == Pooling::kLast) out[i] = x[(n - 1) * d + i];
    if (pooling == Pooling::kMean) {
      for (int64_t r = 0; r < n; ++r) out[i] += x[r * d + i] / static_cast<double>(n);
    }
  }
  return out;
}

std::vector<std::vector<int32_t>> RandomTexts(size_t count, int64_t max_len, int64_t n_vocab, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int32_t>> out(count);
  for (auto& ids : out) {
    ids.resize(1 + rng() % static_cast<uint64_t>(max_len));
    for (int32_t& id : ids) id = static_cast<int32_t>(rng() % static_cast<uint64_t>(n_vocab));
  }
  return out;
}

TEST_F(BertTest, MatchesADoublePrecisionForwardForEveryPooling) {
  RandomBertSpec spec;
  const std::string path = Write(spec, "f32");
  std::unique_ptr<Encoder> e = Load(path);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->hparams().n_embd, 64);
  EXPECT_EQ(e->hparams().n_ctx_train, 96);
  EXPECT_EQ(e->file_pooling(), Pooling::kMean);
  Expected<gguf::File> f = gguf::File::Open(path);
  ASSERT_TRUE(f.ok());
  const std::vector<std::vector<int32_t>> texts = {{3}, {5, 9, 1, 44}, RandomTexts(1, 96, 50, 3)[0]};
  for (Pooling pooling : {Pooling::kMean, Pooling::kCls, Pooling::kLast}) {
    const std::vector<float> got = Embed(*e, texts, pooling, 2);
    for (size_t t = 0; t < texts.size(); ++t) {
      const std::vector<double> want = ReferenceEmbedding(*f, spec, texts[t], pooling);
      for (int64_t i = 0; i < 64; ++i) {
        EXPECT_NEAR(got[t * 64 + i], want[i], 2e-5) << PoolingName(pooling) << " text " << t << " element " << i;
      }
    }
  }
}

TEST_F(BertTest, ATextIsTheSameBitsInAnyBatchWithAnyThreadsAndKernelSet) {
  for (quant::GgmlType type : {quant::GgmlType::kF32, quant::GgmlType::kF16, quant::GgmlType::kQ8_0}) {
    RandomBertSpec spec;
    spec.matrix_type = type;
    const std::string path = Write(spec, std::string(quant::GetType(type).name));
    std::unique_ptr<Encoder> e = Load(path);
    ASSERT_NE(e, nullptr);
    const std::vector<std::vector<int32_t>> texts = RandomTexts(64, 96, 50, 11);
    std::vector<std::vector<float>> alone;
    for (const auto& t : texts) alone.push_back(Embed(*e, {t}, Pooling::kMean, 1));
    std::mt19937 rng(2);
    for (size_t batch : {2u, 7u, 64u}) {
      for (int threads : {1, 2, 3}) {
        std::vector<size_t> pick(batch);
        std::vector<std::vector<int32_t>> seqs;
        for (size_t& p : pick) {
          p = rng() % texts.size();
          seqs.push_back(texts[p]);
        }
        const std::vector<float> out = Embed(*e, seqs, Pooling::kMean, threads);
        for (size_t i = 0; i < batch; ++i) {
          EXPECT_EQ(std::memcmp(&out[i * 64], alone[pick[i]].data(), 64 * 4), 0)
              << quant::GetType(type).name << " batch " << batch << " threads " << threads << " row " << i;
        }
      }
    }
    // The reference kernels: bit for bit where the optimized ones promise it
    // (float weights), within rounding of the int8 activations for q8_0.
    std::unique_ptr<Encoder> ref = Load(path, kernels::KernelSet::kReference);
    ASSERT_NE(ref, nullptr);
    const std::vector<float> a = Embed(*e, texts, Pooling::kMean, 2), b = Embed(*ref, texts, Pooling::kMean, 2);
    if (type == quant::GgmlType::kQ8_0) {
      for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 0.05) << i;
    } else {
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0) << quant::GetType(type).name;
    }
  }
}

TEST_F(BertTest, MalformedFilesAreRefusedByName) {
  RandomBertSpec causal;
  causal.causal = true;
  EXPECT_TRUE(Refusal(causal, "causal").ends_with(": metadata 'bert.attention.causal' is true: BERT is bidirectional"));
  RandomBertSpec rank;
  rank.pooling_type = 4;
  EXPECT_TRUE(Refusal(rank, "rank").ends_with(": metadata 'bert.pooling_type' is 4 (rank, a reranker): not supported"));
  RandomBertSpec gqa;
  gqa.head_count_kv = 2;
  EXPECT_TRUE(Refusal(gqa, "gqa").ends_with(": metadata 'bert.attention.head_count_kv' is 2, BERT has 4 (head_count)"));
  RandomBertSpec missing;
  missing.skip_tensor = "blk.1.ffn_up.bias";
  EXPECT_NE(Refusal(missing, "missing").find("tensor 'blk.1.ffn_up.bias' not found (architecture 'bert')"),
            std::string::npos);
  RandomBertSpec no_pooling;
  no_pooling.pooling_type = -1;
  std::unique_ptr<Encoder> e = Load(Write(no_pooling, "nopool"));
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->file_pooling().has_value());
}

TEST(PoolingTest, NamesRoundTrip) {
  for (Pooling p : {Pooling::kMean, Pooling::kCls, Pooling::kLast}) EXPECT_EQ(ParsePooling(PoolingName(p)), p);
  EXPECT_FALSE(ParsePooling("max").has_value());
}

}  // namespace
}  // namespace trit::model
