// Helpers for the C API's tests: the bundled model loaded through the API,
// and generation collected into a string.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "test_paths.h"
#include "trit/trit.h"

namespace trit::testing {

struct ModelDeleter {
  void operator()(trit_model* m) const { trit_model_free(m); }
};
using ModelPtr = std::unique_ptr<trit_model, ModelDeleter>;

// Loads `path` with `n_threads` and `n_ctx`; a failure fails the test and gives null.
inline ModelPtr LoadModel(const std::string& path, int32_t n_threads = 1, int64_t n_ctx = 0) {
  trit_model_options o;
  trit_model_options_default(&o);
  o.model = path.c_str();
  o.n_threads = n_threads;
  o.n_ctx = n_ctx;
  trit_model* m = nullptr;
  const trit_status s = trit_model_load(&o, &m);
  EXPECT_EQ(s, TRIT_STATUS_OK) << trit_last_error();
  return ModelPtr(m);
}

inline ModelPtr LoadBundled(int32_t n_threads = 1, int64_t n_ctx = 0) {
  return LoadModel(BundledModelPath(), n_threads, n_ctx);
}

// Writes the bundled model to `path` with metadata `key` set to `value`.
inline void WriteBundledWith(const std::string& path, const std::string& key, const gguf::Value& value) {
  Expected<gguf::File> f = gguf::File::Open(BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  gguf::Writer w;
  for (const auto& e : f->metadata()) ASSERT_TRUE(w.SetMetadata(e.key, e.value).ok());
  ASSERT_TRUE(w.SetMetadata(key, value).ok());
  for (const auto& t : f->tensors()) ASSERT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
  ASSERT_TRUE(w.WriteFile(path).ok());
}

// A fresh directory under the system temp dir, removed with the fixture.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("trit-api-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// What the callback saw.
struct Collected {
  std::string text;
  std::vector<int32_t> tokens;  // TRIT_NO_TOKEN for the final flush
  int stop_after = -1;          // return 0 after this many tokens (-1: never)
};

inline int Collect(const char* piece, size_t len, int32_t token, void* user_data) {
  auto* c = static_cast<Collected*>(user_data);
  c->text.append(piece, len);
  c->tokens.push_back(token);
  return c->stop_after >= 0 && static_cast<int>(c->tokens.size()) >= c->stop_after ? 0 : 1;
}

inline trit_generate_options Greedy(int64_t max_tokens) {
  trit_generate_options o;
  trit_generate_options_default(&o);
  o.temperature = 0.0f;
  o.max_tokens = max_tokens;
  return o;
}

}  // namespace trit::testing
