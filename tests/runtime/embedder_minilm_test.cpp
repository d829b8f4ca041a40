// Embeddings of the real all-MiniLM-L6-v2 (built only when CMake is
// configured with TRIT_HF_MINILM_DIR): the checkpoint is converted with
// trit's converter, loaded as an encoder and run on the inputs of
// tests/data/minilm/, whose vectors sentence-transformers and llama.cpp
// computed (README.md there says how). Checked:
//   - trit's f32 vectors against sentence-transformers': cosine >= 0.99999
//     and max abs <= 1e-4, normalized and not;
//   - the token ids against Hugging Face's tokenizer's;
//   - against llama.cpp's vectors, computed on the file trit's converter
//     writes (its sha256 recorded beside them and checked here), within
//     llama.cpp's own GELU approximation;
//   - batch invariance: every input's vector is bit-identical alone and in
//     batches of 1 to 64 inputs of other lengths, with 1 to 3 threads, and
//     when the inputs are split over several passes;
//   - the reference kernel set and an f16 file agree within tolerance.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/sha256.h"
#include "convert/hf_to_gguf.h"
#include "model/encoder.h"
#include "runtime/embedder.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {
namespace {

namespace fs = std::filesystem;

nlohmann::json ReadJson(const std::string& name) {
  std::ifstream in(std::string(TRIT_SOURCE_DIR) + "/tests/data/minilm/" + name);
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in);
}

// The checkpoint converted once per test program, from a folder named as
// in tests/data/minilm/README.md (general.name comes from the folder's name,
// and the llama.cpp vectors were computed on that exact file).
class MiniLm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "minilm_embed_" + std::to_string(getpid()));
    fs::create_directories(*dir_);
    const std::string link = *dir_ + "/all-minilm-l6-v2";
    fs::create_directory_symlink(fs::absolute(TRIT_HF_MINILM_DIR), link);
    for (const auto& [type, name] : {std::pair{quant::GgmlType::kF32, "f32"}, std::pair{quant::GgmlType::kF16, "f16"}}) {
      convert::HfConvertOptions options;
      options.type = type;
      const std::string out = *dir_ + "/minilm-" + name + ".gguf";
      Expected<convert::HfConvertReport> report = convert::ConvertHfToGguf(link, out, options);
      ASSERT_TRUE(report.ok()) << report.status().message();
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Path(const char* type) { return *dir_ + "/minilm-" + type + ".gguf"; }

  struct Loaded {
    std::unique_ptr<model::Encoder> encoder;
    std::unique_ptr<tokenizer::Tokenizer> tokenizer;
    std::unique_ptr<Embedder> embedder;
  };
  static Loaded Load(const char* type, kernels::KernelSet set = kernels::KernelSet::kOptimized) {
    Loaded l;
    Expected<std::unique_ptr<model::Encoder>> e = model::LoadEncoder(Path(type), {.kernels = set});
    EXPECT_TRUE(e.ok()) << e.status().message();
    Expected<std::unique_ptr<tokenizer::Tokenizer>> t = tokenizer::Tokenizer::FromGgufPath(Path(type));
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (!e.ok() || !t.ok()) return l;
    l.encoder = std::move(*e);
    l.tokenizer = std::move(*t);
    l.embedder = std::make_unique<Embedder>(*l.encoder, *l.tokenizer);
    return l;
  }

  static std::vector<std::vector<int32_t>> Tokenize(const Embedder& e, const nlohmann::json& inputs) {
    std::vector<std::vector<int32_t>> ids;
    for (const nlohmann::json& text : inputs) {
      Expected<std::vector<int32_t>> t = e.Tokenize(text.get<std::string>());
      EXPECT_TRUE(t.ok()) << t.status().message();
      ids.push_back(t.ok() ? *t : std::vector<int32_t>{101, 102});
    }
    return ids;
  }

  static std::vector<float> Embed(const Embedder& e, const std::vector<std::vector<int32_t>>& ids, bool normalize,
                                  int threads = 2) {
    ThreadPool pool(threads);
    std::vector<float> out(ids.size() * static_cast<size_t>(e.dimension()));
    e.Embed(ids, model::Pooling::kMean, normalize, pool, out.data());
    return out;
  }

  // Cosine and max abs difference of row i of `got` against `want`, per row.
  static void ExpectClose(const std::vector<float>& got, const nlohmann::json& want, double min_cos, double max_abs,
                          const std::string& what) {
    ASSERT_EQ(got.size(), want.size() * 384) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      double dot = 0, na = 0, nb = 0, worst = 0;
      for (size_t j = 0; j < 384; ++j) {
        const double a = got[i * 384 + j], b = want[i][j].get<double>();
        dot += a * b;
        na += a * a;
        nb += b * b;
        worst = std::max(worst, std::fabs(a - b));
      }
      EXPECT_GE(dot / std::sqrt(na * nb), min_cos) << what << " input " << i;
      EXPECT_LE(worst, max_abs) << what << " input " << i;
    }
  }

  static std::string* dir_;
};

std::string* MiniLm::dir_ = nullptr;

TEST_F(MiniLm, TokenIdsAreHuggingFaces) {
  const nlohmann::json ref = ReadJson("reference_vectors.json");
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  const std::vector<std::vector<int32_t>> ids = Tokenize(*l.embedder, ref["inputs"]);
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], ref["token_ids"][i].get<std::vector<int32_t>>()) << ref["inputs"][i];
  }
}

TEST_F(MiniLm, F32VectorsMatchSentenceTransformers) {
  const nlohmann::json ref = ReadJson("reference_vectors.json");
  ASSERT_EQ(ref["pooling"], "mean");
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  EXPECT_EQ(l.encoder->file_pooling(), model::Pooling::kMean);  // from 1_Pooling/config.json via the converter
  const std::vector<std::vector<int32_t>> ids = Tokenize(*l.embedder, ref["inputs"]);
  ExpectClose(Embed(*l.embedder, ids, true), ref["vectors"], 0.99999, 1e-4, "normalized");
  ExpectClose(Embed(*l.embedder, ids, false), ref["vectors_unnormalized"], 0.99999, 1e-4, "not normalized");
}

// llama.cpp computes GELU from a table of its tanh approximation indexed by
// the input rounded to f16, where the model (hidden_act "gelu") and trit use
// the exact erf form: its vectors are 2-5e-4 (max abs, at unit length) from
// sentence-transformers' and from trit's, cosine >= 0.999997
// (tests/data/minilm/README.md). Tolerances here: cosine 0.99999, max abs
// 1e-3 at unit length. What this proves is that llama.cpp reads trit's file
// as the model it is: a wrong name, shape or key gives cosines far below.
TEST_F(MiniLm, LlamaCppComputedTheSameOnThisVeryFile) {
  const nlohmann::json lcp = ReadJson("llama_cpp_vectors.json");
  Expected<MappedFile> file = MappedFile::Open(Path("f32"));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(Sha256Hex(file->bytes()), lcp["gguf_sha256"].get<std::string>())
      << "the converter's f32 output changed: recompute llama_cpp_vectors.json (tests/data/minilm/README.md)";
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  const std::vector<std::vector<int32_t>> ids = Tokenize(*l.embedder, lcp["inputs"]);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], lcp["token_ids"][i].get<std::vector<int32_t>>()) << i;
  ASSERT_FALSE(lcp["normalized"].get<bool>());
  nlohmann::json unit = lcp["vectors"];  // llama.cpp's, scaled to length 1 as trit's below
  for (nlohmann::json& v : unit) {
    double norm = 0;
    for (const nlohmann::json& x : v) norm += x.get<double>() * x.get<double>();
    for (nlohmann::json& x : v) x = x.get<double>() / std::sqrt(norm);
  }
  ExpectClose(Embed(*l.embedder, ids, true), unit, 0.99999, 1e-3, "llama.cpp");
}

TEST_F(MiniLm, EveryVectorIsTheSameBitsInAnyBatchWithAnyThreads) {
  const nlohmann::json ref = ReadJson("reference_vectors.json");
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  const std::vector<std::vector<int32_t>> inputs = Tokenize(*l.embedder, ref["inputs"]);
  // Alone, one thread: the vectors every batch must reproduce.
  std::vector<std::vector<float>> alone;
  for (const std::vector<int32_t>& ids : inputs) alone.push_back(Embed(*l.embedder, {ids}, true, 1));
  std::mt19937 rng(7);
  for (size_t batch : {1u, 2u, 5u, 14u, 33u, 64u}) {
    for (int threads : {1, 2, 3}) {
      std::vector<size_t> pick(batch);
      std::vector<std::vector<int32_t>> ids;
      for (size_t i = 0; i < batch; ++i) {
        pick[i] = rng() % inputs.size();
        ids.push_back(inputs[pick[i]]);
      }
      const std::vector<float> out = Embed(*l.embedder, ids, true, threads);
      for (size_t i = 0; i < batch; ++i) {
        EXPECT_EQ(std::memcmp(&out[i * 384], alone[pick[i]].data(), 384 * sizeof(float)), 0)
            << "batch " << batch << ", threads " << threads << ", row " << i << " (input " << pick[i] << ")";
      }
    }
  }
}

TEST_F(MiniLm, InputsPastOnePassGiveTheSameBits) {
  const nlohmann::json ref = ReadJson("reference_vectors.json");
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  const std::vector<int32_t> longest = Tokenize(*l.embedder, ref["inputs"])[3];  // 195 tokens
  std::vector<std::vector<int32_t>> ids(kMaxRowsPerPass / longest.size() + 2, longest);  // two passes
  const std::vector<float> out = Embed(*l.embedder, ids, false);
  const std::vector<float> one = Embed(*l.embedder, {longest}, false, 1);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(std::memcmp(&out[i * 384], one.data(), 384 * 4), 0) << i;
}

TEST_F(MiniLm, ReferenceKernelsAndF16AgreeWithinTolerance) {
  const nlohmann::json ref = ReadJson("reference_vectors.json");
  Loaded reference = Load("f32", kernels::KernelSet::kReference);
  ASSERT_NE(reference.embedder, nullptr);
  const std::vector<std::vector<int32_t>> ids = Tokenize(*reference.embedder, ref["inputs"]);
  ExpectClose(Embed(*reference.embedder, ids, true), ref["vectors"], 0.99999, 1e-4, "reference kernels");
  Loaded f16 = Load("f16");
  ASSERT_NE(f16.embedder, nullptr);
  ExpectClose(Embed(*f16.embedder, ids, true), ref["vectors"], 0.9999, 2e-3, "f16 weights");
}

TEST_F(MiniLm, TooLongAndBadIdsAreRefusedByName) {
  Loaded l = Load("f32");
  ASSERT_NE(l.embedder, nullptr);
  std::string long_text;
  for (int i = 0; i < 600; ++i) long_text += "word ";
  Expected<std::vector<int32_t>> t = l.embedder->Tokenize(long_text);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "input is 602 tokens, the model takes at most 512");
  EXPECT_EQ(l.embedder->CheckIds(std::vector<int32_t>{101, 30522}).message(),
            "token 30522 at index 1 is out of range (vocabulary of 30522)");
  EXPECT_EQ(l.embedder->CheckIds(std::vector<int32_t>{}).message(), "a token array is empty");
  EXPECT_TRUE(l.embedder->CheckIds(std::vector<int32_t>{101, 102}).ok());
}

TEST_F(MiniLm, TheFileRefusesToGenerateText) {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(Path("f32"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("'bert' is an embedding model"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace trit::runtime
